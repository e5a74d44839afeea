import type { RequestListener } from 'node:http';
import type { BuiltApp } from './express-app.js';
import { sendRpcError } from '../access/respond.js';
import { logger } from '../core/log.js';

const log = logger('http');

/**
 * The hub's express app — dashboard, REST, HTTP+SSE — built on the first request that
 * reaches it. Express with its body parser and mime tables is ~3–4 MB of RSS and ~2.5 MB of heap
 * (bench/RESULTS.md, idle hub) that a hub whose clients use /mcp, the bridge's pipe or WebSocket
 * never needs; the tray's hub idles like that until its dashboard is opened.
 */
export class LazyApp {
  private built?: Promise<BuiltApp>;

  constructor(private build: () => Promise<BuiltApp>) {}

  /** Requests that arrive while it loads wait for it; their bodies stay unread until then. */
  readonly handler: RequestListener = (req, res) => {
    (this.built ??= this.build()).then(
      ({ app }) => app(req, res),
      (err: Error) => {
        log.error(`the hub's routes could not be loaded: ${err.message}`, { err });
        sendRpcError(res, 'INTERNAL', `Internal error: the hub's routes could not be loaded (${err.message}). Reinstall Pincer.`);
      },
    );
  };

  /** Closes the dashboards' event streams, if the app was ever built. */
  async closeEventStreams(): Promise<void> {
    (await this.settled())?.closeEventStreams();
  }

  /** Closes HTTP+SSE sessions, if the app was ever built. */
  async closeLegacy(): Promise<void> {
    await (await this.settled())?.closeLegacy();
  }

  private async settled(): Promise<BuiltApp | undefined> {
    // A failed build was answered (500) and logged where it failed; here only whether one is ready matters.
    return this.built?.catch(() => /* answered and logged where it failed */ undefined);
  }
}

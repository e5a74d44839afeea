import { createParser } from 'eventsource-parser';
import type { HubEvent } from '../../main/tools/events.js';
import { reportReachable } from './api.js';
import { SignedOut } from './errors.js';
import { credentials, prove, unprove } from './sign-in.js';

/** Events the stream sends besides the hub's own. */
export type StreamEvent = HubEvent | { type: 'connected' | 'ping'; timestamp: number };

type Handler = (e: StreamEvent) => void;
const HEADERS_TIMEOUT_MS = 3000;
const SILENCE_MS = 40_000;
const handlers = new Set<Handler>();
const epochListeners = new Set<(epoch: number) => void>();
let epoch = 0;

export function onHubEvent(h: Handler): () => void {
  handlers.add(h);
  return () => handlers.delete(h);
}

/** Bumped each time the stream (re)connects: pages refetch, so nothing stays stale after the hub comes back. */
export function onEpoch(l: (epoch: number) => void): () => void {
  epochListeners.add(l);
  return () => epochListeners.delete(l);
}

/**
 * The hub's event stream, read with fetch (so the sign-in's credential goes in a header, and no
 * browser reconnects it by itself as EventSource would) and parsed with eventsource-parser. Each
 * connection starts with the hub's proof (sign-in.ts): a stream that ended — the hub stopped, or
 * handed over — may come back from anyone, so nothing is sent again until the hub proves itself.
 * Tries again every second while the hub is away; a server that proves nothing signs the tab out.
 */
export function connectLive(onSignedOut: (why: string) => void): () => void {
  let stopped = false;
  let controller: AbortController | undefined;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const run = async () => {
    while (!stopped) {
      controller = new AbortController();
      let creds: Awaited<ReturnType<typeof credentials>>;
      try {
        creds = await credentials();
      } catch (err) {
        if (stopped) return;
        if (err instanceof SignedOut) return onSignedOut(err.message);
        reportReachable(false);
        await sleep(1000);
        continue;
      }
      let res: Response;
      // A hub that is going away can leave a connection that never answers: no headers within a few
      // seconds counts as not answering (the timer stops once they arrive, so the stream itself may last).
      const noAnswer = setTimeout(() => controller?.abort(), HEADERS_TIMEOUT_MS);
      try {
        res = await fetch('/api/mcp/connect', { headers: creds.headers, signal: controller.signal, cache: 'no-store', credentials: 'omit' });
      } catch {
        clearTimeout(noAnswer);
        if (stopped) return;
        // Nothing answers: the hub is down. Say so at once, then keep trying.
        unprove();
        reportReachable(false);
        await sleep(1000);
        continue;
      }
      clearTimeout(noAnswer);
      if (res.status === 401) {
        // Ended (sign-out, rotation elsewhere) or a server that is not the hub: the hub's proof tells.
        unprove();
        try {
          await prove();
        } catch (err) {
          if (err instanceof SignedOut) return onSignedOut(err.message);
          await sleep(1000);
        }
        continue;
      }
      if (!(await creds.check(res)) || !res.ok || !res.body) {
        // An answer that is not the hub's (or not a stream) is dropped unread; cancelling what is already closed changes nothing.
        await res.body?.cancel().catch(() => /* already closed: nothing to cancel */ undefined);
        reportReachable(false);
        await sleep(1000);
        continue;
      }
      try {
        const parser = createParser({
          onEvent: (m) => {
            let e: StreamEvent;
            try {
              e = JSON.parse(m.data) as StreamEvent;
            } catch {
              return;
            }
            if (e.type === 'connected') {
              reportReachable(true);
              epoch++;
              for (const l of epochListeners) l(epoch);
            }
            for (const h of handlers) h(e);
          },
        });
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        // The hub pings every 15 s: a stream silent for much longer is a hub that hangs; start over.
        let silent = setTimeout(() => controller?.abort(), SILENCE_MS);
        try {
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            clearTimeout(silent);
            silent = setTimeout(() => controller?.abort(), SILENCE_MS);
            parser.feed(value);
          }
        } finally {
          clearTimeout(silent);
        }
      } catch {
        // The stream broke off; reconnecting below tells whether the hub is still there.
      }
      if (stopped) return;
      // Whoever answers next must prove to be the hub again.
      unprove();
      await sleep(100);
    }
  };
  void run();
  return () => {
    stopped = true;
    controller?.abort();
  };
}

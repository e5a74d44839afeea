import { createParser } from 'eventsource-parser';
import type { HubEvent } from '../../main/tools/events.js';
import { authHeaders, reportReachable, sessionKey } from './api.js';

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
 * The hub's event stream, read with fetch (so the session key goes in a
 * header, which EventSource cannot send) and parsed with eventsource-parser.
 * Reconnects every second while the hub is away.
 */
export function connectLive(onUnauthorized: () => void): () => void {
  let stopped = false;
  let controller: AbortController | undefined;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const run = async () => {
    while (!stopped) {
      controller = new AbortController();
      const keyUsed = sessionKey();
      let res: Response;
      // A hub that is going away can leave a connection that never answers: no headers within a few
      // seconds counts as not answering (the timer stops once they arrive, so the stream itself may last).
      const noAnswer = setTimeout(() => controller?.abort(), HEADERS_TIMEOUT_MS);
      try {
        res = await fetch('/api/mcp/connect', { headers: authHeaders(), signal: controller.signal, cache: 'no-store' });
      } catch {
        clearTimeout(noAnswer);
        if (stopped) return;
        // Nothing answers: the hub is down. Say so at once, then keep trying.
        reportReachable(false);
        await sleep(1000);
        continue;
      }
      clearTimeout(noAnswer);
      if (res.status === 401) {
        // Rotating the token from this page ends the stream just before the new key arrives: give it a moment.
        await sleep(500);
        if (sessionKey() !== keyUsed) continue;
        onUnauthorized();
        return;
      }
      if (!res.ok || !res.body) {
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
      await sleep(100);
    }
  };
  void run();
  return () => {
    stopped = true;
    controller?.abort();
  };
}

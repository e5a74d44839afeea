import { createParser } from 'eventsource-parser';
import type { HubEvent } from '../../main/tools/events.js';
import { authHeaders, reportReachable, sessionKey } from './api.js';

/** Events the stream sends besides the hub's own. */
export type StreamEvent = HubEvent | { type: 'connected' | 'ping'; timestamp: number };

type Handler = (e: StreamEvent) => void;
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
  const run = async () => {
    while (!stopped) {
      controller = new AbortController();
      const keyUsed = sessionKey();
      let reached = false;
      let streamed = false;
      try {
        const res = await fetch('/api/mcp/connect', { headers: authHeaders(), signal: controller.signal, cache: 'no-store' });
        reached = true;
        if (res.status === 401) {
          // Rotating the token from this page closes the stream before the new key arrives: retry with it.
          if (sessionKey() !== keyUsed) continue;
          onUnauthorized();
          return;
        }
        if (!res.ok || !res.body) throw new Error(`stream answered ${res.status}`);
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
        streamed = true;
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          parser.feed(value);
        }
      } catch {
        // Either the hub did not answer (reached stays false) or the stream broke off.
      }
      if (stopped) return;
      // A stream the hub ended (rotation, a restart beginning) is retried shortly; only a hub that
      // does not answer at all counts as down.
      if (!reached) reportReachable(false);
      await new Promise((r) => setTimeout(r, streamed ? 300 : 1000));
    }
  };
  void run();
  return () => {
    stopped = true;
    controller?.abort();
  };
}

import type { PROTOCOL_VERSION_META_KEY, ProtocolEra } from '@modelcontextprotocol/server';

export type { ProtocolEra };

/*
 * Which protocol generation a version string belongs to: the one place Pincer reads one (ARCHITECTURE
 * §1), as the SDK's own protocolEras module does (it does not export its helper). 'legacy' is the
 * 2025-11-25 family and earlier (initialize, sessions, server-to-client requests); 'modern' is
 * 2026-07-28 and later (stateless, server/discover, multi round-trip requests, an envelope on every
 * request). Revisions are ISO dates, so they order as text. No runtime import: the standalone's early
 * server/discover answer (cli/early-discover.ts, through server-info.ts) loads this before the SDK.
 */

const FIRST_MODERN_VERSION = '2026-07-28';

/** The modern revisions Pincer serves (server/discover's supportedVersions); 2025-era ones are negotiated by initialize. */
export const MODERN_VERSIONS: readonly string[] = [FIRST_MODERN_VERSION];

/** From this revision on, a resumable SSE stream opens with an event id and no data (SEP-1699), so a client can resume before any message. */
const PRIMED_STREAMS_FROM = '2025-11-25';

/** The `_meta` key under which a modern request names its revision (the SDK's PROTOCOL_VERSION_META_KEY, checked by type). */
const VERSION_KEY: typeof PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';

/** The era of a protocol version; undefined when there is none (not negotiated yet, not a string). */
export function eraOf(version: unknown): ProtocolEra | undefined {
  if (typeof version !== 'string' || version === '') return undefined;
  return version >= FIRST_MODERN_VERSION ? 'modern' : 'legacy';
}

/** The version a request's own envelope names (`params._meta`), which only modern requests carry. */
export function envelopeVersion(params: unknown): unknown {
  const meta: unknown = params && typeof params === 'object' && '_meta' in params ? params._meta : undefined;
  return meta && typeof meta === 'object' && VERSION_KEY in meta ? (meta as Record<string, unknown>)[VERSION_KEY] : undefined;
}

/** Whether a request's own envelope names a modern revision (a 2026-07-28 `subscriptions/listen`, an `initialize` that has no place there). */
export function isModernEnvelope(params: unknown): boolean {
  return eraOf(envelopeVersion(params)) === 'modern';
}

/** Whether a stream answered under `version` opens with a priming event (streamable-session.ts). */
export function primesStreams(version: string): boolean {
  return version >= PRIMED_STREAMS_FROM;
}

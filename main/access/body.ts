// The body checks every surface shares; express's middleware built on them is in express-body.ts, so
// that /mcp's fast path and the hub load no express until a route of its app is asked for.

/** A request body as the hub read it: absent, JSON, or not JSON (each surface answers that its own way). */
export type ParsedBody = { ok: true; value: unknown } | { ok: false; error: string };

export const EMPTY_BODY: ParsedBody = { ok: true, value: undefined };

/** What the hub answers a body declared larger than MAX_BODY_BYTES with (413, before reading a byte); undefined when it fits. */
export function declaredTooLarge(headers: { 'content-length'?: string }, limit: number): string | undefined {
  const declared = Number(headers['content-length'] ?? 0);
  return declared > limit ? `Request body of ${declared} bytes is larger than MAX_BODY_BYTES (${limit}).` : undefined;
}

/** A body read whole, parsed as JSON once: empty is absent, anything else JSON or not. */
export function parseBody(raw: Buffer | undefined): ParsedBody {
  if (!raw || raw.length === 0) return EMPTY_BODY;
  try {
    return { ok: true, value: JSON.parse(raw.toString('utf8')) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}


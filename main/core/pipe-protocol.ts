// The bridge's channel to the hub (`pincer stdio` ↔ `/mcp/pipe`): named once for both ends. This module
// imports nothing, so the bridge can read it without loading any of the hub.

/** Where `pincer stdio` (the bridge) opens its one long-lived connection to the hub. */
export const PIPE_PATH = '/mcp/pipe';
/** The `Upgrade` token of that connection: newline-delimited JSON-RPC, as on stdio. */
export const PIPE_PROTOCOL = 'pincer-jsonrpc';
/** Header of the 101 answer: the largest line the hub accepts on the pipe (MAX_BODY_BYTES). */
export const MAX_MESSAGE_HEADER = 'X-Pincer-Max-Message-Bytes';

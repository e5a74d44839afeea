// The bridge's channel to the hub (`pincer stdio` ↔ `/mcp/pipe`): named once for both ends. This module
// imports nothing, so the bridge can read it without loading any of the hub.

/** Where `pincer stdio` (the bridge) opens its one long-lived connection to the hub. */
export const PIPE_PATH = '/mcp/pipe';
/** The `Upgrade` token of that connection: newline-delimited JSON-RPC, as on stdio. */
export const PIPE_PROTOCOL = 'pincer-jsonrpc';
/** Header of the 101 answer: the largest line the hub accepts on the pipe (MAX_BODY_BYTES). */
export const MAX_MESSAGE_HEADER = 'X-Pincer-Max-Message-Bytes';
/** Header of the bridge's upgrade request: it understands PIPE_GOODBYE (a bridge of an older Pincer sends none). */
export const GOODBYE_HEADER = 'X-Pincer-Pipe-Goodbye';
/**
 * The hub's last message on a pipe it is about to close (a handover, a stop): the bridge sends nothing
 * more on it and ends its side; what it sent before is still read, and answered or refused to be sent to
 * the next hub. Without it a request written just as the hub closed would be lost.
 */
export const PIPE_GOODBYE = 'notifications/pincer/goodbye';

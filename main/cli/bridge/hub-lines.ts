import { routingOf, type RpcId } from './messages.js';
import { PIPE_GOODBYE } from '../../core/pipe-protocol.js';

/** What the bridge needs to know of one line from the hub: which request it answers, if any. */
export type HubLine =
  | { kind: 'other' }
  /** A result: only its id was read. */
  | { kind: 'result'; id: RpcId }
  /** An error answer (small): parsed, so the bridge can tell a "send it to the next hub" refusal. */
  | { kind: 'error'; id: RpcId; data: unknown }
  /** A batch answer (the client sent a batch): the ids it answers. */
  | { kind: 'batch'; ids: RpcId[] };

// The hub writes each message as JSON.stringify of the SDK's objects, whose key
// order is fixed: results end with `,"jsonrpc":"2.0","id":<id>}`, errors start
// with `{"jsonrpc":"2.0","id":<id>,"error":`, notifications and requests start
// with their "method". Inside a JSON string every `"` is escaped, so these
// patterns can only match the message's own top-level keys: a tool's 1 MB
// result is recognised from its last bytes, never parsed. Any other shape
// (another key order, a batch) falls back to JSON.parse, so the patterns
// decide speed, never correctness.
const ID = '(-?[0-9]{1,16}|"(?:[^"\\\\]|\\\\.){0,200}")';
const RESULT_TAIL = new RegExp(`,"jsonrpc":"2\\.0","id":${ID}\\}$`);
const ERROR_HEAD = new RegExp(`^\\{"jsonrpc":"2\\.0","id":${ID},"error":`);
const NOT_AN_ANSWER = /^\{(?:"jsonrpc":"2\.0",)?"method":"/;
/** Bytes of a line's ends that are decoded to look for those patterns. */
const PEEK = 320;

const GOODBYE = `"method":"${PIPE_GOODBYE}"`;

/** The hub's goodbye on a pipe it closes (core/pipe-protocol.ts): a notification of its own, never the client's. */
export function isGoodbye(line: Buffer): boolean {
  if (line.length > 200 || !line.includes(GOODBYE)) return false;
  try {
    return routingOf(JSON.parse(line.toString('utf8'))).method === PIPE_GOODBYE;
  } catch {
    // Not JSON: not the goodbye.
    return false;
  }
}

function idOf(token: string): RpcId {
  return token.startsWith('"') ? (JSON.parse(token) as string) : Number(token);
}

/** Classifies one line the hub wrote (without its newline). */
export function peekHubLine(line: Buffer): HubLine {
  const head = line.toString('utf8', 0, Math.min(line.length, PEEK));
  if (NOT_AN_ANSWER.test(head)) return { kind: 'other' };
  if (!ERROR_HEAD.test(head)) {
    const tail = RESULT_TAIL.exec(line.toString('utf8', Math.max(0, line.length - PEEK)));
    if (tail) return { kind: 'result', id: idOf(tail[1]!) };
  }
  return parsed(line);
}

function parsed(line: Buffer): HubLine {
  let value: unknown;
  try {
    value = JSON.parse(line.toString('utf8'));
  } catch {
    // Not JSON: relayed as it is; the client's parser answers for it.
    return { kind: 'other' };
  }
  if (Array.isArray(value)) return { kind: 'batch', ids: value.flatMap((m) => (routingOf(m).isResponse ? [routingOf(m).id!] : [])) };
  const r = routingOf(value);
  if (!r.isResponse || r.id === undefined) return { kind: 'other' };
  const error = (value as { error?: { data?: unknown } }).error;
  return error ? { kind: 'error', id: r.id, data: error.data } : { kind: 'result', id: r.id };
}

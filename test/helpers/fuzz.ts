import { EXPECTED } from './catalogue.js';

/** What a well-behaved server must answer to one generated message. */
export type Expect = 'parse' | 'invalid' | 'method' | 'params' | 'toolError' | 'ok' | 'none';

export interface FuzzMessage {
  text: string;
  id?: string | number;
  expect: Expect;
}

/** A small seeded PRNG (mulberry32), so a failing run can be replayed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WRONG_VALUES: unknown[] = [null, true, 3.5, -1, 'x', [], {}, [1, 'a'], { nested: { deep: [] } }, 'x'.repeat(5000)];

export function expectedCode(e: Expect): number | undefined {
  return { parse: -32700, invalid: -32600, method: -32601, params: -32602 }[e as 'parse'];
}

/** Generates hostile and malformed messages of every kind the reliability suite names. */
export function fuzzMessages(count: number, seed = 1): FuzzMessage[] {
  const r = rng(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
  const tools = Object.keys(EXPECTED);
  const out: FuzzMessage[] = [];
  for (let n = 0; n < count; n++) {
    const id = `f${seed}-${n}`;
    const kind = Math.floor(r() * 12);
    switch (kind) {
      case 0:
        out.push({ text: pick(['{', '{"jsonrpc":"2.0",', '[1,2', 'nul', '{"a":}', '\u0000\u0001', '}{', '"unterminated']), expect: 'parse' });
        break;
      case 1:
        out.push({ text: JSON.stringify(pick([{ jsonrpc: '1.0', id, method: 'tools/list' }, { id, method: 'tools/list' }, { jsonrpc: '2.0', id, method: 7 }, { jsonrpc: '2.0', id, params: {} }])), id, expect: 'invalid' });
        break;
      case 2:
        out.push({ text: JSON.stringify({ jsonrpc: '2.0', id, method: pick(['no/such', 'tools/explode', 'initialize2', 'resources/delete', '']) || 'x/y' }), id, expect: 'method' });
        break;
      case 3: {
        // Wrong types for a parameter of a tool.
        const tool = pick(tools);
        const params = EXPECTED[tool]!.params;
        const args: Record<string, unknown> = {};
        // Never a string: some parameters take any text (ListBgTasks' query, TaskManager's text).
        if (params.length) args[pick(params)] = pick(WRONG_VALUES.filter((v) => typeof v !== 'string'));
        const missingRequired = EXPECTED[tool]!.required.length > 0;
        // A call with only a wrong-typed or missing required field is a tool error, never a crash.
        out.push({ text: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: args } }), id, expect: missingRequired || params.length ? 'toolError' : 'ok' });
        break;
      }
      case 4:
        out.push({ text: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: `Nope${n % 7}`, arguments: {} } }), id, expect: 'params' });
        break;
      case 5:
        out.push({ text: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'ReadImage', arguments: { file_path: 'x'.repeat(20_000 + Math.floor(r() * 80_000)) } } }), id, expect: 'toolError' });
        break;
      case 6: {
        const depth = 500 + Math.floor(r() * 3000);
        out.push({ text: `{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":{"name":"TaskManager","arguments":{"action":${'['.repeat(depth)}${']'.repeat(depth)}}}}`, id, expect: 'toolError' });
        break;
      }
      case 7:
        out.push({ text: JSON.stringify({ jsonrpc: '2.0', method: pick(['notifications/initialized', 'notifications/cancelled', 'notifications/progress', 'notifications/roots/list_changed']), params: { requestId: 'nobody' } }), expect: 'none' });
        break;
      case 8:
        // A notification's method, sent with an id: it is a request for a method that does not exist.
        out.push({ text: JSON.stringify({ jsonrpc: '2.0', id, method: 'notifications/initialized' }), id, expect: 'method' });
        break;
      case 9:
        out.push({ text: JSON.stringify({ jsonrpc: '2.0', id: 'dup', method: 'ping' }), expect: 'none' });
        break;
      case 10:
        out.push({ text: JSON.stringify({ jsonrpc: '2.0', id, method: pick(['tools/list', 'ping', 'resources/list', 'prompts/list']) }), id, expect: 'ok' });
        break;
      default:
        out.push({ text: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: 'not an object' }), id, expect: 'params' });
    }
  }
  return out;
}

/** Checks one answer against what was expected; returns a problem or undefined. */
export function checkAnswer(m: FuzzMessage, answer: { result?: { isError?: boolean }; error?: { code: number } } | undefined): string | undefined {
  if (m.expect === 'none') return undefined;
  if (!answer) return `no answer to ${m.text.slice(0, 80)}`;
  const code = expectedCode(m.expect);
  if (code !== undefined) {
    if (answer.error?.code !== code) {
      // Some stacks answer a malformed call's params as invalid params or invalid request; both refuse it without running anything.
      if (!(m.expect === 'params' && (answer.error?.code === -32600 || answer.result?.isError))) return `expected ${code} for ${m.text.slice(0, 80)}, got ${JSON.stringify(answer).slice(0, 160)}`;
    }
    return undefined;
  }
  if (m.expect === 'toolError') return answer.result?.isError === true || answer.error?.code === -32602 ? undefined : `expected a tool error for ${m.text.slice(0, 80)}, got ${JSON.stringify(answer).slice(0, 160)}`;
  return answer.result ? undefined : `expected a result for ${m.text.slice(0, 80)}, got ${JSON.stringify(answer).slice(0, 160)}`;
}

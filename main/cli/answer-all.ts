import { RPC, rpcErrorBody } from '../core/wire-errors.js';

/**
 * A `pincer stdio` that cannot serve (a Node too old, a data folder that is a file, a mistyped option in
 * the client's config, a server that failed to load) answers each request its client sends with the
 * reason — JSON-RPC error RPC.ServerError, "Pincer: <reason>" — until the input ends, so the client shows why
 * instead of a closed pipe. Imports only the wire vocabulary (itself free of imports at run time) and
 * uses plain JSON.parse: it runs on any Node, before (or instead of) the rest of Pincer.
 */
export function answerEveryRequest(input: NodeJS.ReadableStream, message: string, code = 1): Promise<number> {
  return new Promise((resolve) => {
    let buffered = '';
    const answer = (line: string) => {
      let msg: unknown;
      try {
        msg = JSON.parse(line);
      } catch {
        // Not JSON: nothing to answer (no id can be read from it).
        return;
      }
      for (const m of Array.isArray(msg) ? msg : [msg]) {
        const id = (m as { id?: unknown; method?: unknown } | null)?.id;
        if ((typeof id === 'string' || typeof id === 'number') && typeof (m as { method?: unknown }).method === 'string') {
          process.stdout.write(JSON.stringify(rpcErrorBody(RPC.ServerError, `Pincer: ${message}`, id)) + '\n');
        }
      }
    };
    input.setEncoding('utf8');
    input.on('data', (chunk: string) => {
      buffered += chunk;
      // One line at most 1 MB kept: this only needs ids.
      if (buffered.length > 1 << 20 && !buffered.includes('\n')) buffered = '';
      let i;
      while ((i = buffered.indexOf('\n')) >= 0) {
        answer(buffered.slice(0, i));
        buffered = buffered.slice(i + 1);
      }
    });
    input.on('end', () => resolve(code));
    process.stdout.on('error', () => resolve(code));
    input.resume();
  });
}

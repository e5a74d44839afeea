// Loaded with `node --import` into a process under test: records the URL of
// every module that process resolves (ESM imports and CommonJS requires alike,
// through Node's synchronous module hooks) and writes them, one a line, to
// $PINCER_MODULE_LOG when the process exits.
import fs from 'node:fs';
import { registerHooks } from 'node:module';

const out = process.env.PINCER_MODULE_LOG;
const seen = new Set<string>();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const result = nextResolve(specifier, context);
    seen.add(result.url);
    return result;
  },
});
if (out) process.on('exit', () => fs.writeFileSync(out, [...seen].join('\n') + '\n'));

import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

/**
 * A package loaded on its first use, not when the module that uses it is imported: a process that
 * never reads a web page (a `pincer stdio --standalone` answering its first tools/list, a hub with
 * no ReadDocs call yet) does not parse it. Synchronous (`require`, which also loads an ES module),
 * so the callers' APIs stay synchronous. `T` is the package's type: `typeof import('pkg')`.
 */
export function lazyModule<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= load(specifier) as T);
}

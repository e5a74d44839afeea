import { createRequire } from 'node:module';

const requireHere = createRequire(import.meta.url);

/**
 * A module loaded on first use instead of at hub start. The HTML and encoding
 * libraries cost tens of MB of RSS (linkedom alone ~30 MB) and only the web and
 * search tools need them, so an idle hub should not carry them (issue 17).
 * `T` is the module's type, e.g. `lazyModule<typeof import('linkedom')>('linkedom')`.
 */
export function lazyModule<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= requireHere(specifier) as T);
}

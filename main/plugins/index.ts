import type { Runtime } from '../calls/runtime.js';
import { logger } from '../core/log.js';
import { PluginHost } from './host.js';

/**
 * Starts loading the user's plugins into a runtime (the hub, or `pincer stdio
 * --standalone`): `<PINCER_HOME>/tools` and `<PINCER_HOME>/plugins`, the user's
 * own folder only. Resolves once the plugins there now are loaded; it never
 * rejects (a broken plugin is a warning).
 */
export async function startPlugins(runtime: Pick<Runtime, 'contributions' | 'events' | 'registry' | 'paths'>, opts: { pollMs?: number } = {}): Promise<PluginHost> {
  const builtins = new Set(runtime.registry.tools.map((t) => t.name));
  const host = new PluginHost(runtime.contributions, runtime.events, { toolsDir: runtime.paths.toolsDir, pluginsDir: runtime.paths.pluginsDir, builtins, ...opts });
  runtime.contributions.onClose(() => host.close());
  // A scan logs its own failures; a start that fails anyway leaves the hub serving its built-in tools.
  await host.start().catch((err: unknown) => logger('plugins').error('plugins could not be started; the built-in tools are served', { err }));
  return host;
}

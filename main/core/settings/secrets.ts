import { SETTINGS } from './schema.js';

/** The settings whose values are secrets: the hub's token and the search engines' API keys. */
export const SECRET_KEYS: readonly string[] = Object.entries(SETTINGS)
  .filter(([, spec]) => (spec as { secret?: boolean }).secret === true)
  .map(([key]) => key);

const SECRET_NAMES = new Set(SECRET_KEYS);

/**
 * `env` without Pincer's secrets, for the commands Bash and BackgroundBash run: a command the model
 * writes (or a script in the repository it runs) must not find AUTH_TOKEN or an API key the user gave
 * Pincer in its environment. Names compare case-insensitively (Windows environments do).
 */
export function withoutPincerSecrets(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (!SECRET_NAMES.has(name.toUpperCase())) out[name] = value;
  }
  return out;
}

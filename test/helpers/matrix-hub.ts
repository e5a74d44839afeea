import { before, after } from 'node:test';
import { startHubProcess, type HubProcess } from './hub.js';
import { tempHome } from './env.js';
import { writeSkill, type ScenarioOptions } from './clients.js';

/**
 * The one hub a client-matrix test file shares: a temporary home with the
 * scenario's skill, the real `pincer serve`, stopped and removed afterwards.
 * Call inside a `describe`; `hub` and `opts` are there once its tests run.
 */
export function sharedMatrixHub(env: Record<string, string>, extra: Omit<ScenarioOptions, 'hub' | 'prompt'> = {}): { home: string; hub: HubProcess; opts: ScenarioOptions } {
  const h = tempHome();
  const fixture = { home: h.home } as { home: string; hub: HubProcess; opts: ScenarioOptions };
  before(async () => {
    const prompt = writeSkill(h.home);
    fixture.hub = await startHubProcess(h.home, env);
    fixture.opts = { hub: fixture.hub, prompt, ...extra };
  });
  after(async () => {
    await fixture.hub?.stop();
    h.cleanup();
  });
  return fixture;
}

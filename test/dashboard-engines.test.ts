import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeEngines, type FakeHit } from './helpers/fake-engines.js';
import { startHubProcess } from './helpers/hub.js';
import { tempHome } from './helpers/env.js';
import { launchChromium, watchProblems, signIn, shot, axeViolations } from './helpers/browser.js';

// The dashboard shows each search engine's state, its last error and when it comes back.
test('the Tools page shows each search engine: answering, resting after a CAPTCHA (with when it is asked again), off', async () => {
  const hits = (engine: string, query: string): FakeHit[] => [{ title: `${engine} on ${query}`, url: `https://${engine}.example/r`, snippet: 'a result' }];
  const fake = await startFakeEngines(hits, { brave: 'captcha', mojeek: 'server-error' });
  const h = tempHome();
  const names = ['wikipedia', 'brave', 'mojeek'];
  const env: Record<string, string> = { SEARCH_ENGINES: names.join(','), SEARCH_ENGINE_TIMEOUT_MS: '60000', SEARCH_DEADLINE_MS: '60000' };
  for (const n of [...names, 'yahoo']) env[`SEARCH_URL_${n.toUpperCase()}`] = `${fake.base}/${n}`;
  const hub = await startHubProcess(h.home, env);
  const chromium = await launchChromium();
  try {
    const r = await fetch(`${hub.url}/api/mcp/tools/call`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ name: 'WebSearch', arguments: { query: 'engines panel' } }) });
    assert.equal(r.status, 200);
    const page = await chromium.browser.newPage({ viewport: { width: 1280, height: 800 } });
    const { problems } = watchProblems(page);
    await signIn(page, hub.url, hub.token);
    await page.goto(`${hub.url}/#/tools`);
    const row = (name: string) => page.locator(`tr[data-engine="${name}"]`);
    await row('brave').waitFor();
    assert.equal(await row('wikipedia').getAttribute('data-state'), 'ok');
    assert.match((await row('wikipedia').innerText()).replace(/\s+/g, ' '), /answering .*ago/);
    assert.equal(await row('brave').getAttribute('data-state'), 'resting');
    const brave = (await row('brave').innerText()).replace(/\s+/g, ' ');
    assert.match(brave, /captcha/i, 'the last error names its kind');
    assert.match(brave, /in (\d+(\.\d)? s|\d+m \d+s|\d+h \d+m)/, 'a resting engine says when it is asked again');
    assert.match((await row('mojeek').innerText()).replace(/\s+/g, ' '), /server-error/);
    assert.match(await row('yahoo').innerText(), /off/, 'an engine not in SEARCH_ENGINES shows as off');
    await shot(page, 'dashboard-engines');
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
  } finally {
    await chromium.close();
    await hub.stop();
    await fake.close();
    h.cleanup();
  }
});

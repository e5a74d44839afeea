import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectV2, textOf } from './helpers/clients.js';
import { readHubJson, tokenOf, stopHubOf } from './helpers/hub.js';
import { tempHome, waitFor } from './helpers/env.js';

// The workflow tools' logic is tested in-process (test/fast/workflow.test.ts); what stays here needs the
// hub's HTTP API: a question asked through pincer stdio, answered through the dashboard's routes.

const BRIDGE = { args: ['stdio'], env: { HTTP_PORT: 'auto' } };

type S = Record<string, unknown>;
const sc = (r: unknown) => (r as { structuredContent: S }).structuredContent;

test('without elicitation the question waits in the hub until answered through its API, which says what was wrong with an answer', async () => {
  const h = tempHome();
  const { client } = await connectV2({ home: h.home, ...BRIDGE });
  try {
    const progress: string[] = [];
    const call = client.callTool(
      { name: 'AskUserQuestion', arguments: { questions_json: JSON.stringify({ questions: [{ text: 'Deploy now?', options: ['yes', 'no'] }] }) } },
      { onprogress: (p) => progress.push(p.message ?? ''), resetTimeoutOnProgress: true },
    );
    const hub = readHubJson(h.home)!;
    const headers = { Authorization: `Bearer ${tokenOf(h.home)}`, 'Content-Type': 'application/json' };
    const pending = await waitFor(async () => {
      const q = await (await fetch(`${hub.url}/api/questions`, { headers })).json();
      return q.pending.length ? q.pending : undefined;
    }, 'the pending question');
    assert.equal(pending[0].questions[0].question, 'Deploy now?');
    const wrong = await fetch(`${hub.url}/api/questions/${pending[0].id}/answer`, { method: 'POST', headers, body: JSON.stringify({ answers: [{ question: 'Deploy now?', selected: 'maybe' }] }) });
    assert.equal(wrong.status, 400);
    const wrongBody = await wrong.json();
    assert.match(wrongBody.error.message, /"maybe" is not an option/);
    assert.equal(wrongBody.error.code, 'INVALID_INPUT');
    const none = await fetch(`${hub.url}/api/questions/999999/answer`, { method: 'POST', headers, body: JSON.stringify({ decline: true }) });
    assert.equal(none.status, 404);
    assert.equal((await none.json()).error.code, 'NOT_FOUND');
    const ok = await fetch(`${hub.url}/api/questions/${pending[0].id}/answer`, { method: 'POST', headers, body: JSON.stringify({ answers: [{ question: 'Deploy now?', selected: 'yes', other: 'after lunch' }] }) });
    assert.equal(ok.status, 200);
    const r = await call;
    assert.deepEqual(sc(r).answers, [{ question: 'Deploy now?', selected: 'yes', other: 'after lunch' }]);
    const again = await fetch(`${hub.url}/api/questions/${pending[0].id}/answer`, { method: 'POST', headers, body: JSON.stringify({ decline: true }) });
    assert.equal(again.status, 409);
    assert.equal((await again.json()).error.code, 'CONFLICT');
  } finally {
    await client.close();
    await stopHubOf(h.home);
    h.cleanup();
  }
});

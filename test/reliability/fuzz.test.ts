import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { fuzzMessages, checkAnswer, type FuzzMessage } from '../helpers/fuzz.js';
import { RawStdio } from '../helpers/raw-stdio.js';
import { startHubProcess, type HubProcess } from '../helpers/hub.js';
import { tempHome, waitFor } from '../helpers/env.js';

const COUNT = Number(process.env.FUZZ_COUNT ?? 10_000);
const BATCH = 1000;
type Answer = { id?: unknown; result?: { isError?: boolean; tools?: unknown[] }; error?: { code: number } };

function verify(batch: FuzzMessage[], answerFor: (m: FuzzMessage) => Answer | undefined): string[] {
  return batch.map((m) => checkAnswer(m, answerFor(m))).filter((p): p is string => p !== undefined);
}

test(`fuzz over stdio: ${COUNT} messages, then a valid request answered correctly`, async () => {
  const h = tempHome();
  const raw = new RawStdio(h.home);
  try {
    await raw.initialize();
    const all = fuzzMessages(COUNT, 11);
    for (let b = 0; b < all.length; b += BATCH) {
      const batch = all.slice(b, b + BATCH);
      for (const m of batch) raw.send(m.text);
      raw.send({ jsonrpc: '2.0', id: `check-${b}`, method: 'tools/list' });
      const check = (await raw.response(`check-${b}`)) as Answer;
      assert.ok((check.result?.tools?.length ?? 0) > 0, 'the valid request after the batch is answered');
      // Answers may come out of order (a slow call finishes after a fast one): wait for the batch's.
      const wanted = batch.filter((m) => m.id !== undefined && m.expect !== 'none').map((m) => m.id);
      await waitFor(() => { const ids = new Set(raw.messages.map((x) => x.id)); return wanted.every((id) => ids.has(id)); }, 'every answer of the batch').catch(() => undefined);
      const byId = new Map(raw.messages.filter((x) => 'id' in x).map((x) => [x.id, x as Answer]));
      // Parse errors carry no id; count them instead.
      const parseErrors = raw.messages.filter((x) => x.id === null && (x as Answer).error?.code === -32700).length;
      const problems = verify(batch.filter((m) => m.expect !== 'parse'), (m) => byId.get(m.id));
      assert.deepEqual(problems.slice(0, 5), []);
      assert.equal(parseErrors, all.slice(0, b + BATCH).filter((m) => m.expect === 'parse').length, 'every bad JSON line got -32700');
    }
    assert.equal(raw.child.exitCode, null);
    assert.deepEqual(raw.nonJsonLines, []);
  } finally {
    raw.close();
    await waitFor(() => raw.child.exitCode !== null, 'pincer to exit');
    h.cleanup();
  }
});

async function withHub(fn: (hub: HubProcess) => Promise<void>): Promise<void> {
  const h = tempHome();
  const hub = await startHubProcess(h.home, { MAX_BODY_BYTES: '1048576' });
  try {
    await fn(hub);
    const health = await (await fetch(`${hub.url}/api/mcp/health`)).json();
    assert.equal(health.status, 'healthy');
    assert.equal(hub.child.exitCode, null, 'the hub is still running');
  } finally {
    await hub.stop();
    h.cleanup();
  }
}

async function pool<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let i = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (i < items.length) await fn(items[i++]!);
  }));
}

test(`fuzz over Streamable HTTP (/mcp): ${COUNT} messages`, async () => {
  await withHub(async (hub) => {
    const init = await fetch(`${hub.url}/mcp`, { method: 'POST', headers: hub.headers({ Accept: 'application/json, text/event-stream' }), body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } } }) });
    const sid = init.headers.get('mcp-session-id')!;
    await init.text();
    const headers = hub.headers({ Accept: 'application/json, text/event-stream', 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-06-18' });
    await (await fetch(`${hub.url}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
    const post = async (text: string): Promise<Answer | undefined> => {
      const res = await fetch(`${hub.url}/mcp`, { method: 'POST', headers, body: text });
      const body = await res.text();
      if (res.status === 202 || !body) return undefined;
      const data = res.headers.get('content-type')?.includes('text/event-stream') ? [...body.matchAll(/^data: (.*)$/gm)].map((m) => m[1]!).filter((d) => d.includes('"id"')).pop() : body;
      return data ? (JSON.parse(data) as Answer) : undefined;
    };
    const all = fuzzMessages(COUNT, 22);
    for (let b = 0; b < all.length; b += BATCH) {
      const batch = all.slice(b, b + BATCH);
      const answers = new Map<FuzzMessage, Answer | undefined>();
      await pool(batch, 16, async (m) => void answers.set(m, await post(m.text)));
      assert.deepEqual(verify(batch, (m) => answers.get(m)).slice(0, 5), []);
      const check = await post(JSON.stringify({ jsonrpc: '2.0', id: 'check', method: 'tools/list' }));
      assert.ok((check?.result?.tools?.length ?? 0) > 0);
    }
  });
});

test(`fuzz over WebSocket and plain JSON-RPC POST: ${COUNT} messages each`, async () => {
  await withHub(async (hub) => {
    const ws = new WebSocket(`${hub.url.replace('http', 'ws')}/mcp/ws`, { headers: { Authorization: `Bearer ${hub.token}` } });
    const inbox: Answer[] = [];
    ws.on('message', (d) => inbox.push(JSON.parse(d.toString()) as Answer));
    await new Promise((r, j) => (ws.once('open', r), ws.once('error', j)));
    const wsAll = fuzzMessages(COUNT, 33);
    for (let b = 0; b < wsAll.length; b += BATCH) {
      const batch = wsAll.slice(b, b + BATCH);
      for (const m of batch) ws.send(m.text);
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: `check-${b}`, method: 'tools/list' }));
      await waitFor(() => inbox.find((x) => x.id === `check-${b}`), 'the check after a batch');
      const wanted = batch.filter((m) => m.id !== undefined && m.expect !== 'none' && m.expect !== 'parse').map((m) => m.id);
      await waitFor(() => { const ids = new Set(inbox.map((x) => x.id)); return wanted.every((id) => ids.has(id)); }, 'every answer of the batch').catch(() => undefined);
      const byId = new Map(inbox.filter((x) => x.id !== undefined && x.id !== null).map((x) => [x.id, x]));
      assert.deepEqual(verify(batch.filter((m) => m.expect !== 'parse'), (m) => byId.get(m.id)).slice(0, 5), []);
    }
    assert.equal(inbox.filter((x) => x.id === null && x.error?.code === -32700).length, wsAll.filter((m) => m.expect === 'parse').length);
    ws.close();

    const rpcAll = fuzzMessages(COUNT, 44);
    const parseable = rpcAll.filter((m) => m.expect !== 'parse');
    for (let b = 0; b < parseable.length; b += 50) {
      const chunk = parseable.slice(b, b + 50);
      const res = await fetch(`${hub.url}/api/mcp/jsonrpc`, { method: 'POST', headers: hub.headers(), body: `[${chunk.map((m) => m.text).join(',')}]` });
      const answers = res.status === 202 ? [] : ((await res.json()) as Answer[]);
      const byId = new Map(answers.map((a) => [a.id, a]));
      assert.deepEqual(verify(chunk.filter((m) => m.id !== undefined), (m) => byId.get(m.id)).slice(0, 5), []);
    }
    await pool(rpcAll.filter((m) => m.expect === 'parse'), 8, async (m) => {
      const res = await fetch(`${hub.url}/api/mcp/jsonrpc`, { method: 'POST', headers: hub.headers(), body: m.text });
      assert.equal(((await res.json()) as Answer).error?.code, -32700);
    });
  });
});

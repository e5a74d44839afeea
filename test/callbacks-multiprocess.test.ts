import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import Database from 'better-sqlite3';
import { connectV2 } from './helpers/clients.js';
import { startHubProcess } from './helpers/hub.js';
import { tempHome, waitFor, quietFor } from './helpers/env.js';

test('with a hub and a standalone pincer on one database, each fire happens once and reaches the session that set it', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  const { client } = await connectV2({ home: h.home });
  try {
    const logs: string[] = [];
    client.setNotificationHandler('notifications/message', (n) => void logs.push(String(n.params.data)));
    await client.setLoggingLevel('info');
    await client.callTool({ name: 'SetCallback', arguments: { message: 'both processes race for this', delay_seconds: 1, repeat_count: 4 } });
    await waitFor(() => logs.length >= 4, 'four notifications');
    await quietFor(2000, 'a fifth notification: each process polls every second');
    assert.equal(logs.length, 4);
    const db = new Database(path.join(h.home, 'pincer.db'), { readonly: true });
    const rows = db.prepare('SELECT fire_number FROM callback_fires ORDER BY fire_number').all() as { fire_number: number }[];
    db.close();
    assert.deepEqual(rows.map((r) => r.fire_number), [1, 2, 3, 4]);
  } finally {
    await client.close();
    await hub.stop();
    h.cleanup();
  }
});

test('a fire another process recorded is put in front of the next tool result, after calls that found none', async () => {
  const h = tempHome();
  const { client } = await connectV2({ home: h.home });
  const firstText = async () => {
    const r = (await client.callTool({ name: 'ListBgTasks', arguments: {} })) as { content: { type: string; text: string }[] };
    return r.content[0]!.text;
  };
  try {
    await client.callTool({ name: 'SetCallback', arguments: { message: 'not due for an hour', delay_seconds: 3600 } });
    // Nothing is waiting, twice: the second answer is what the first call found, still valid.
    assert.match(await firstText(), /^No background tasks/);
    assert.match(await firstText(), /^No background tasks/);
    // Another connection to the database (as a hub or a second pincer would) records a fire for this session.
    const db = new Database(path.join(h.home, 'pincer.db'));
    const cb = db.prepare('SELECT id, session FROM callbacks').get() as { id: number; session: string };
    db.prepare('INSERT INTO callback_fires (callback_id, session, message, fire_number, scheduled_at, fired_at, notified) VALUES (?, ?, ?, 1, ?, ?, 1)').run(cb.id, cb.session, 'written elsewhere', Date.now(), Date.now());
    db.close();
    assert.equal(await firstText(), '[Callback] Timer fired: written elsewhere');
    assert.match(await firstText(), /^No background tasks/, 'delivered once');
  } finally {
    await client.close();
    h.cleanup();
  }
});

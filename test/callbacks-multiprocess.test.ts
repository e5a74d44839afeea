import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import Database from 'better-sqlite3';
import { connectV2 } from './helpers/clients.js';
import { startHubProcess } from './helpers/hub.js';
import { tempHome, waitFor, sleep } from './helpers/env.js';

test('with a hub and a standalone pincer on one database, each fire happens once and reaches the session that set it', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  const { client } = await connectV2({ home: h.home });
  try {
    const logs: string[] = [];
    client.setNotificationHandler('notifications/message', (n) => void logs.push(String(n.params.data)));
    await client.callTool({ name: 'SetCallback', arguments: { message: 'both processes race for this', delay_seconds: 1, repeat_count: 4 } });
    await waitFor(() => logs.length >= 4, 'four notifications', 20_000);
    await sleep(2000);
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

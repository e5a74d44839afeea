import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connectV2, textOf, bgRead } from './helpers/clients.js';
import { tempHome } from './helpers/env.js';
import { stopHubOf } from './helpers/hub.js';
import { bareSystemPath } from '../main/tools/shell/login-env.js';

const posixOnly = process.platform === 'win32' ? 'login shells are a POSIX matter' : false;

/** A home whose login profile adds ~/mybin to PATH and a variable, as Homebrew, nvm or pyenv do. */
function homeWithProfile(): { home: string; cleanup(): void } {
  const h = tempHome();
  fs.mkdirSync(path.join(h.home, 'mybin'));
  fs.writeFileSync(path.join(h.home, 'mybin', 'mytool'), '#!/bin/sh\necho mytool-ran\n', { mode: 0o755 });
  fs.writeFileSync(path.join(h.home, '.bash_profile'), 'export PATH="$HOME/mybin:$PATH"\nexport PROFILE_MARK=from-profile\n');
  return h;
}

const probe = 'printf "%s|%s|" "${PROFILE_MARK:-unset}" "${CLIENT_ONLY:-unset}"; mytool';

test('a hub a client\'s bridge started runs commands with the login shell\'s environment, not that client\'s', { skip: posixOnly }, async () => {
  const h = homeWithProfile();
  const { client } = await connectV2({ home: h.home, args: ['stdio'], env: { HTTP_PORT: 'auto', SHELL: '/bin/bash', PATH: '/usr/local/bin:/usr/bin:/bin', CLIENT_ONLY: 'client-a' } });
  try {
    const r = await client.callTool({ name: 'Bash', arguments: { command: probe } });
    assert.equal((r.structuredContent as { output: string }).output, 'from-profile|unset|mytool-ran\n', textOf(r));
    const job = await client.callTool({ name: 'BackgroundBash', arguments: { command: probe } });
    const id = (job.structuredContent as { task_id: number }).task_id;
    const read = await client.callTool({ name: 'ReadBgOutput', arguments: { task_id: id, wait_ms: 5000 } });
    assert.equal(bgRead(read).output, 'from-profile|unset|mytool-ran\n');
  } finally {
    await client.close();
    await stopHubOf(h.home);
    h.cleanup();
  }
});

test('a Pincer started with a bare system PATH (a dock, a menu) reads the login environment; one started from a terminal keeps its own', { skip: posixOnly }, async () => {
  assert.equal(bareSystemPath('/usr/bin:/bin:/usr/sbin:/sbin'), true);
  assert.equal(bareSystemPath('/opt/homebrew/bin:/usr/bin:/bin'), false);
  const h = homeWithProfile();
  try {
    const bare = await connectV2({ home: h.home, env: { SHELL: '/bin/bash', PATH: '/usr/bin:/bin', CLIENT_ONLY: 'standalone' } });
    try {
      const r = await bare.client.callTool({ name: 'Bash', arguments: { command: probe } });
      assert.equal((r.structuredContent as { output: string }).output, 'from-profile|unset|mytool-ran\n', textOf(r));
    } finally {
      await bare.client.close();
    }
    const terminal = await connectV2({ home: h.home, env: { SHELL: '/bin/bash', PATH: `${path.join(h.home, 'elsewhere')}:/usr/bin:/bin`, CLIENT_ONLY: 'from-terminal' } });
    try {
      const r = await terminal.client.callTool({ name: 'Bash', arguments: { command: 'printf "%s|%s" "${PROFILE_MARK:-unset}" "$CLIENT_ONLY"' } });
      assert.equal((r.structuredContent as { output: string }).output, 'unset|from-terminal');
    } finally {
      await terminal.client.close();
    }
  } finally {
    h.cleanup();
  }
});

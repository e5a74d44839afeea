import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { tempHome, PINCER_BIN, pincerEnv, WAIT_MS } from './helpers/env.js';

const pincer = (env: Record<string, string>, args: string[]) => spawnSync(process.execPath, [PINCER_BIN, ...args], { env, encoding: 'utf8', input: '', timeout: WAIT_MS });

test('every usage mistake is one line naming what is wrong and "pincer help", exit 2, and makes no data folder', () => {
  const h = tempHome();
  try {
    // A data folder that does not exist yet: a mistyped command must not create it.
    const home = path.join(h.home, 'data');
    const env = pincerEnv(home, { HOME: h.home });
    const cases: [string[], string][] = [
      [['serve', '--prot', '5'], 'pincer serve: unknown option "--prot" (did you mean --port?)'],
      [['serve', '--port'], 'pincer serve: --port needs a value'],
      [['serve', '--quiet=yes'], 'pincer serve: --quiet takes no value'],
      [['serve', 'now'], 'pincer serve: unexpected argument "now"'],
      [['stdio', '--standalon'], 'pincer stdio: unknown option "--standalon" (did you mean --standalone?)'],
      [['status', '--json'], 'pincer status: unknown option "--json" ("pincer status" takes no options)'],
      [['status', 'all'], 'pincer status: unexpected argument "all"'],
      [['stop', '--force'], 'pincer stop: unknown option "--force" ("pincer stop" takes no options)'],
      [['stop', 'now'], 'pincer stop: unexpected argument "now"'],
      [['token', 'rotate', 'again'], 'pincer token: unexpected argument "again"'],
      [['token', 'show'], 'pincer token: unknown subcommand "show": use "pincer token" or "pincer token rotate"'],
      [['connect', 'cursor', '--htp'], 'pincer connect: unknown option "--htp" (did you mean --http?)'],
      [['connect', 'cursor', 'vscode'], 'pincer connect: unexpected argument "vscode"'],
      [['disconnect', 'cursor', '--http'], 'pincer disconnect: unknown option "--http"'],
      [['connect'], 'pincer connect: name a client: claude-desktop, claude-code, cursor, vscode, windsurf, gemini, codex'],
      [['disconnect', 'cursr'], 'pincer disconnect: "cursr" is not a client Pincer knows (did you mean cursor?); name a client: claude-desktop, claude-code, cursor, vscode, windsurf, gemini, codex'],
    ];
    for (const [args, line] of cases) {
      const r = pincer(env, args);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.equal(r.stderr, `${line}. Run "pincer help" for the usage.\n`, args.join(' '));
      assert.equal(r.stdout, '', args.join(' '));
    }
    const typo = pincer(env, ['sevre']);
    assert.equal(typo.status, 2);
    assert.equal(typo.stderr, 'pincer: unknown command "sevre" (did you mean serve?). Run "pincer help" for the commands.\n');
    assert.equal(fs.existsSync(home), false, 'no command line above made the data folder');
    assert.equal(fs.existsSync(path.join(h.home, '.cursor')), false, 'nor touched a client config');
    // --help after a command is help, not an unknown option.
    const help = pincer(env, ['serve', '--help']);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^pincer \S+ — local tools for AI clients over MCP/);
  } finally {
    h.cleanup();
  }
});

test('PINCER_HOME naming a file (or a folder inside one) is named as such, with what to do', () => {
  const h = tempHome();
  try {
    const file = path.join(h.home, 'pincer-data');
    fs.writeFileSync(file, 'not a folder');
    for (const [home, said] of [
      [file, `the data folder ${file} is a file, not a folder`],
      [path.join(file, 'inner'), `${file} is a file, so the data folder ${path.join(file, 'inner')} cannot be made inside it`],
    ] as const) {
      const r = pincer(pincerEnv(home, { HOME: h.home }), ['status']);
      assert.equal(r.status, 1, r.stderr);
      assert.equal(r.stderr, `pincer: ${said}. Set PINCER_HOME to a folder (Pincer makes it if it does not exist), or move that file away.\n`);
    }
    assert.equal(fs.readFileSync(file, 'utf8'), 'not a folder', 'the file is left as it was');
  } finally {
    h.cleanup();
  }
});

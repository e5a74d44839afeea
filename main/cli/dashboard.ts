import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import type { PincerPaths } from '../core/paths.js';
import { writeFileAtomic } from '../core/paths.js';
import { findHub, squatterNote } from './hub-control.js';
import { askSignInLink, type SignInLink } from '../hub/dashboard-link.js';

/** Redirect files older than this are removed: their one-time links expired long ago. */
const STALE_MS = 10 * 60_000;

/**
 * A page of the user's own (0600, in the data folder) that sends the browser to the link: a link on
 * the opener's command line would be readable by every local user (`/proc/<pid>/cmdline`) until the
 * browser redeemed it (Jupyter opens its token the same way). It tries the dashboard's own origin
 * (`*.localhost`) first and, where the browser cannot reach such a name (Safari), the hub's address.
 */
function redirectPage(link: SignInLink): string {
  const origin = new URL(link.url).origin;
  const html = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>Pincer dashboard</title></head>
<body style="font:14px system-ui;margin:2em"><p>Opening the Pincer dashboard… If nothing happens, <a href="${html(link.url)}">open it here</a>.</p>
<script>
(function () {
  var link = ${JSON.stringify(link.url)}, atAddress = ${JSON.stringify(link.atAddress)}, done = false;
  function go(u) { if (!done) { done = true; location.replace(u); } }
  if (link.indexOf('.localhost:') < 0) return go(link);
  var probe = new Image();
  probe.onload = function () { go(link); };
  probe.onerror = function () { go(atAddress); };
  setTimeout(function () { go(link); }, 3000);
  probe.src = ${JSON.stringify(origin)} + '/icon.svg?probe=' + Date.now();
})();
</script></body></html>
`;
}

/** What opens a file in the person's browser: PINCER_OPEN (one program, given the file), else the desktop's own opener. */
function opener(file: string): { command: string; args: string[] } {
  const own = process.env.PINCER_OPEN;
  if (own) return { command: own, args: [file] };
  if (process.platform === 'darwin') return { command: 'open', args: [file] };
  if (process.platform === 'win32') return { command: 'cmd.exe', args: ['/d', '/s', '/c', 'start', '""', file] };
  return { command: 'xdg-open', args: [file] };
}

function open(file: string): Promise<string | undefined> {
  const { command, args } = opener(file);
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.once('error', (err) => resolve(`${command}: ${err.message}`));
    child.once('spawn', () => {
      child.unref();
      resolve(undefined);
    });
  });
}

/**
 * `pincer dashboard`: opens the running hub's dashboard in the browser, signed in — a one-time link
 * (2 minutes) the hub gives to a request signed with hub-secret (hub/dashboard-link.ts). `--print`
 * prints the link instead of opening it.
 */
export async function runDashboard(paths: PincerPaths, opts: { print: boolean }): Promise<number> {
  const found = await findHub(paths);
  if (found.state !== 'running') {
    const squatter = await squatterNote(found);
    process.stderr.write(`pincer dashboard: ${squatter ? `${squatter}. Stop it, or set HTTP_PORT to a free port, and start the hub ("pincer serve")` : `no Pincer hub runs for ${paths.home}${found.why ? ` (${found.why})` : ''}. Start it with "pincer serve" or the tray app`}.\n`);
    return 1;
  }
  let link: SignInLink;
  try {
    link = await askSignInLink(paths, found.info, 'browser');
  } catch (err) {
    process.stderr.write(`pincer dashboard: ${(err as Error).message}\n`);
    return 1;
  }
  if (opts.print) {
    process.stdout.write(`${link.url}\n`);
    return 0;
  }
  for (const name of fs.readdirSync(paths.home).filter((n) => /^dashboard-open-[\w-]+\.html$/.test(n))) {
    const file = path.join(paths.home, name);
    // Another run's file that is not stale is left for its browser; one that went meanwhile needs nothing.
    if (Date.now() - (fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > STALE_MS) fs.rmSync(file, { force: true });
  }
  const file = path.join(paths.home, `dashboard-open-${process.pid}.html`);
  writeFileAtomic(file, redirectPage(link), 0o600);
  const problem = await open(file);
  if (problem) {
    process.stdout.write(`Could not open a browser (${problem}). Open this one-time sign-in link within ${link.expiresInS} s (or run "pincer dashboard" again):\n${link.url}\n`);
    return 0;
  }
  process.stdout.write(`Opened the Pincer dashboard in your browser, signed in (a one-time link, good for ${link.expiresInS} s). If no browser opened, open ${file}.\n`);
  return 0;
}

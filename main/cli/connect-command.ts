import path from 'node:path';
import { CLIENT_IDS, type ClientId } from '../connect/clients.js';
import { connectClient, disconnectClient, HTTP_PROJECT_REFUSED } from '../connect/client-config.js';
import { cliLauncher, describeLauncher, launcherEnv } from '../connect/cli-launcher.js';
import { findHub, squatterNote } from './hub-control.js';
import { pincerPaths } from '../core/paths.js';
import { readToken } from './hub-client.js';
import { UserError } from '../core/errors.js';
import { closest, distance } from 'fastest-levenshtein';

/** `pincer connect|disconnect <client>` from a terminal; the tray menu does the same. */
/** `ready` makes the data folder: called once the command line proved good. */
export async function runConnect(command: 'connect' | 'disconnect', values: { client?: string; http: boolean; project?: string }, home: string, ready: () => void): Promise<number> {
  const client = values.client as ClientId | undefined;
  if (!client || !CLIENT_IDS.includes(client)) {
    const guess = client ? closest(client, [...CLIENT_IDS]) : undefined;
    const unknown = client ? `"${client}" is not a client Pincer knows${guess && distance(client, guess) <= 3 ? ` (did you mean ${guess}?)` : ''}; ` : '';
    process.stderr.write(`pincer ${command}: ${unknown}name a client: ${CLIENT_IDS.join(', ')}. Run "pincer help" for the usage.\n`);
    return 2;
  }
  ready();
  const project = values.project ? path.resolve(values.project) : undefined;
  try {
    if (command === 'disconnect') {
      const r = disconnectClient(client, project);
      process.stdout.write(r.changed ? `Removed Pincer from ${r.client} (${r.file}; backup ${r.backup}).\n` : `${r.client} had no Pincer entry in ${r.file}.\n`);
      return 0;
    }
    if (values.http && project) throw new UserError(HTTP_PROJECT_REFUSED, 'UNSUPPORTED');
    // This very CLI by its real path, with a Node that can run it: what the client will start (an HTTP entry starts nothing).
    const launcher = values.http ? undefined : await cliLauncher(process.argv[1]!, launcherEnv(home));
    const stdio = { command: launcher?.command ?? '', args: launcher?.args ?? [], env: launcher?.env };
    let http;
    if (values.http) {
      // The client will send the token to this URL: only a hub that proved itself names it (hub.json alone may be stale or squatted).
      const found = await findHub(pincerPaths(home));
      if (found.state !== 'running' && found.recorded && (found.reason === 'not-this-home' || found.reason === 'other-pid')) {
        throw new UserError(`${(await squatterNote(found)) ?? `hub.json names ${found.recorded.url}, but ${found.why}`}. Start the hub ("pincer serve") and run this again.`, 'CONFLICT');
      }
      // No hub, no proven address: a guessed one (the default port) may belong to another program, which the client would send the token to.
      if (found.state !== 'running') {
        throw new UserError('no Pincer hub is running, so no address has proved to be this data folder\'s hub. Start the hub ("pincer serve", or the tray app), then run this again; or connect without --http (the client then starts Pincer itself).', 'UNAVAILABLE');
      }
      http = { url: `${found.info.url}/mcp`, token: readToken(home) };
      if (!http.token) throw new UserError('no token yet: start the hub once ("pincer serve") or run "pincer token".', 'UNAVAILABLE');
    }
    const r = connectClient({ client, stdio, http, project });
    process.stdout.write(`${r.changed ? 'Added' : 'Already had'} Pincer in ${r.client}: ${r.file}${r.backup ? ` (backup ${r.backup})` : ''}\n${launcher ? `${describeLauncher(launcher)}\n` : ''}${r.restartHint}\n`);
    if (r.note) process.stdout.write(`${r.note}\n`);
    if (http) process.stdout.write(`Note: ${r.client} will send the token to whatever listens at ${http.url} — Pincer's hub now, but any program that takes the port while the hub is stopped or restarting too; the client cannot check. "pincer connect ${client}" without --http writes a pincer stdio entry instead, which checks the hub before it sends anything.\n`);
    if (r.command) process.stdout.write(`Or, with the claude CLI:\n  ${r.command}\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`pincer ${command}: ${(err as Error).message}\n`);
    return 1;
  }
}

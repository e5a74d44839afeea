import type { PincerPaths } from '../core/paths.js';
import { Settings } from '../core/settings/settings.js';
import { generateToken } from '../access/security.js';
import { CLIENTS, type ClientId } from '../connect/clients.js';
import { clientsSendingToken } from '../connect/client-config.js';
import { readToken } from './hub-client.js';
import { findHub } from './hub-control.js';

/** `pincer token`: the hub's token, made (and saved) when there is none yet. */
export function runToken(paths: PincerPaths): number {
  let token = readToken(paths.home);
  if (!token) {
    token = generateToken();
    new Settings({ userFile: paths.settingsFile }).set('AUTH_TOKEN', token);
  }
  process.stdout.write(token + '\n');
  return 0;
}

/**
 * `pincer token rotate`: a new token in pincer-env.txt, then what that did — whether a hub runs to take
 * it now, and which client configs still send the old one. The token is the first line (scripts read it).
 */
export async function runTokenRotate(paths: PincerPaths): Promise<number> {
  const settings = new Settings({ userFile: paths.settingsFile });
  if (settings.source('AUTH_TOKEN') === 'env') {
    process.stderr.write('pincer token rotate: AUTH_TOKEN comes from the environment here; change it there.\n');
    return 1;
  }
  const old = settings.raw('AUTH_TOKEN') ?? '';
  const token = generateToken();
  settings.set('AUTH_TOKEN', token);
  const found = await findHub(paths);
  const lines = [token, `Saved in ${paths.settingsFile}.`];
  lines.push(
    found.state === 'running'
      ? `The hub at ${found.info.url} (pid ${found.info.pid}) follows that file and takes the new token at once: signed-in dashboards are signed out, and clients started through "pincer stdio" read the new token themselves.`
      : `No hub is running for ${paths.home}, so nothing used the old token just now; the next hub starts with the new one (dashboard sign-ins of the old token end then). Clients started through "pincer stdio" read it themselves.`,
  );
  const stale = clientsSendingToken(old);
  lines.push(
    stale.length
      ? `These configs still send the old token; write them again: ${stale.map((id: ClientId) => `"pincer connect ${id} --http" (${CLIENTS[id].file()})`).join(', ')}.`
      : 'No client config of yours carries the old token (only HTTP entries do: "pincer connect <client> --http" writes them); give the new one to any script or HTTP client you set up by hand.',
  );
  process.stdout.write(lines.join('\n') + '\n');
  return 0;
}

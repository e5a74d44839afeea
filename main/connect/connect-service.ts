import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CLIENTS, CLIENT_IDS, type ClientId, type StdioLauncher } from './clients.js';
import { connectClient, disconnectClient, isConnected } from './client-config.js';
import { UserError } from '../core/errors.js';
import type { ClientConnectView, ConnectOutcome, ConnectService } from '../core/client-connect.js';

export interface ConnectServiceOptions {
  /** How a client starts this Pincer: the CLI's script and Node (cli-launcher.ts), or the app's binary (desktop/app-launcher.ts). */
  launcher(): StdioLauncher | Promise<StdioLauncher>;
  /** Claude Desktop's bundle, where the app can open it: `open` resolves to a problem, or undefined once opened. */
  bundle?: { file(): string | undefined; open(file: string): Promise<string | undefined> };
  /** After every change (the tray redraws its checkmarks). */
  changed?(): void;
}

/** Does the client look installed here: its config file, or the folder it keeps it in (never just the home folder). */
function found(id: ClientId): boolean {
  const file = CLIENTS[id].file();
  const dir = path.dirname(file);
  if (fs.existsSync(file)) return true;
  if (id === 'claude-code') return fs.existsSync(path.join(os.homedir(), '.claude'));
  return dir !== os.homedir() && fs.existsSync(dir);
}

function isClientId(id: string): id is ClientId {
  return (CLIENT_IDS as readonly string[]).includes(id);
}

function clientId(id: string): ClientId {
  if (isClientId(id)) return id;
  throw new UserError(`"${id.slice(0, 40)}" is not a client Pincer knows; it connects ${CLIENT_IDS.join(', ')}.`, 'NOT_FOUND');
}

/**
 * Connect a client with one click — the tray's *Connect a client* and the dashboard's Connect page, one
 * code: the stdio entry this Pincer's creator says clients start it with, written in place by
 * client-config.ts, and an outcome that says what was written, what to do next and how to undo it.
 */
export function connectService(o: ConnectServiceOptions): ConnectService {
  const done = <T>(v: T): T => {
    o.changed?.();
    return v;
  };
  return {
    clients: (): ClientConnectView[] =>
      CLIENT_IDS.map((id) => ({
        id,
        name: CLIENTS[id].name,
        file: CLIENTS[id].file(),
        connected: isConnected(id),
        found: found(id),
        bundle: id === 'claude-desktop' && o.bundle?.file() !== undefined,
        command: `pincer connect ${id}`,
      })),
    async connect(raw) {
      const id = clientId(raw);
      const r = connectClient({ client: id, stdio: await o.launcher() });
      return done<ConnectOutcome>({
        id,
        name: r.client,
        action: 'connected',
        changed: r.changed,
        file: r.file,
        ...(r.backup ? { backup: r.backup } : {}),
        entry: JSON.stringify(r.entry, null, 2),
        next: [r.restartHint, r.note].filter(Boolean).join(' '),
        undo: `Disconnect removes only Pincer's entry again (or run "pincer disconnect ${id}")${r.backup ? `; the file as it was is kept as ${r.backup}` : ''}.`,
      });
    },
    async disconnect(raw) {
      const id = clientId(raw);
      const r = disconnectClient(id);
      return done<ConnectOutcome>({
        id,
        name: r.client,
        action: 'disconnected',
        changed: r.changed,
        file: r.file,
        ...(r.backup ? { backup: r.backup } : {}),
        next: r.changed ? `${r.client} no longer starts Pincer once you restart it (or reload its servers); its other servers were left as they were.` : `${r.client} had no Pincer entry in ${r.file}; nothing was changed.`,
        undo: `Connect adds it again${r.backup ? `; the file as it was is kept as ${r.backup}` : ''}.`,
      });
    },
    ...(o.bundle
      ? {
          async installBundle() {
            const file = o.bundle!.file();
            if (!file) throw new UserError('The Pincer bundle for Claude Desktop is not part of this installation; connect Claude Desktop through its config file instead.', 'UNAVAILABLE');
            const problem = await o.bundle!.open(file);
            if (problem) throw new UserError(`Could not open ${file}: ${problem} Open it with Claude Desktop (Settings → Extensions → Install extension), or connect through the config file instead.`, 'UNAVAILABLE');
            return done<ConnectOutcome>({
              id: 'claude-desktop',
              name: CLIENTS['claude-desktop'].name,
              action: 'bundle',
              changed: true,
              file,
              next: 'Claude Desktop shows the Pincer bundle: click Install. Its settings (working folder, tool families, search engines) are in Settings → Extensions.',
              undo: 'Uninstall it in Claude Desktop: Settings → Extensions → Pincer.',
            });
          },
        }
      : {}),
  };
}

import os from 'node:os';
import path from 'node:path';

import { GEMINI } from './gemini.js';
import { CODEX } from './codex.js';

export const CLIENT_IDS = ['claude-desktop', 'claude-code', 'cursor', 'vscode', 'windsurf', 'gemini', 'codex'] as const;
export type ClientId = (typeof CLIENT_IDS)[number];

/** How a client starts `pincer stdio`: absolute paths only, never `npx …@latest`. */
export interface StdioLauncher {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

export interface HttpTarget {
  url: string;
  token: string;
}

export interface ClientSpec {
  id: ClientId;
  name: string;
  /** The config file: user scope, or a project's when `project` is given and the client has one. */
  file(project?: string): string;
  /** Where servers live in that file. */
  container: string;
  /** The file's format: JSON (with comments) unless said otherwise. */
  format?: 'toml';
  supportsHttp: boolean;
  hasProjectScope: boolean;
  entry(stdio: StdioLauncher, http?: HttpTarget): Record<string, unknown>;
}

function appData(): string {
  return process.env.APPDATA ?? path.join(os.homedir(), 'AppData', 'Roaming');
}

/** The per-user configuration folder of an app, by OS. */
export function userConfigDir(app: string, platform = process.platform): string {
  if (platform === 'win32') return path.join(appData(), app);
  if (platform === 'darwin') return path.join(os.homedir(), 'Library', 'Application Support', app);
  return path.join(process.env.XDG_CONFIG_HOME ?? path.join(os.homedir(), '.config'), app);
}

const stdioEntry = (s: StdioLauncher, typed: boolean) => ({ ...(typed ? { type: 'stdio' } : {}), command: s.command, args: s.args, ...(s.env && Object.keys(s.env).length ? { env: s.env } : {}) });

export const CLIENTS: Record<ClientId, ClientSpec> = {
  'claude-desktop': {
    id: 'claude-desktop',
    name: 'Claude Desktop',
    file: () => path.join(userConfigDir('Claude'), 'claude_desktop_config.json'),
    container: 'mcpServers',
    supportsHttp: false,
    hasProjectScope: false,
    entry: (s) => stdioEntry(s, false),
  },
  'claude-code': {
    id: 'claude-code',
    name: 'Claude Code',
    file: (project) => (project ? path.join(project, '.mcp.json') : path.join(os.homedir(), '.claude.json')),
    container: 'mcpServers',
    supportsHttp: true,
    hasProjectScope: true,
    entry: (s, http) => (http ? { type: 'http', url: http.url, headers: { Authorization: `Bearer ${http.token}` } } : stdioEntry(s, true)),
  },
  cursor: {
    id: 'cursor',
    name: 'Cursor',
    file: (project) => (project ? path.join(project, '.cursor', 'mcp.json') : path.join(os.homedir(), '.cursor', 'mcp.json')),
    container: 'mcpServers',
    supportsHttp: true,
    hasProjectScope: true,
    entry: (s, http) => (http ? { url: http.url, headers: { Authorization: `Bearer ${http.token}` } } : stdioEntry(s, false)),
  },
  vscode: {
    id: 'vscode',
    name: 'VS Code',
    file: (project) => (project ? path.join(project, '.vscode', 'mcp.json') : path.join(userConfigDir('Code'), 'User', 'mcp.json')),
    container: 'servers',
    supportsHttp: true,
    hasProjectScope: true,
    entry: (s, http) => (http ? { type: 'http', url: http.url, headers: { Authorization: `Bearer ${http.token}` } } : stdioEntry(s, true)),
  },
  windsurf: {
    id: 'windsurf',
    name: 'Windsurf',
    file: () => path.join(os.homedir(), '.codeium', 'windsurf', 'mcp_config.json'),
    container: 'mcpServers',
    supportsHttp: true,
    hasProjectScope: false,
    entry: (s, http) => (http ? { serverUrl: http.url, headers: { Authorization: `Bearer ${http.token}` } } : stdioEntry(s, false)),
  },
  gemini: { id: 'gemini', ...GEMINI, supportsHttp: true, hasProjectScope: true },
  codex: { id: 'codex', ...CODEX, format: 'toml', supportsHttp: true, hasProjectScope: true },
};

/**
 * The command to paste for Claude Code, quoting what a shell needs quoted.
 * The name comes before `-e`: `--env` takes any number of values, so a name
 * after it would be read as one more ("Invalid environment variable format").
 * A project's `.mcp.json` is Claude Code's project scope, written from inside
 * that folder.
 */
export function claudeCodeCommand(s: StdioLauncher, project?: string): string {
  const q = (a: string) => (/^[A-Za-z0-9_./:=@-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);
  const env = Object.entries(s.env ?? {}).map(([k, v]) => ` -e ${q(`${k}=${v}`)}`).join('');
  const add = `claude mcp add --scope ${project ? 'project' : 'user'} pincer${env} -- ${[s.command, ...s.args].map(q).join(' ')}`;
  return project ? `cd ${q(project)} && ${add}` : add;
}

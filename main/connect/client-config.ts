import { CLIENTS, CLIENT_IDS, claudeCodeCommand, type ClientId, type ClientSpec, type HttpTarget, type StdioLauncher } from './clients.js';
import { editServerEntry, readServerEntry, type EditResult } from './config-file.js';
import { editTomlServer, readTomlServer } from './toml-file.js';
import { UserError } from '../core/errors.js';

export interface ConnectOptions {
  client: ClientId;
  stdio: StdioLauncher;
  /** Write an HTTP entry (URL + token header) instead of a stdio one. */
  http?: HttpTarget;
  /** A project folder, for clients with per-project configs. */
  project?: string;
}

export interface ConnectResult extends EditResult {
  client: string;
  entry: Record<string, unknown>;
  /** For Claude Code: the equivalent command to paste. */
  command?: string;
  restartHint: string;
  /** What the client asks of the user before Pincer's tools work there. */
  note?: string;
}

const RESTART: Partial<Record<ClientId, string>> = {
  'claude-desktop': 'Quit and reopen Claude Desktop to load Pincer.',
  gemini: 'Restart Gemini CLI (or run /mcp refresh) to load Pincer.',
  codex: 'Start a new Codex session to load Pincer.',
};

const NOTES: Partial<Record<ClientId, string>> = {
  gemini: 'Gemini CLI shows servers as disabled in a folder it does not trust: trust the folder when it asks (or with /permissions).',
  codex:
    'Codex asks before it runs the tools marked destructive (Bash, BackgroundBash, KillBgTask); "codex exec" refuses them. To allow one, add to config.toml:\n' +
    '  [mcp_servers.pincer.tools.Bash]\n  approval_mode = "approve"',
};

/**
 * An HTTP entry carries the hub's token in clear, and a project's config file (.mcp.json, .cursor/mcp.json,
 * .vscode/mcp.json, .gemini/settings.json) is usually committed: the token would be published with the repository.
 */
export const HTTP_PROJECT_REFUSED =
  '--http with --project would write the hub\'s token in clear into the project\'s config file, which is usually committed to its repository. ' +
  'Use a user-level HTTP entry (drop --project), or the stdio entry for the project (drop --http): it carries no token.';

export function connectClient(o: ConnectOptions): ConnectResult {
  const spec = CLIENTS[o.client];
  if (o.http && !spec.supportsHttp) throw new UserError(`${spec.name} reads only stdio servers from its config file; connect it without --http.`, 'UNSUPPORTED');
  if (o.project && !spec.hasProjectScope) throw new UserError(`${spec.name} has no per-project config; connect it without --project.`, 'UNSUPPORTED');
  if (o.http && o.project) throw new UserError(HTTP_PROJECT_REFUSED, 'UNSUPPORTED');
  const entry = spec.entry(o.stdio, o.http);
  const r = edit(spec, spec.file(o.project), entry);
  return {
    ...r,
    client: spec.name,
    entry,
    command: o.client === 'claude-code' && !o.http ? claudeCodeCommand(o.stdio, o.project) : undefined,
    restartHint: RESTART[o.client] ?? `Reload ${spec.name}'s MCP servers (or restart it) to load Pincer.`,
    ...(NOTES[o.client] ? { note: NOTES[o.client] } : {}),
  };
}

export function disconnectClient(client: ClientId, project?: string): EditResult & { client: string } {
  const spec = CLIENTS[client];
  return { ...edit(spec, spec.file(project), undefined), client: spec.name };
}

export function isConnected(client: ClientId, project?: string): boolean {
  return pincerEntry(client, project) !== undefined;
}

/** The clients whose user-level Pincer entry carries `token`: HTTP entries, which must be written again when it changes. */
export function clientsSendingToken(token: string): ClientId[] {
  if (!token) return [];
  return CLIENT_IDS.filter((id) => JSON.stringify(pincerEntry(id) ?? null).includes(token));
}

function pincerEntry(client: ClientId, project?: string): unknown {
  const spec = CLIENTS[client];
  try {
    return (spec.format === 'toml' ? readTomlServer : readServerEntry)(spec.file(project), spec.container);
  } catch {
    // An unreadable or broken config file has no Pincer entry we could rely on; connect() reports its problem.
    return undefined;
  }
}

function edit(spec: ClientSpec, file: string, entry: Record<string, unknown> | undefined): EditResult {
  return spec.format === 'toml' ? editTomlServer(file, spec.container, entry) : editServerEntry(file, spec.container, entry);
}

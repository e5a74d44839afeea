import { CLIENTS, claudeCodeCommand, type ClientId, type HttpTarget, type StdioLauncher } from './clients.js';
import { editServerEntry, readServerEntry, type EditResult } from './config-file.js';
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
}

export function connectClient(o: ConnectOptions): ConnectResult {
  const spec = CLIENTS[o.client];
  if (o.http && !spec.supportsHttp) throw new UserError(`${spec.name} reads only stdio servers from its config file; connect it without --http.`, 'UNSUPPORTED');
  if (o.project && !spec.hasProjectScope) throw new UserError(`${spec.name} has no per-project config; connect it without --project.`, 'UNSUPPORTED');
  const entry = spec.entry(o.stdio, o.http);
  const r = editServerEntry(spec.file(o.project), spec.container, entry);
  return {
    ...r,
    client: spec.name,
    entry,
    command: o.client === 'claude-code' && !o.http ? claudeCodeCommand(o.stdio) : undefined,
    restartHint: o.client === 'claude-desktop' ? 'Quit and reopen Claude Desktop to load Pincer.' : `Reload ${spec.name}'s MCP servers (or restart it) to load Pincer.`,
  };
}

export function disconnectClient(client: ClientId, project?: string): EditResult & { client: string } {
  const spec = CLIENTS[client];
  return { ...editServerEntry(spec.file(project), spec.container, undefined), client: spec.name };
}

export function isConnected(client: ClientId, project?: string): boolean {
  const spec = CLIENTS[client];
  try {
    return readServerEntry(spec.file(project), spec.container) !== undefined;
  } catch {
    // An unreadable or broken config file has no Pincer entry we could rely on; connect() reports its problem.
    return false;
  }
}

import os from 'node:os';
import path from 'node:path';

/** Codex's folder: $CODEX_HOME, else ~/.codex. */
function codexHome(): string {
  return process.env.CODEX_HOME || path.join(os.homedir(), '.codex');
}

/**
 * Codex: a `[mcp_servers.pincer]` table in `~/.codex/config.toml` (or a
 * trusted project's `.codex/config.toml`). A stdio server is
 * `command`/`args`/`env`; Streamable HTTP is `url` with `http_headers`
 * (Codex refuses an inline `bearer_token`). Approval of Pincer's tools
 * (`default_tools_approval_mode`, `[mcp_servers.pincer.tools.<name>]`) is
 * the user's to set, and survives a reconnect.
 */
export const CODEX = {
  name: 'Codex',
  file: (project?: string) => (project ? path.join(project, '.codex', 'config.toml') : path.join(codexHome(), 'config.toml')),
  container: 'mcp_servers',
  entry(stdio: { command: string; args: string[]; env?: Record<string, string> }, http?: { url: string; token: string }): Record<string, unknown> {
    if (http) return { url: http.url, http_headers: { Authorization: `Bearer ${http.token}` } };
    return { command: stdio.command, args: stdio.args, ...(stdio.env && Object.keys(stdio.env).length ? { env: stdio.env } : {}) };
  },
};

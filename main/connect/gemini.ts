import os from 'node:os';
import path from 'node:path';

/**
 * Gemini CLI: `mcpServers` in `~/.gemini/settings.json` (or a project's
 * `.gemini/settings.json`), JSON with comments allowed. A stdio server is
 * `command`/`args`/`env`; Streamable HTTP is `httpUrl` with `headers` (`url`
 * would mean the old HTTP+SSE transport). Pincer writes no `trust`: whether
 * Gemini skips its confirmations is the user's choice.
 */
export const GEMINI = {
  name: 'Gemini CLI',
  file: (project?: string) => (project ? path.join(project, '.gemini', 'settings.json') : path.join(os.homedir(), '.gemini', 'settings.json')),
  container: 'mcpServers',
  entry(stdio: { command: string; args: string[]; env?: Record<string, string> }, http?: { url: string; token: string }): Record<string, unknown> {
    if (http) return { httpUrl: http.url, headers: { Authorization: `Bearer ${http.token}` } };
    return { command: stdio.command, args: stdio.args, ...(stdio.env && Object.keys(stdio.env).length ? { env: stdio.env } : {}) };
  },
};

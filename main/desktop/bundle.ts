import fs from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT, VERSION } from '../core/version.js';

/**
 * The MCP Bundle for Claude Desktop on this platform, if one is at hand: the
 * installed app carries it in its resources (the installers workflow runs
 * `npm run bundle` before packaging); a development checkout has it in
 * release/bundles after `npm run bundle`. Opening it makes Claude Desktop show
 * its install dialog: the one double click that connects it.
 */
export function claudeDesktopBundle(opts: { isPackaged: boolean; resourcesPath?: string; platform?: NodeJS.Platform; arch?: string }): string | undefined {
  const name = `pincer-${VERSION}-${opts.platform ?? process.platform}-${opts.arch ?? process.arch}.mcpb`;
  const file = opts.isPackaged && opts.resourcesPath ? path.join(opts.resourcesPath, 'bundles', name) : path.join(PACKAGE_ROOT, 'release', 'bundles', name);
  return fs.existsSync(file) ? file : undefined;
}

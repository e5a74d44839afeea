import path from 'node:path';
import type { StdioLauncher } from '../connect/clients.js';

/**
 * How clients start Pincer from the installed app: the app's own binary in
 * run-as-node mode with the stdio script from resources. Windows GUI binaries
 * have no usable stdin, and on macOS the main binary would show a second Dock
 * icon, so the Helper binary is used there.
 */
export function packagedLauncher(execPath: string, resourcesPath: string, platform = process.platform): StdioLauncher {
  let command = execPath;
  if (platform === 'darwin') {
    const contents = path.dirname(path.dirname(execPath)); // …/Pincer.app/Contents
    const name = path.basename(execPath);
    command = path.join(contents, 'Frameworks', `${name} Helper.app`, 'Contents', 'MacOS', `${name} Helper`);
  }
  return { command, args: [path.join(resourcesPath, 'pincer-stdio.js'), 'stdio'], env: { ELECTRON_RUN_AS_NODE: '1' } };
}

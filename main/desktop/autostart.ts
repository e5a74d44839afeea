import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ElectronApi } from './electron-api.js';
import { HUB_NODE_FLAGS } from '../core/node-flags.js';

/**
 * The tray app runs the hub in Electron's main process, whose V8 takes flags only from the command
 * line that starts the app (`--js-flags`; the runtime sets what can be set later, see calls/runtime.ts).
 * The start at login is the one launch Pincer writes the command line of, so it carries the hub's flags;
 * a start from the Dock or the Start menu runs without them (macOS login items take no arguments).
 */
const JS_FLAGS = `--js-flags=${HUB_NODE_FLAGS.join(' ')}`;

/** Start at login: an XDG autostart entry on Linux, the OS's login items elsewhere. Off unless the person turns it on. */
export class AutoStart {
  constructor(private electron: Pick<ElectronApi, 'app'>, private execPath = process.execPath, private platform = process.platform) {}

  private desktopFile(): string {
    return path.join(process.env.XDG_CONFIG_HOME ?? path.join(os.homedir(), '.config'), 'autostart', 'pincer.desktop');
  }

  enabled(): boolean {
    if (this.platform === 'linux') return fs.existsSync(this.desktopFile());
    return this.electron.app.getLoginItemSettings().openAtLogin;
  }

  set(on: boolean): void {
    if (this.platform === 'linux') {
      const file = this.desktopFile();
      if (!on) {
        fs.rmSync(file, { force: true });
        return;
      }
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const exec = process.env.APPIMAGE ?? this.execPath;
      fs.writeFileSync(file, `[Desktop Entry]\nType=Application\nName=Pincer\nComment=Local tools for AI clients\nExec="${exec}" --hidden "${JS_FLAGS}"\nIcon=pincer\nX-GNOME-Autostart-enabled=true\nTerminal=false\n`);
      return;
    }
    this.electron.app.setLoginItemSettings({ openAtLogin: on, args: ['--hidden', JS_FLAGS] });
  }
}

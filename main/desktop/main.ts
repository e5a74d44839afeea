// The Electron entry: the only module that loads Electron itself; everything else receives it.
import * as electron from 'electron';
import { startDesktop } from './app.js';
import { resolveHome, pincerPaths } from '../core/paths.js';
import { configureLogging } from '../core/log.js';

const home = resolveHome();
configureLogging({ logsDir: pincerPaths(home).logsDir, fileName: 'desktop.log', stderr: !electron.app.isPackaged });
void startDesktop(electron, { home, argv: process.argv, execPath: process.execPath, resourcesPath: process.resourcesPath });

// The Electron entry: the only module that loads Electron itself; everything else receives it.
import * as electron from 'electron';
import { startDesktop } from './app.js';
import { resolveHome, pincerPaths } from '../core/paths.js';
import { configureLogging, logger } from '../core/log.js';
import { installLastResort } from '../core/last-resort.js';

const home = resolveHome();
configureLogging({ logsDir: pincerPaths(home).logsDir, fileName: 'desktop.log', stderr: !electron.app.isPackaged });
installLastResort(logger('desktop'), { keepServing: true, ignoreStdoutErrors: true });
void startDesktop(electron, { home, argv: process.argv, execPath: process.execPath, resourcesPath: process.resourcesPath });

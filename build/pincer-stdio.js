// The stdio entry of the packaged app, run by clients as
//   ELECTRON_RUN_AS_NODE=1 <app binary> <resources>/pincer-stdio.js stdio
// It loads the CLI from the app's asar and hands it the arguments.
'use strict';
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const cli = path.join(__dirname, 'app.asar', 'dist', 'main', 'cli', 'pincer.js');
import(pathToFileURL(cli).href).catch((err) => {
  process.stderr.write(`pincer-stdio: cannot load ${cli}: ${err && err.message}\n`);
  process.exit(1);
});

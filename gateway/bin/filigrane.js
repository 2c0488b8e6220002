#!/usr/bin/env node
// `filigrane` command: runs the compiled CLI (build with `npm run build`).
require('../dist/src/cli.js');

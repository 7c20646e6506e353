#!/usr/bin/env node
'use strict';
// The command line of n8n-nodes-vision-streaming; its code is compiled to dist/ by `npm run build`.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS entry point loads the compiled code
const { runCli } = require('../dist/shared/watch/cli.js');

runCli();

#!/usr/bin/env node
'use strict';
// The command line of n8n-nodes-vision-streaming; its code is compiled to dist/ by `npm run build`.
const { runCli } = require('../dist/cli/main.js');

runCli();

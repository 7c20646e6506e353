'use strict';
const { randomUUID } = require('node:crypto');

// One id per jest run, handed to its workers through the environment: what a run builds once for all
// its test files (the package's dist/ for n8n's loader, the n8n Cloud package) is marked with it.
module.exports = () => {
  process.env.VS_TEST_RUN = randomUUID();
};

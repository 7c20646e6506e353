// The main package's engine tests of the action nodes (every operation, tokens, errors, bad input),
// run by n8n's own engine against the n8n Cloud package as `npm run pack:cloud` builds it. The
// test files read the package to use once, when they load.
process.env.VS_N8N_PACKAGE = 'cloud';
try {
  // Loaded for their tests, in order, after the switch above: an import would be hoisted before it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require('../n8n/visual-recognition.test');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require('../n8n/live-streaming.test');
} finally {
  delete process.env.VS_N8N_PACKAGE;
}

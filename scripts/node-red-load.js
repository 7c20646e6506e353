#!/usr/bin/env node
// Loads the node set of an installed package exactly as Node-RED does (its runtime and registry,
// in this process, no HTTP) and prints what it found as one JSON line: every node set of the
// package, and the problems: a set that failed to load, a type without its editor form or help,
// a missing icon. Exit code 1 when there is a problem.
// Usage: node scripts/node-red-load.js <userDir> <package name>
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');

async function main() {
  const [userDir, moduleName] = process.argv.slice(2);
  if (!userDir || !moduleName) throw new Error('usage: node-red-load.js <userDir> <package name>');
  const RED = require(require.resolve('node-red', { paths: [userDir, __dirname] }));
  RED.init(http.createServer(), {
    userDir,
    httpAdminRoot: false,
    httpNodeRoot: false,
    logging: { console: { level: 'off' } },
    credentialSecret: false,
  });
  await RED.start();
  try {
    const sets = RED.nodes.getNodeList().filter((set) => set.module === moduleName);
    const pkg = JSON.parse(fs.readFileSync(path.join(userDir, 'node_modules', moduleName, 'package.json'), 'utf8'));
    const declared = Object.keys((pkg['node-red'] && pkg['node-red'].nodes) || {});
    const problems = [];
    if (declared.length === 0) problems.push('package.json has no node-red.nodes');
    for (const name of declared) {
      const set = sets.find((s) => s.name === name);
      if (!set) {
        problems.push(`${name}: not loaded`);
        continue;
      }
      if (set.err) problems.push(`${name}: ${typeof set.err === 'string' ? set.err : JSON.stringify(set.err)}`);
      if (!set.enabled) problems.push(`${name}: disabled`);
      if (set.types.length === 0) problems.push(`${name}: registers no node type`);
      const config = RED.nodes.getNodeConfig(set.id, 'en-US') || '';
      for (const type of set.types) {
        if (!new RegExp(`data-template-name=["']${type}["']`).test(config)) problems.push(`${type}: no editor form (.html beside the .js)`);
        if (!new RegExp(`registerType\\(\\s*['"]${type}['"]`).test(config)) problems.push(`${type}: the editor does not register the type`);
        if (!new RegExp(`data-help-name=["']${type}["']`).test(config)) problems.push(`${type}: no help (locales/en-US)`);
        for (const icon of config.matchAll(/icon:\s*['"]([^'"]+)['"]/g)) {
          if (!RED.nodes.getNodeIconPath(moduleName, icon[1])) problems.push(`${type}: icon ${icon[1]} not found`);
        }
      }
    }
    const examples = RED.nodes.getNodeExampleFlows();
    const found = { sets: sets.map((s) => ({ name: s.name, types: s.types, err: s.err })), examples: (examples && examples[moduleName]) || null, problems };
    process.stdout.write(`${JSON.stringify(found)}\n`);
    process.exitCode = problems.length === 0 ? 0 : 1;
  } finally {
    await RED.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`${err && err.stack ? err.stack : err}\n`);
  process.exitCode = 2;
});

#!/usr/bin/env node
// Runs n8n's community package scanner (@n8n/scan-community-package) offline on the n8n Cloud
// package: the packed tarball's compiled files and package.json, as n8n's verification lints the
// published artifact, and the package's source folder (cloud/), as it lints the attested source.
// Usage: node scripts/scan-cloud.mjs [TARBALL | PACKAGE_DIR]   (default: build the tarball first)
// Prints one JSON line {passed, dist, source}; exits 1 when a check fails.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SOURCE_FILE_PATTERNS, analyzePackage } from '@n8n/scan-community-package/scanner/scanner.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function packedDir(target) {
  if (target && fs.statSync(target).isDirectory()) return { dir: target, cleanup: () => undefined };
  const tarball = target ?? execFileSync(process.execPath, [path.join(root, 'scripts', 'pack-cloud.js')], { cwd: root, encoding: 'utf8' }).trim().split('\n').pop();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloud-scan-'));
  execFileSync('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1']);
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

const { dir, cleanup } = packedDir(process.argv[2]);
try {
  // The same two legs as the scanner's own run, minus the download: compiled files, then sources.
  const dist = await analyzePackage(dir, ['**/*.js', 'package.json']);
  const source = await analyzePackage(path.join(root, 'cloud'), SOURCE_FILE_PATTERNS);
  const passed = dist.passed && source.passed;
  if (!passed) for (const leg of [dist, source]) if (leg.details) console.error(leg.details);
  console.log(JSON.stringify({ passed, dist: { passed: dist.passed, message: dist.message }, source: { passed: source.passed, message: source.message } }));
  process.exitCode = passed ? 0 : 1;
} finally {
  cleanup();
}

#!/usr/bin/env node
// Builds and packs the n8n Cloud package (cloud/package.json): the credential, Visual Recognition
// and Live Streaming, compiled from the same sources as the main package, with no runtime
// dependency. TypeScript compiles the entry points in cloud/ and exactly the modules they import,
// so nothing that needs undici, timers or files can slip in unnoticed (the scanner test checks the
// result). The last line printed is the tarball's path.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const cloud = path.join(root, 'cloud');
const out = path.join(root, 'build', 'cloud');
const pkgDir = path.join(out, 'package');

/** Entry points: n8n loads these, everything else is what they import. */
const ENTRIES = [
  'cloud/credentials/VisionStreamingCloudApi.credentials.ts',
  'cloud/nodes/VisualRecognition/VisualRecognition.node.ts',
  'cloud/nodes/LiveStreaming/LiveStreaming.node.ts',
];

/** Files beside each compiled entry: icons and codex files of the node or credential it stands for. */
const ASSETS = [
  { from: 'nodes/VisualRecognition', to: 'dist/cloud/nodes/VisualRecognition', files: ['visualRecognition.svg', 'visualRecognition.dark.svg', 'VisualRecognition.node.json'] },
  { from: 'nodes/LiveStreaming', to: 'dist/cloud/nodes/LiveStreaming', files: ['liveStreaming.svg', 'liveStreaming.dark.svg', 'LiveStreaming.node.json'] },
  { from: 'credentials', to: 'dist/cloud/credentials', files: ['visionStreaming.svg', 'visionStreaming.dark.svg'] },
];

function main() {
  const main = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const manifest = JSON.parse(fs.readFileSync(path.join(cloud, 'package.json'), 'utf8'));
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(pkgDir, { recursive: true });

  const tsconfig = {
    extends: path.join(root, 'tsconfig.json'),
    compilerOptions: { rootDir: root, outDir: path.join(pkgDir, 'dist'), declaration: false, sourceMap: false, types: ['node'], incremental: false },
    files: ENTRIES.map((entry) => path.join(root, entry)),
    include: [],
  };
  const tsconfigPath = path.join(out, 'tsconfig.json');
  fs.writeFileSync(tsconfigPath, JSON.stringify(tsconfig, null, 2));
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', tsconfigPath], { cwd: root, stdio: 'inherit' });

  for (const asset of ASSETS) {
    const target = path.join(pkgDir, asset.to);
    fs.mkdirSync(target, { recursive: true });
    for (const file of asset.files) {
      const source = path.join(root, asset.from, file);
      if (file.endsWith('.node.json')) {
        // The codex names the node by package and links the package's own documentation.
        const codex = fs.readFileSync(source, 'utf8').split(`${main.name}.`).join(`${manifest.name}.`).split(`/package/${main.name}#`).join(`/package/${manifest.name}#`);
        fs.writeFileSync(path.join(target, file), codex);
      } else {
        fs.copyFileSync(source, path.join(target, file));
      }
    }
  }

  // One version for both packages: the cloud package is released with the main one.
  fs.writeFileSync(path.join(pkgDir, 'package.json'), `${JSON.stringify({ ...manifest, version: main.version }, null, 2)}\n`);
  fs.copyFileSync(path.join(cloud, 'README.md'), path.join(pkgDir, 'README.md'));
  if (fs.existsSync(path.join(root, 'LICENSE'))) fs.copyFileSync(path.join(root, 'LICENSE'), path.join(pkgDir, 'LICENSE'));

  const npm = process.env.npm_execpath;
  const packArgs = ['pack', '--ignore-scripts', '--pack-destination', out, '--loglevel', 'error'];
  const printed = npm && npm.endsWith('.js')
    ? execFileSync(process.execPath, [npm, ...packArgs], { cwd: pkgDir, encoding: 'utf8' })
    : execFileSync('npm', packArgs, { cwd: pkgDir, encoding: 'utf8' });
  const tarball = path.join(out, printed.trim().split('\n').pop());
  if (!fs.existsSync(tarball)) throw new Error(`npm pack did not write ${tarball}`);
  console.log(tarball);
}

main();

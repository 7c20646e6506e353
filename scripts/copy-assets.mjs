// Copies the files the hosts read next to the compiled code (Node-RED editor HTML and help, n8n
// codex JSON, icons) from the source folders into dist/, keeping their relative paths; and the
// dashboard's browser components (hand-written, node-red/ui/*.umd.js) into resources/, the one folder
// of a package that Node-RED serves to browsers (/resources/<package>/...).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const folders = ['nodes', 'credentials', 'node-red'];
const kept = /\.(html|json|svg|png)$/i;

function copyTree(from, to) {
  if (!fs.existsSync(from)) return 0;
  let copied = 0;
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      copied += copyTree(source, target);
    } else if (kept.test(entry.name)) {
      fs.mkdirSync(to, { recursive: true });
      fs.copyFileSync(source, target);
      copied += 1;
    }
  }
  return copied;
}

let total = 0;
for (const folder of folders) total += copyTree(path.join(root, folder), path.join(root, 'dist', folder));
const ui = path.join(root, 'node-red', 'ui');
if (fs.existsSync(ui)) {
  const resources = path.join(root, 'resources');
  fs.mkdirSync(resources, { recursive: true });
  for (const name of fs.readdirSync(ui).filter((n) => n.endsWith('.umd.js'))) {
    fs.copyFileSync(path.join(ui, name), path.join(resources, name));
    total += 1;
  }
}
if (process.argv.includes('--verbose')) console.log(`copied ${total} asset files into dist/`);

// Copies the files the hosts read next to the compiled code (Node-RED editor HTML and help, n8n
// codex JSON, icons) from the source folders into dist/, keeping their relative paths. (The live view's
// browser widget is a package of its own, dashboard/, built by Vite: `npm run build:widget`.)
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
if (process.argv.includes('--verbose')) console.log(`copied ${total} asset files into dist/`);

#!/usr/bin/env bash
# Installs a pinned n8n CLI into tmp/n8n-e2e/cli (ignored by git, outside the package's own
# dependency tree). Install scripts stay off (the repository's rule); sqlite3 is the one native
# module n8n needs, rebuilt from its prebuilt binary afterwards. Takes ~7 minutes and ~3 GB once;
# later runs find it installed and return at once.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
N8N_VERSION="${N8N_VERSION:-2.41.1}"
CLI="$ROOT/tmp/n8n-e2e/cli"
# n8n 2.x needs Node 24: the one the project's scripts use.
export PATH="$ROOT/node_modules/.bin:$PATH"

if [ -f "$CLI/node_modules/n8n/package.json" ] && grep -q "\"version\": \"$N8N_VERSION\"" "$CLI/node_modules/n8n/package.json"; then
  echo "n8n $N8N_VERSION already installed in $CLI"
  exit 0
fi
mkdir -p "$CLI"
cat > "$CLI/package.json" <<JSON
{
  "name": "n8n-e2e-cli",
  "private": true,
  "dependencies": { "n8n": "$N8N_VERSION" },
  "overrides": { "linkedom": "0.18.14" }
}
JSON
cd "$CLI"
echo "installing n8n $N8N_VERSION into $CLI (several minutes)"
npm install --ignore-scripts --no-audit --no-fund --loglevel=error
# Run through `npm run`, this npm inherits the repository's ignore-scripts=true from the environment:
# the one build this install needs says so itself.
npm rebuild sqlite3 --ignore-scripts=false --loglevel=error
test -f node_modules/sqlite3/build/Release/node_sqlite3.node || { echo "sqlite3 was not built" >&2; exit 1; }
echo "n8n $N8N_VERSION installed"

/* global fetch -- a Node global */
// Checks that Dashboard 2.0 releases find the live view's widget package the way Dashboard documents
// (by the user directory's dependency named node-red-dashboard-2-*, with no help from the node), and
// that the widget mounts on their page. Each release is installed from the npm registry into a
// temporary folder; Node-RED (this checkout's) runs it on 127.0.0.1 with this package and the widget
// package laid out as they install, and Debian's Chromium opens the page when the machine has it.
//
//   npm run build && node scripts/dashboard-versions.js [version ...]     (default: 1.14.0 1.31.0)
//
// Prints one line per release and exits non-zero when one fails.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const support = path.join(ROOT, 'dist', 'test', 'support', 'live-browser.js');

/** Installs one release of @flowfuse/node-red-dashboard into `dir` with npm and returns its folder. */
function install(version, dir) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'dashboard-release', private: true }));
  const npm = process.env.npm_execpath;
  const [command, args] = npm ? [process.execPath, [npm]] : ['npm', []];
  execFileSync(command, [...args, 'install', '--no-audit', '--no-fund', '--ignore-scripts', `@flowfuse/node-red-dashboard@${version}`], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  return path.join(dir, 'node_modules', '@flowfuse', 'node-red-dashboard');
}

/** The widget entry of the dashboard's config, as a page's socket gets it on connecting (engine.io over HTTP polling). */
async function widgetEntry(url, id) {
  const base = `${url}/dashboard/socket.io/?EIO=4&transport=polling`;
  const open = await (await fetch(base)).text();
  const sid = JSON.parse(open.slice(1)).sid;
  await fetch(`${base}&sid=${sid}`, { method: 'POST', body: '40' });
  for (let i = 0; i < 20; i++) {
    const text = await (await fetch(`${base}&sid=${sid}`)).text();
    for (const packet of text.split('\x1e')) {
      if (!packet.startsWith('42')) continue;
      const [event, , config] = JSON.parse(packet.slice(2));
      if (event === 'ui-config') return config.widgets[id];
    }
  }
  throw new Error('no ui-config from the dashboard');
}

async function check(version, work, lib) {
  const dashboardDir = install(version, path.join(work, `dashboard-${version}`));
  const pkg = await lib.layOutPackage(path.join(work, `package-${version}`));
  // No service behind the config: the page's ticket fails, which the widget says (it mounted).
  const flow = lib.liveFlow({ sandboxUrl: 'http://127.0.0.1:9', roomId: 'no-room' });
  const red = await lib.startLiveNodeRed(flow, { svc: { clientId: 'nobody', clientSecret: 'none' } }, pkg, { dashboardDir });
  try {
    // The release that runs is the one installed (Node-RED's log names it when the dashboard starts).
    if (!red.log().includes(`Node-RED Dashboard 2.0 (v${version}) started`)) throw new Error(`Dashboard ${version} did not start: ${red.log().slice(-1500)}`);
    const entry = await widgetEntry(red.url, 'live');
    const src = entry && entry.src;
    if (!src || src.package !== 'node-red-dashboard-2-vision-streaming' || src.component !== 'VisionStreamingLive') throw new Error(`the dashboard has no source for the widget: ${JSON.stringify(src)}`);
    const served = await fetch(`${red.url}/resources/${src.package}/${src.src}`);
    if (served.status !== 200) throw new Error(`/resources/${src.package}/${src.src}: HTTP ${served.status}`);
    if (!lib.CHROMIUM) return 'found and served (no Chromium here: not opened)';
    const browser = await lib.launchChromium();
    try {
      const { page } = await lib.openDashboard(browser, `${red.url}/dashboard/watch`);
      const view = await lib.untilView(page, 'the widget mounted and saying why it has no picture', (v) => v.phase !== null && v.message !== '', red, 60_000);
      return `found, served and mounted (the page says: ${view.message})`;
    } finally {
      await browser.close();
    }
  } finally {
    await red.stop();
  }
}

async function main() {
  if (!fs.existsSync(support)) throw new Error('run npm run build first (dist/test/support/live-browser.js is missing)');
  const lib = require(support);
  const versions = process.argv.slice(2).length ? process.argv.slice(2) : ['1.14.0', '1.31.0'];
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'vs-dashboards-'));
  let failed = 0;
  try {
    for (const version of versions) {
      try {
        console.log(`@flowfuse/node-red-dashboard ${version}: ${await check(version, work, lib)}`);
      } catch (err) {
        failed++;
        console.log(`@flowfuse/node-red-dashboard ${version}: FAILED ${err && err.message ? err.message : err}`);
      }
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  process.exitCode = failed ? 1 : 0;
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});

#!/usr/bin/env node
/* global setTimeout, clearTimeout */
// The demo's People page (/dashboard/people) in Debian's headless Chromium, as a user works it: the
// demo (scripts/demo.js) on free ports; the known person is listed with a face and counts; a stranger
// of the clip turns up and is named in its box; a later event of the watch node carries that name;
// Forget, confirmed, shows its receipt. Screenshots go to tmp/demo-people/ (they show the demo's
// faces, read from node_modules: never commit them).
// Needs `npm run build` and Chromium (/usr/bin/chromium, or CHROMIUM=...). Usage: npm run e2e:demo-people
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { chromium } = require('playwright-core');

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'tmp', 'demo-people');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/** The name scripts/demo.js gives the person its collection knows. */
const KNOWN = 'Astronaut (known)';
const NEW_NAME = 'Marta Visitor';
/** The demo's placeholder client secret: it must never reach the page. */
const SECRET = 'sandbox-secret';

const log = (t) => console.log(`[demo-people] ${t}`);

/** A free TCP port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Starts the demo in its own process group and resolves with the dashboard's base URL once it says so. */
function startDemo(env) {
  const child = spawn(process.execPath, [path.join(__dirname, 'demo.js')], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the demo did not start within 180 s')), 180_000);
    const onData = (chunk) => {
      output += chunk;
      const m = /\[demo\] dashboard:\s+(http:\/\/127\.0\.0\.1:\d+)\/dashboard/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the demo exited (${code})`));
    });
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  // SIGTERM lets the demo stop what it started; its group is killed only if it hangs.
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, 20_000);
    await exited;
    clearTimeout(timer);
  };
  return { ready, stop, output: () => output };
}

async function shot(page, name) {
  // The dashboard's own "App is offline ready" notice would cover the page's corner.
  const notice = page.getByRole('button', { name: 'Close' });
  if (await notice.isVisible().catch(() => false)) await notice.click().catch(() => undefined);
  const file = path.join(OUT, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  log(`screenshot ${path.relative(ROOT, file)}`);
}

async function main() {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM} (set CHROMIUM)`);
  fs.mkdirSync(OUT, { recursive: true });
  const [sandboxPort, nodeRedPort] = [await freePort(), await freePort()];
  const demo = startDemo({ DEMO_SANDBOX_PORT: String(sandboxPort), DEMO_NODE_RED_PORT: String(nodeRedPort) });
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => demo.stop().finally(() => process.exit(1)));
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-people-chromium-'));
  let context;
  let page;
  try {
    const base = await demo.ready;
    log(`demo up at ${base}`);
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1280, height: 900 } });
    page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${base}/dashboard/people`);

    const known = page.locator(`[data-test=person][data-name="${KNOWN}"]`);
    await known.locator('[data-test=counts]').filter({ hasText: /^1 face · 0 not-faces · \d+ visits?, \d+ match(es)? since start$/ }).waitFor({ timeout: 60_000 });
    log(`ok: ${KNOWN} is listed with counts: ${await known.locator('[data-test=counts]').innerText()}`);
    // Usually before the first event of the person: the placeholder instead of a face.
    await shot(page, '0-listed');
    await known.locator('img').waitFor({ timeout: 60_000 });
    log(`ok: ${KNOWN} has a face thumbnail from the events`);
    await shot(page, '1-known-person');

    await page.locator('[data-test=stranger]').first().waitFor({ timeout: 90_000 });
    const visitorId = await page.locator('[data-test=stranger]').first().getAttribute('data-visitor');
    const stranger = page.locator(`[data-test=stranger][data-visitor="${visitorId}"]`);
    log(`ok: a remembered stranger is listed (visitor ${visitorId.slice(0, 8)})`);
    // A name the directory refuses is said on the panel (the people node's own rule), and the stranger stays.
    await stranger.locator('input').fill('Marta\tVisitor');
    await stranger.locator('[data-test=save]').click();
    const refusal = page.getByRole('alert').filter({ hasText: /^Not named: name holds a control character/ });
    await refusal.waitFor({ timeout: 30_000 });
    if (!(await stranger.isVisible())) throw new Error('the stranger went away after a refused name');
    log(`ok: a refused name is said on the panel: ${await refusal.innerText()}`);
    await stranger.locator('input').fill(NEW_NAME);
    await shot(page, '2-stranger-named');
    await stranger.locator('[data-test=save]').click();

    const named = page.locator(`[data-test=person][data-name="${NEW_NAME}"]`);
    await named.waitFor({ timeout: 30_000 });
    await stranger.waitFor({ state: 'detached', timeout: 30_000 });
    await refusal.waitFor({ state: 'detached', timeout: 30_000 });
    log(`ok: ${NEW_NAME} is a person now, and no longer a stranger`);
    // Rows the watch node's events make (not the panel's own "named" note) carry the name once it is known.
    const event = page.locator('[data-test=event]').filter({ has: page.locator('td:nth-child(2)', { hasText: new RegExp(`^${NEW_NAME}$`) }) }).filter({ has: page.locator('td:nth-child(3)', { hasText: /^(arrived|match \d\.\d\d|unknown)/ }) });
    await event.first().waitFor({ timeout: 120_000 });
    log(`ok: a later event carries the name: ${(await event.first().innerText()).replace(/\s+/g, ' ')}`);
    await named.locator('img').waitFor({ timeout: 30_000 });
    await shot(page, '3-named-event');

    const forget = named.locator('[data-test=forget]');
    await forget.click();
    await forget.filter({ hasText: 'Really forget?' }).waitFor({ timeout: 5_000 });
    await forget.click();
    const receipt = page.locator('[data-test=receipt]').filter({ hasText: `Forgot ${NEW_NAME}` });
    await receipt.waitFor({ timeout: 30_000 });
    const text = (await receipt.innerText()).replace(/\s+/g, ' ');
    if (!/Removed from the collection: 1 face \([0-9a-f]{8}\)/.test(text)) throw new Error(`the receipt does not list the removed face: ${text}`);
    if (!/ at \d{1,2}:\d\d:\d\d/.test(text)) throw new Error(`the receipt does not say when: ${text}`);
    await named.waitFor({ state: 'detached', timeout: 30_000 });
    log(`ok: Forget shows its receipt: ${text}`);
    await shot(page, '4-forgot-receipt');

    const html = await page.content();
    if (html.includes(SECRET)) throw new Error('the client secret is on the page');
    log('ok: no secret on the page');
  } catch (err) {
    if (page) await shot(page, 'failure').catch(() => undefined);
    log(`demo output (last lines):\n${demo.output().split('\n').slice(-40).join('\n')}`);
    throw err;
  } finally {
    await context?.close().catch(() => undefined);
    await demo.stop();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

main().then(
  () => {
    log('passed');
    process.exit(0);
  },
  (err) => {
    console.error(`[demo-people] FAILED: ${err && err.stack ? err.stack : err}`);
    process.exit(1);
  },
);

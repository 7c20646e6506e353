import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import WebSocket from 'ws';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { freePort } from './free-port';
import { buildWidget } from './package-build';

/**
 * The live view as a user runs it (for its tests and bench:live): this package laid out as it installs (compiled node code, editor
 * files, the browser component in resources/), linked into a fresh Node-RED user directory beside
 * Dashboard 2.0; Node-RED itself as a child process on 127.0.0.1; Debian's Chromium driven by
 * playwright-core opening the dashboard.
 */

const PKG_NAME = 'n8n-nodes-vision-streaming';
/** The live view's widget package, which Dashboard 2.0 finds by its name among the user directory's dependencies. */
const WIDGET_PKG = 'node-red-dashboard-2-vision-streaming';

/** This checkout: the folder above whose package.json is this package (from bench/ in the sources and from dist/bench/ after a build). */
export const ROOT = ((): string => {
  let dir = __dirname;
  while (dir !== path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === PKG_NAME) return dir;
    dir = path.dirname(dir);
  }
  throw new Error(`no ${PKG_NAME} package.json above ${__dirname}`);
})();

/** Debian's Chromium, when this machine has it. */
export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

/**
 * The flags every test browser starts with (no network besides what the page asks for; no GPU). The
 * browser's ICE candidates carry its addresses rather than mDNS names: the sandbox's SFU (bound to
 * 127.0.0.1) pairs only with this machine's own addresses, and an mDNS name would need a lookup.
 */
export const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-features=WebRtcHideLocalIpsWithMdns'];

/** Where layOutPackage puts the widget package (node-red-dashboard-2-vision-streaming) inside the package's folder, as in the repository. */
const WIDGET_DIR = 'dashboard';

/** Lays the package out in `dir` the way it installs: dist/shared and dist/node-red transpiled, the editor files, package.json; and the widget package in dashboard/ (built by Vite). */
export async function layOutPackage(dir: string): Promise<string> {
  const options: ts.CompilerOptions = { target: ts.ScriptTarget.ES2023, module: ts.ModuleKind.CommonJS, esModuleInterop: true, sourceMap: false };
  const walk = async (rel: string): Promise<void> => {
    for (const entry of await readdir(path.join(ROOT, rel), { withFileTypes: true })) {
      const from = path.join(rel, entry.name);
      const target = path.join(dir, 'dist', from);
      if (entry.isDirectory()) await walk(from);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
        const out = ts.transpileModule(await readFile(path.join(ROOT, from), 'utf8'), { compilerOptions: options, fileName: from });
        await mkdir(path.dirname(target), { recursive: true });
        await writeFile(target.replace(/\.ts$/, '.js'), out.outputText);
      } else if (/\.(html|json|svg|png)$/i.test(entry.name)) {
        await mkdir(path.dirname(target), { recursive: true });
        await copyFile(path.join(ROOT, from), target);
      }
    }
  };
  await walk('shared');
  await walk('node-red');
  // The widget package as it installs (its package.json and the built resources/), beside the package as in the repository.
  const built = buildWidget(ROOT);
  await mkdir(path.join(dir, WIDGET_DIR, 'resources'), { recursive: true });
  await copyFile(path.join(ROOT, 'dashboard', 'package.json'), path.join(dir, WIDGET_DIR, 'package.json'));
  await copyFile(built, path.join(dir, WIDGET_DIR, 'resources', path.basename(built)));
  await copyFile(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
  await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

/** A Node-RED child with this package and Dashboard 2.0. */
export interface LiveNodeRed {
  url: string;
  /** Node-RED's process id (for CPU readings). */
  pid: number;
  /** Everything Node-RED wrote to stdout and stderr so far. */
  log(): string;
  /**
   * Replaces the flow (a full deploy, as the editor's Deploy button does: every node stopped and made
   * anew) with the editor's admin API; a node's `credentials` go with it, as the editor sends them.
   * The statuses read before are forgotten: they were the replaced nodes'.
   */
  deploy(flow: unknown[]): Promise<void>;
  /** The deployed flow as the admin API returns it. */
  flows(): Promise<string>;
  /** The last status each node showed (read from the editor's comms socket). */
  status(nodeId: string): { fill?: string; text?: string } | undefined;
  /** Fires an inject node of the flow through the admin API, with `props` set on its message (strings as they are, Buffers as buffers, anything else as JSON). */
  inject(id: string, props?: Record<string, unknown>): Promise<void>;
  stop(): Promise<void>;
}

/** Starts Node-RED (this checkout's) on a free loopback port with `flow` deployed and `credentials` (unencrypted, as Node-RED stores them without a secret); Dashboard 2.0 is this checkout's unless `dashboardDir` names another release's folder. */
export async function startLiveNodeRed(flow: unknown[], credentials: Record<string, unknown>, packageDir?: string, options: { dashboardDir?: string } = {}): Promise<LiveNodeRed> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'vs-live-'));
  const pkg = packageDir ?? (await layOutPackage(path.join(work, 'package')));
  const userDir = path.join(work, 'user');
  await mkdir(path.join(userDir, 'node_modules', '@flowfuse'), { recursive: true });
  await symlink(pkg, path.join(userDir, 'node_modules', PKG_NAME), 'dir');
  await symlink(path.join(pkg, WIDGET_DIR), path.join(userDir, 'node_modules', WIDGET_PKG), 'dir');
  // As `npm install n8n-nodes-vision-streaming node-red-dashboard-2-vision-streaming` leaves it: Dashboard 2.0 reads this list.
  const version = (JSON.parse(await readFile(path.join(pkg, 'package.json'), 'utf8')) as { version: string }).version;
  await writeFile(path.join(userDir, 'package.json'), JSON.stringify({ name: 'node-red-project', private: true, dependencies: { [PKG_NAME]: version, [WIDGET_PKG]: version, '@flowfuse/node-red-dashboard': '*' } }, null, 2));
  await symlink(options.dashboardDir ?? path.join(ROOT, 'node_modules', '@flowfuse', 'node-red-dashboard'), path.join(userDir, 'node_modules', '@flowfuse', 'node-red-dashboard'), 'dir');
  await writeFile(path.join(userDir, 'flows.json'), JSON.stringify(flow));
  await writeFile(path.join(userDir, 'flows_cred.json'), JSON.stringify(credentials));
  const port = await freePort();
  await writeFile(
    path.join(userDir, 'settings.js'),
    `module.exports = { uiHost: '127.0.0.1', uiPort: ${port}, flowFile: 'flows.json', credentialSecret: false, ` +
      `logging: { console: { level: 'info' } }, editorTheme: { tours: false, projects: { enabled: false } }, externalModules: { autoInstall: false } };\n`,
  );
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [require.resolve('node-red/red.js'), '--userDir', userDir, '--settings', path.join(userDir, 'settings.js')], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const statuses = new Map<string, { fill?: string; text?: string }>();
  const open: { comms?: WebSocket } = {};
  const stop = async (): Promise<void> => {
    open.comms?.close();
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    await rm(work, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  while (!/Started flows/.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`Node-RED did not start: ${output.slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  // The editor's comms socket tells every status change, as it tells the editor.
  const comms = new WebSocket(`ws://127.0.0.1:${port}/comms`);
  open.comms = comms;
  comms.on('open', () => comms.send(JSON.stringify({ subscribe: 'status/#' })));
  comms.on('message', (data) => {
    try {
      const list = JSON.parse(data.toString()) as { topic?: string; data?: { fill?: string; text?: string } }[];
      for (const m of Array.isArray(list) ? list : [list]) if (m.topic?.startsWith('status/')) statuses.set(m.topic.slice(7), m.data ?? {});
    } catch {
      // Not a status message.
    }
  });
  comms.on('error', () => undefined);
  const admin = async (method: string, where: string, body?: unknown): Promise<Response> => {
    const res = await fetch(url + where, { method, headers: { 'content-type': 'application/json', 'Node-RED-Deployment-Type': 'full' }, body: body === undefined ? undefined : JSON.stringify(body) });
    if (!res.ok) throw new Error(`${method} ${where}: HTTP ${res.status} ${await res.text()}\nNode-RED: ${output.slice(-3000)}`);
    return res;
  };
  return {
    url,
    pid: child.pid ?? 0,
    log: () => output,
    status: (id) => statuses.get(id),
    async deploy(next) {
      await admin('POST', '/flows', next);
      statuses.clear();
    },
    async flows() {
      return (await admin('GET', '/flows')).text();
    },
    async inject(id, props) {
      // A Buffer goes as Node-RED's buffer type (its bytes as a JSON array).
      const prop = (p: string, v: unknown) => (typeof v === 'string' ? { p, v, vt: 'str' } : Buffer.isBuffer(v) ? { p, v: JSON.stringify([...v]), vt: 'bin' } : { p, v: JSON.stringify(v), vt: 'json' });
      const body = props ? { __user_inject_props__: Object.entries(props).map(([p, v]) => prop(p, v)) } : undefined;
      await admin('POST', `/inject/${id}`, body);
    },
    stop,
  };
}

/** Starts Debian's headless Chromium through playwright-core (never a downloaded browser). */
export async function launchChromium(): Promise<Browser> {
  if (!CHROMIUM) throw new Error('no Chromium on this machine (apt-get install chromium)');
  const { chromium } = await import('playwright-core');
  // playwright starts each browser on a new, empty profile folder of its own.
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
}

/** Opens a dashboard page in a new browser context (its own cookies and socket: another viewer). */
export async function openDashboard(browser: Browser, url: string): Promise<{ context: BrowserContext; page: Page; console: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const lines: string[] = [];
  page.on('console', (m) => lines.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => lines.push(`pageerror: ${e.message}`));
  consoles.set(page, lines);
  await page.goto(url);
  return { context, page, console: lines };
}

/** The console of each page openDashboard opened, for failure messages. */
const consoles = new WeakMap<Page, string[]>();

/** A video tile as the page shows it. */
export interface TileState {
  stream: string;
  label: string;
  currentTime: number;
  videoWidth: number;
  videoHeight: number;
  /** The video element's size on the page (CSS pixels). */
  shownWidth: number;
  shownHeight: number;
  boxes: { kind: string; text: string; lag: string; rect: { left: number; top: number; width: number; height: number } }[];
  notes: string[];
}

/** What the live view shows. */
export interface LiveView {
  phase: string | null;
  message: string;
  ignored: string;
  tiles: TileState[];
}

/** Reads the live view's tiles, message and ignored count from the page. */
export async function readLiveView(page: Page): Promise<LiveView> {
  return (await page.evaluate(READ_LIVE_VIEW)) as LiveView;
}

// Runs in the page (plain JavaScript: the project's type check has no DOM types).
const READ_LIVE_VIEW = `(() => {
  const root = document.querySelector('.vs-live');
  const tiles = Array.from(document.querySelectorAll('.vs-live-tile')).map((tile) => {
    const video = tile.querySelector('video');
    return {
      stream: tile.getAttribute('data-stream') || '',
      label: (tile.querySelector('.vs-live-label') || {}).textContent || '',
      currentTime: video ? video.currentTime : 0,
      videoWidth: video ? video.videoWidth : 0,
      videoHeight: video ? video.videoHeight : 0,
      shownWidth: video ? video.clientWidth : 0,
      shownHeight: video ? video.clientHeight : 0,
      boxes: Array.from(tile.querySelectorAll('.vs-live-box')).map((b) => ({
        // Where the box is over the video element, in CSS pixels.
        rect: (() => { const r = b.getBoundingClientRect(); const v = video.getBoundingClientRect(); return { left: r.left - v.left, top: r.top - v.top, width: r.width, height: r.height }; })(),
        kind: b.getAttribute('data-kind') || '',
        text: (b.querySelector('.vs-live-name') || {}).textContent || '',
        lag: (b.querySelector('.vs-live-lag') || {}).textContent || '',
      })),
      notes: Array.from(tile.querySelectorAll('.vs-live-note')).map((n) => n.textContent || ''),
    };
  });
  return {
    phase: root ? root.getAttribute('data-phase') : null,
    message: (document.querySelector('.vs-live-message') || {}).textContent || '',
    ignored: (document.querySelector('.vs-live-ignored') || {}).textContent || '',
    tiles,
  };
})()`;

/** A flow: Dashboard 2.0's base, theme, page and group, the config node, the live view, and an inject node per message to send it. */
export function liveFlow(opts: { sandboxUrl: string; roomId: string; messages?: Record<string, Record<string, unknown>>; live?: Record<string, unknown>; extra?: Record<string, unknown>[] }): unknown[] {
  const flow: Record<string, unknown>[] = [
    { id: 'tab1', type: 'tab', label: 'live' },
    { id: 'svc', type: 'vision-streaming-config', name: 'sandbox', authUrl: opts.sandboxUrl, visionUrl: opts.sandboxUrl, sfuUrl: opts.sandboxUrl },
    { id: 'base', type: 'ui-base', name: 'Live', path: '/dashboard', includeClientData: true, acceptsClientConfig: ['ui-notification', 'ui-control'], showPathInSidebar: false, navigationStyle: 'default', titleBarStyle: 'default' },
    { id: 'theme', type: 'ui-theme', name: 'Default', colors: { surface: '#ffffff', primary: '#0094ce', bgPage: '#eeeeee', groupBg: '#ffffff', groupOutline: '#cccccc' }, sizes: { pagePadding: '12px', groupGap: '12px', groupBorderRadius: '4px', widgetGap: '12px' } },
    { id: 'page', type: 'ui-page', name: 'Watch', ui: 'base', path: '/watch', icon: 'cctv', layout: 'grid', theme: 'theme', order: 1, className: '', visible: 'true', disabled: 'false' },
    { id: 'group', type: 'ui-group', name: 'Cameras', page: 'page', width: '12', height: '1', order: 1, showTitle: true, className: '', visible: 'true', disabled: 'false', groupType: 'default' },
    { id: 'live', z: 'tab1', type: 'vision-streaming-live', name: 'room', group: 'group', order: 1, width: '12', height: '6', service: 'svc', roomId: opts.roomId, codec: 'VP8', streams: '', labels: '', faces: true, tileHeight: 240, x: 500, y: 100, wires: [], ...opts.live },
    // Every message of the flow is also written to the log, so the tests can look for a token in them.
    // (Flow nodes have x and y: Node-RED takes a node without them for a config node.)
    // Fired with msg.roomId by the tests that switch rooms.
    { id: 'switch', z: 'tab1', type: 'inject', name: 'switch room', props: [], repeat: '', once: false, x: 100, y: 100, wires: [['live', 'log-all']] },
    { id: 'log-all', z: 'tab1', type: 'debug', name: 'every message', active: true, tosidebar: true, console: true, complete: 'true', targetType: 'full', x: 500, y: 160, wires: [] },
  ];
  flow.push(...(opts.extra ?? []));
  let y = 200;
  for (const [id, msg] of Object.entries(opts.messages ?? {})) {
    y += 40;
    flow.push({ id, z: 'tab1', type: 'change', name: id, rules: [{ t: 'set', p: 'payload', pt: 'msg', to: JSON.stringify(msg.payload ?? null), tot: 'json' }, ...Object.entries(msg).filter(([k]) => k !== 'payload').map(([k, v]) => ({ t: 'set', p: k, pt: 'msg', to: typeof v === 'string' ? v : JSON.stringify(v), tot: typeof v === 'string' ? 'str' : 'json' }))], x: 300, y, wires: [['live', 'log-all']] });
    flow.push({ id: `${id}-in`, z: 'tab1', type: 'inject', name: `${id}-in`, props: [], repeat: '', once: false, x: 100, y, wires: [[id]] });
  }
  return flow;
}

/** Copies a folder (for the bench: one laid-out package for several Node-RED runs). */
export async function copyFolder(from: string, to: string): Promise<void> {
  await cp(from, to, { recursive: true });
}

/** Polls the live view until `predicate` holds; the failure shows what the page showed last and the end of Node-RED's log. */
export async function untilView(page: Page, what: string, predicate: (v: LiveView) => boolean, red?: LiveNodeRed, ms = 60_000): Promise<LiveView> {
  const deadline = Date.now() + ms;
  let view = await readLiveView(page);
  while (!predicate(view)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: the page showed ${JSON.stringify(view)}\nconsole: ${(consoles.get(page) ?? []).slice(-30).join('\n')}${red ? `\nNode-RED: ${red.log().slice(-1500)}` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
    view = await readLiveView(page);
  }
  return view;
}

import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import type { Publisher } from '../../shared/publish';
import { encodeClip } from '../watch/support/clip';
import { publishClip, startWatchHarness, type WatchHarness } from '../watch/support/room';
import { CHROMIUM, launchChromium, layOutPackage, liveFlow, openDashboard, readLiveView, startLiveNodeRed, untilView, type LiveNodeRed } from './support/live-browser';

// The live view in the real Node-RED runtime with Dashboard 2.0, opened by Debian's headless
// Chromium: the browser joins the sandbox's room with WebRTC and plays each camera as a tile.

const describeWithBrowser = CHROMIUM ? describe : describe.skip;
if (!CHROMIUM) console.log('live view browser tests skipped: no Chromium on this machine (apt-get install chromium)');

let h: WatchHarness;
let dir: string;
let clip: string;
let pkg: string;
let browser: Browser;

beforeAll(async () => {
  if (!CHROMIUM) return;
  h = await startWatchHarness();
  dir = await mkdtemp(path.join(os.tmpdir(), 'nr-live-'));
  // A moving grey picture: enough for a decoder to show frames; 640x480 like the watcher's clips.
  clip = await encodeClip(dir, 'grey', [{ placements: [], seconds: 2 }], { codec: 'VP8', fps: 10 });
  pkg = await layOutPackage(path.join(dir, 'package'));
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await h?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** What a face watch node sends on its first output for a match, without the pictures. */
function matchEvent(streamId: string, name: string, location = { left: 200, top: 120, right: 320, bottom: 260 }): Record<string, unknown> {
  return { event: 'match', location, room: 'r', stream_id: streamId, track: 1, time: new Date().toISOString(), face_id: 'f-1', name, label: name, score: 0.93, latency_ms: 180 };
}

describeWithBrowser('live view widget', () => {
  let red: LiveNodeRed | undefined;
  const publishers: Publisher[] = [];

  afterEach(async () => {
    await red?.stop();
    red = undefined;
    for (const p of publishers.splice(0)) await p.close();
  });

  it('plays each camera of the room as its own tile, boxes a match on its tile by name, and no ticket token reaches the log, the flow or a message', async () => {
    const room = await h.streaming.createRoom();
    publishers.push(await publishClip(h, room.id, clip), await publishClip(h, room.id, clip));
    const [first, second] = publishers.map((p) => p.clientId as string);
    red = await startLiveNodeRed(
      liveFlow({
        sandboxUrl: h.sandbox.url,
        roomId: room.id,
        live: { labels: JSON.stringify({ [first]: 'Front door' }) },
        messages: {
          match: { payload: matchEvent(second, 'Alice') },
          broken: { payload: { event: 'match', stream_id: second, name: 'Nobody' } },
        },
      }),
      { svc: { clientId: h.sandbox.clientId, clientSecret: 'sandbox-secret' } },
      pkg,
    );
    const tokens: string[] = [];
    const { page } = await openDashboard(browser, `${red.url}/dashboard/watch`);
    // Every signaling message the page sends, to learn the token it joined with.
    page.on('websocket', (ws) => ws.on('framesent', (f) => {
      const text = typeof f.payload === 'string' ? f.payload : f.payload.toString();
      const m = /"access_token":"([^"]+)"/.exec(text);
      if (m) tokens.push(m[1]);
    }));
    await page.reload();

    let view = await untilView(page, 'two tiles playing', (v) => v.tiles.length === 2 && v.tiles.every((t) => t.currentTime > 0.5 && t.videoWidth > 0), red);
    expect(view.tiles.map((t) => [t.videoWidth, t.videoHeight])).toEqual([[640, 480], [640, 480]]);
    expect(view.tiles.find((t) => t.stream === first)?.label).toBe('Front door');
    const before = view.tiles.map((t) => t.currentTime);
    await page.waitForTimeout(1000);
    const after = (await readLiveView(page)).tiles.map((t) => t.currentTime);
    expect(after[0]).toBeGreaterThan(before[0]);
    expect(after[1]).toBeGreaterThan(before[1]);

    await red.inject('broken-in');
    await red.inject('match-in');
    await page.waitForSelector('.vs-live-box', { timeout: 10_000 });
    view = await readLiveView(page);
    const boxed = view.tiles.find((t) => t.boxes.length > 0);
    expect(boxed?.stream).toBe(second);
    expect(boxed?.boxes[0]).toMatchObject({ kind: 'person', text: 'Alice' });
    expect(boxed?.boxes[0].lag).toMatch(/^lag \d+ ms$/);
    expect(view.tiles.find((t) => t.stream === first)?.boxes).toEqual([]);
    // The box is gone after a moment.
    await page.waitForSelector('.vs-live-box', { state: 'detached', timeout: 10_000 });

    expect(tokens.length).toBeGreaterThan(0);
    const flows = await red.flows();
    for (const token of tokens) {
      expect(red.log()).not.toContain(token);
      expect(flows).not.toContain(token);
    }
    // The broken event (no box) was dropped and counted, never shown; the page and Node-RED carry on.
    expect(red.log()).toContain('Nobody');
    expect(red.log()).not.toMatch(/\[error\]/);
    expect((await readLiveView(page)).ignored).toBe('1 malformed face event ignored');
  }, 240_000);
});

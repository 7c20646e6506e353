import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import jpeg from 'jpeg-js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Publisher } from '../../shared/publish';
import { PREVIEW_WIDTH } from '../../node-red/live-stills';
import { LIVE_STILL_EVENT } from '../../node-red/live-widget';
import { encodeClip } from '../support/clip';
import { publishClip, standardScene, startWatchHarness, type WatchHarness } from '../watch/support/room';
import { CHROMIUM, launchChromium, layOutPackage, liveFlow, openDashboard, readLiveView, startLiveNodeRed, untilView, type LiveNodeRed, type LiveView } from '../support/live-browser';

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
  // One Node-RED for the file: each test deploys its own flow to it (a full deploy, every node made
  // anew, as the editor's Deploy button does) and opens pages of its own, instead of starting one.
  let red: LiveNodeRed | undefined;
  const publishers: Publisher[] = [];

  afterEach(async () => {
    for (const p of publishers.splice(0)) await p.close();
  });
  afterAll(async () => {
    await red?.stop();
  });

  /** Deploys `flow` with the sandbox client's credential (its secret `clientSecret`): on the file's Node-RED, started by the first call. */
  async function deployLive(flow: unknown[], clientSecret = 'sandbox-secret'): Promise<LiveNodeRed> {
    const credentials = { clientId: h.sandbox.clientId, clientSecret };
    if (!red) red = await startLiveNodeRed(flow, { svc: credentials }, pkg);
    else await red.deploy((flow as { id?: string }[]).map((n) => (n.id === 'svc' ? { ...n, credentials } : n)));
    return red;
  }

  it('plays each camera of the room as its own tile, boxes a match on its tile by name, and no ticket token reaches the log, the flow or a message', async () => {
    const room = await h.streaming.createRoom();
    publishers.push(await publishClip(h, room.id, clip), await publishClip(h, room.id, clip));
    const [first, second] = publishers.map((p) => p.clientId as string);
    red = await deployLive(
      liveFlow({
        sandboxUrl: h.sandbox.url,
        roomId: room.id,
        live: { labels: JSON.stringify({ [first]: 'Front door' }) },
        messages: {
          match: { payload: matchEvent(second, 'Alice') },
          broken: { payload: { event: 'match', stream_id: second, name: 'Nobody' } },
          outside: { payload: matchEvent(second, 'Far away', { left: 600, top: 10, right: 2000, bottom: 90 }) },
        },
      }),
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
    // Read in one go with the box (it lives 1.5 s: a second read after a wait may come too late on a busy machine).
    view = await untilView(page, 'a box drawn', (v) => v.tiles.some((t) => t.boxes.length > 0), red, 10_000);
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
    // A box outside the picture (this camera is 640x480) is counted too, and never drawn.
    await red.inject('outside-in');
    await untilView(page, 'the box outside the picture counted', (v) => v.ignored === '2 malformed face events ignored', red, 10_000);
    expect((await readLiveView(page)).tiles.flatMap((t) => t.boxes)).toEqual([]);

    // A browser that cannot decode the room's codec says which one, and what to publish instead.
    const noVp8 = await browser.newContext();
    await noVp8.addInitScript(`(() => {
      const real = RTCRtpReceiver.getCapabilities.bind(RTCRtpReceiver);
      RTCRtpReceiver.getCapabilities = (kind) => {
        const caps = real(kind);
        return kind === 'video' && caps ? { ...caps, codecs: caps.codecs.filter((c) => c.mimeType !== 'video/VP8') } : caps;
      };
    })()`);
    const other = await noVp8.newPage();
    await other.goto(`${red.url}/dashboard/watch`);
    const refused = await untilView(other, 'the codec named', (v) => v.message !== '', red);
    expect(refused.message).toMatch(/cannot play VP8: publish the cameras as H264/);
    expect(refused.tiles).toEqual([]);
    await noVp8.close();
  }, 240_000);

  it('keeps playing: each browser its own ticket, a camera that leaves and comes back, a hidden tab that stops downloading, the SFU restarting, a room deleted and another one switched to without a reload', async () => {
    const room = await h.streaming.createRoom();
    publishers.push(await publishClip(h, room.id, clip));
    red = await deployLive(liveFlow({ sandboxUrl: h.sandbox.url, roomId: room.id }));
    const url = `${red.url}/dashboard/watch`;
    const tokens = new Map<string, string[]>();
    const viewers = [await openDashboard(browser, 'about:blank'), await openDashboard(browser, 'about:blank')];
    for (const [i, v] of viewers.entries()) {
      tokens.set(String(i), []);
      v.page.on('websocket', (ws) => ws.on('framesent', (f) => {
        const m = /"access_token":"([^"]+)"/.exec(typeof f.payload === 'string' ? f.payload : f.payload.toString());
        if (m) tokens.get(String(i))?.push(m[1]);
      }));
      await v.page.goto(url);
    }
    const playing = (v: LiveView): boolean => v.tiles.length === 1 && v.tiles[0].currentTime > 0.3 && v.tiles[0].videoWidth === 640;
    for (const v of viewers) await untilView(v.page, 'one tile playing', playing, red);
    // Two browsers, two tickets: neither joined with the other's token.
    const [a, b] = [tokens.get('0') ?? [], tokens.get('1') ?? []];
    expect(a.length).toBeGreaterThan(0);
    expect(b.length).toBeGreaterThan(0);
    expect(a.filter((t) => b.includes(t))).toEqual([]);
    await until('two viewers counted', async () => (await h.streaming.getRoom(room.id)).down_count === 2);
    // Whether Chromium's first DTLS packets come before werift's side has started (which the sandbox
    // keeps for it) is a race that a loaded machine can turn: test/sandbox-streaming/early-dtls.test.ts
    // tests the keeping.

    // The camera leaves: its tile goes; it comes back (a new stream): a tile plays again, no reload.
    const firstStream = viewers[0].page;
    await publishers.splice(0)[0].close();
    await untilView(firstStream, 'the tile gone', (v) => v.tiles.length === 0, red);
    publishers.push(await publishClip(h, room.id, clip));
    for (const v of viewers) await untilView(v.page, 'the camera back', (x) => playing(x) && x.tiles[0].stream === publishers[0].clientId, red);

    // A hidden tab closes its peer connection (the room counts one viewer less), and joins again when shown.
    await setHidden(viewers[0].page, true);
    await untilView(viewers[0].page, 'paused', (v) => v.phase === 'paused' && v.tiles.length === 0, red);
    await until('one viewer counted', async () => (await h.streaming.getRoom(room.id)).down_count === 1);
    await setHidden(viewers[0].page, false);
    await untilView(viewers[0].page, 'playing again', playing, red);

    // The SFU restarts (every session closed): each page joins again with a fresh ticket of its own.
    const asked = [...tokens.values()].map((list) => list.length);
    const restart = await fetch(`${h.sandbox.url}/_sandbox/streaming/restart-sfu`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(restart.ok).toBe(true);
    await until('a fresh ticket on both pages', async () => [...tokens.values()].every((list, i) => list.length > asked[i]), 60_000);
    for (const v of viewers) await untilView(v.page, 'playing after the restart', playing, red);

    // The room is deleted: the page says so in words and the node's status is red.
    await h.streaming.deleteRoom(room.id);
    for (const v of viewers) await untilView(v.page, 'the missing room said', (x) => x.message.includes(`Room ${room.id} does not exist`), red);
    expect(red.status('live')).toMatchObject({ fill: 'red', text: 'room not found' });
    // Another room, switched to with msg.roomId: both pages play it without a reload.
    const next = await h.streaming.createRoom();
    publishers.push(await publishClip(h, next.id, clip));
    await red.inject('switch', { roomId: next.id });
    for (const v of viewers) await untilView(v.page, 'the new room playing', (x) => playing(x) && x.message === '', red);
    expect(red.status('live')).toMatchObject({ fill: 'green' });
    expect(red.status('live')).toMatchObject({ fill: 'green', text: '2 viewers' });
    for (const v of viewers) await v.context.close();
    await until('the viewers gone from the status', async () => red?.status('live')?.text === '0 viewers');
    const all = [...(tokens.get('0') ?? []), ...(tokens.get('1') ?? [])];
    expect(all.length).toBeGreaterThanOrEqual(5);
    for (const token of all) expect(red.log()).not.toContain(token);
  }, 300_000);

  it('a face watch node wired in: the known face is boxed green with its label on its camera\'s tile, the stranger red', async () => {
    const scene = await standardScene(h);
    const sceneClip = await encodeClip(dir, 'standard', scene.segments);
    const room = await h.streaming.createRoom();
    publishers.push(await publishClip(h, room.id, sceneClip));
    const watch = {
      id: 'w', z: 'tab1', type: 'vision-streaming-watch', name: 'door', service: 'svc', roomId: room.id, collectionId: scene.collectionId,
      labels: JSON.stringify({ [scene.faceA]: 'Alice' }), cooldownSeconds: '1', unknowns: true, autoStart: true, x: 100, y: 400,
      wires: [['live'], ['live'], [], ['live']],
    };
    red = await deployLive(liveFlow({ sandboxUrl: h.sandbox.url, roomId: room.id, extra: [watch] }));
    const { page, context } = await openDashboard(browser, `${red.url}/dashboard/watch`);
    const stream = publishers[0].clientId as string;
    const seen = new Set<string>();
    const centres: { x: number; y: number }[] = [];
    await untilView(page, 'Alice boxed and a stranger boxed', (v) => {
      for (const t of v.tiles) {
        for (const b of t.boxes) {
          if (t.stream !== stream) continue;
          seen.add(`${b.kind}:${b.text}`);
          // Back to picture pixels: the 640x480 picture is shown whole (object-fit: contain), centred.
          const scale = Math.min(t.shownWidth / t.videoWidth, t.shownHeight / t.videoHeight);
          const [padX, padY] = [(t.shownWidth - t.videoWidth * scale) / 2, (t.shownHeight - t.videoHeight * scale) / 2];
          centres.push({ x: (b.rect.left + b.rect.width / 2 - padX) / scale, y: (b.rect.top + b.rect.height / 2 - padY) / scale });
        }
      }
      return seen.has('person:Alice') && seen.has('unknown:unknown');
    }, red, 120_000);
    // Every face of the clip is centred near (320, 220) of the picture, drifting 12 px at most.
    for (const c of centres) {
      expect(Math.abs(c.x - 326)).toBeLessThan(40);
      expect(Math.abs(c.y - 220)).toBeLessThan(40);
    }
    expect([...seen].filter((k) => !['person:Alice', 'unknown:unknown'].includes(k))).toEqual([]);
    await context.close();
  }, 240_000);

  it('shows the latest still at once, marked with its age, and the video from its first frame; a tracked face stays boxed and named across samples, glides between them, and goes when no longer listed', async () => {
    const room = await h.streaming.createRoom();
    publishers.push(await publishClip(h, room.id, clip));
    const stream = publishers[0].clientId as string;
    red = await deployLive(liveFlow({ sandboxUrl: h.sandbox.url, roomId: room.id, extra: trackerFlow(stream) }));
    // The node keeps the still the samples bring before any page asks.
    await until('two samples sent', async () => Number(red?.status('tracker')?.text ?? 0) >= 2);
    const { context, page } = await openRecorded(`${red.url}/dashboard/watch`);
    await untilView(page, 'the video playing with Alice boxed', (v) => v.tiles.length === 1 && v.tiles[0].currentTime > 0.3 && v.tiles[0].boxes.some((b) => b.text === 'Alice'), red);
    const log = await timeline(page);
    const still = log.find((e) => e.what === 'still');
    const playing = log.find((e) => e.what === 'playing');
    expect(still?.text).toMatch(/^still, \d+ s old$/);
    expect(playing).toBeDefined();
    expect(still!.t).toBeLessThan(playing!.t);
    expect(await page.locator('.vs-live-still').count()).toBe(0);

    // A page whose still requests never leave it: its picture at once is the small copy that came
    // with the dashboard's set-up, before its video.
    const unasked = await openRecorded(`${red.url}/dashboard/watch`, NO_STILL_REQUESTS);
    await untilView(unasked.page, 'the video playing', (v) => v.tiles.length === 1 && v.tiles[0].currentTime > 0.3, red);
    const unaskedLog = await timeline(unasked.page);
    expect(unaskedLog.find((e) => e.what === 'still')!.t).toBeLessThan(unaskedLog.find((e) => e.what === 'playing')!.t);
    expect(await unasked.page.evaluate('window.__stillWidths')).toEqual([PREVIEW_WIDTH]);
    expect(await unasked.page.evaluate('window.__stillRequestsDropped')).toBeGreaterThan(0);
    await unasked.context.close();

    // Every frame the page draws for three seconds: the face's box is there, named, and moves through places between the samples.
    const frames = (await page.evaluate(`new Promise((resolve) => {
      let boxed = 0, unboxed = 0;
      const places = new Set();
      const end = performance.now() + 3000;
      const step = () => {
        const box = document.querySelector('.vs-live-box[data-key="t1"]');
        if (box && (box.querySelector('.vs-live-name') || {}).textContent === 'Alice') {
          boxed++;
          places.add(Math.round(box.getBoundingClientRect().left));
        } else unboxed++;
        if (performance.now() < end) requestAnimationFrame(step);
        else resolve({ boxed, unboxed, places: places.size });
      };
      requestAnimationFrame(step);
    })`)) as { boxed: number; unboxed: number; places: number };
    expect(frames.boxed + frames.unboxed).toBeGreaterThan(10);
    expect(frames.boxed / (frames.boxed + frames.unboxed)).toBeGreaterThanOrEqual(0.9);
    // About 6 samples in 3 s, each a place of its own: more places than that are the glide between them.
    expect(frames.places).toBeGreaterThan(12);
    const kinds = (await readLiveView(page)).tiles[0].boxes.map((b) => b.kind);
    expect(kinds).toEqual(['person']);

    // The face leaves the samples: its box goes (the samples keep coming, without it).
    await red.inject('faces-off');
    await page.waitForSelector('.vs-live-box', { state: 'detached', timeout: 10_000 });
    await context.close();
  }, 180_000);

  // What these two tests change is each page's own join (what it sends, how the room reads it), so
  // they share one flow and one room with a camera: each opens a page of its own.
  describe('a page\'s join, in a room with one camera', () => {
    let plain: LiveNodeRed;
    let camera: Publisher;
    beforeAll(async () => {
      const room = await h.streaming.createRoom();
      camera = await publishClip(h, room.id, clip);
      plain = await deployLive(liveFlow({ sandboxUrl: h.sandbox.url, roomId: room.id }));
    }, 120_000);
    afterAll(async () => {
      await camera?.close();
    });

    it('a join whose offer goes unanswered is dropped and made again by the page, not waited out, and the tile says so', async () => {
      const red = plain;
      // The page's first answer to the room is lost on its way (the room then waits for it 10 s, and closes the join).
      const { context, page, joins } = await openRecorded(`${red.url}/dashboard/watch`, `(() => {
        const send = WebSocket.prototype.send;
        let dropped = false;
        WebSocket.prototype.send = function (data) {
          if (!dropped && typeof data === 'string' && data.includes('"type":"answer"')) { dropped = true; return; }
          return send.call(this, data);
        };
      })()`);
      await untilView(page, 'the video playing', (v) => v.tiles.length === 1 && v.tiles[0].currentTime > 0.3, red);
      const withConnect = joins.filter((j) => j.some((f) => f.includes('"type":"connect"')));
      expect(withConnect.length).toBeGreaterThanOrEqual(2);
      // The first join never answered, and the page left it itself (the room's own timeout sends no disconnect).
      expect(withConnect[0].some((f) => f.includes('"type":"answer"'))).toBe(false);
      expect(withConnect[0].some((f) => f.includes('"type":"disconnect"'))).toBe(true);
      const said = (await timeline(page)).filter((e) => e.what === 'status').map((e) => e.text);
      expect(said).toContain('No picture within 3 s; joining again.');
      expect((await readLiveView(page)).message).toBe('');
      await context.close();
    }, 120_000);

    it('a browser that names its addresses by mDNS (Chrome\'s default) plays: the room applies its answer without looking the names up', async () => {
      const red = plain;
      // werift looks a .local name up over multicast DNS (10 s without an answer); here each lookup is
      // recorded and nothing is sent, so the test's traffic stays on 127.0.0.1.
      const lookups: string[] = [];
      const mdns = weriftMdns();
      const original = mdns.MdnsLookup;
      mdns.MdnsLookup = class {
        lookup(host: string): Promise<string> {
          lookups.push(host);
          return new Promise((_, reject) => setTimeout(() => reject(new Error('No mDNS response')), 10_000).unref());
        }
        close(): void {}
      };
      try {
        // The page's host candidates carry mDNS names, as Chrome's do unless told otherwise (the tests'
        // Chromium is started showing its addresses), and they reach the room before its answer, as
        // when the room reads them in one go with it: before, the room looked the names up inside the
        // answer's setRemoteDescription and applied it only after its own 10 s wait had closed the join.
        const { context, page, joins } = await openRecorded(`${red.url}/dashboard/watch`, `(() => {
          const send = WebSocket.prototype.send;
          // The first join's answer waits for its first candidate (at most 1 s).
          let held = null;
          let holding = true;
          const release = (ws) => { if (held) { const answer = held; held = null; send.call(ws, answer); } };
          WebSocket.prototype.send = function (data) {
            if (holding && typeof data === 'string' && data.includes('"type":"answer"')) {
              holding = false;
              held = data;
              setTimeout(() => release(this), 1000);
              return;
            }
            if (typeof data === 'string' && data.includes('"type":"candidate"')) {
              const m = JSON.parse(data);
              const f = m.candidate.split(' ');
              f[4] = '6d2c1f0e-2b1a-4c3d-9e8f-' + String(f[4]).replace(/[^0-9a-f]/g, '').padEnd(12, '0').slice(0, 12) + '.local';
              m.candidate = f.join(' ');
              send.call(this, JSON.stringify(m));
              release(this);
              return;
            }
            return send.call(this, data);
          };
        })()`);
        await untilView(page, 'the video playing', (v) => v.tiles.length === 1 && v.tiles[0].currentTime > 0.3, red, 15_000);
        const first = joins.find((j) => j.some((f) => f.includes('"type":"connect"'))) ?? [];
        const kinds = first.map((f) => (JSON.parse(f) as { type: string }).type);
        // A candidate with a name went before the answer.
        expect(kinds.indexOf('candidate')).toBeLessThan(kinds.indexOf('answer'));
        expect(first.some((f) => /"type":"candidate".*\.local /.test(f))).toBe(true);
        expect(lookups).toEqual([]);
        await context.close();
      } finally {
        mdns.MdnsLookup = original;
      }
    }, 120_000);
  });

  it('a refused credential is said on the page in words and turns the node red; Node-RED keeps running', async () => {
    const room = await h.streaming.createRoom();
    red = await deployLive(liveFlow({ sandboxUrl: h.sandbox.url, roomId: room.id }), 'not-the-secret');
    const { page, context } = await openDashboard(browser, `${red.url}/dashboard/watch`);
    const view = await untilView(page, 'the refusal said', (v) => /refused the credential/.test(v.message), red);
    expect(view.tiles).toEqual([]);
    // The page and the node's status hear of the refusal by two paths; on a loaded machine either may come first.
    await until('the node red', async () => red?.status('live')?.fill === 'red', 10_000);
    expect(red.status('live')).toMatchObject({ fill: 'red', text: 'credential refused' });
    expect(red.log()).not.toContain('not-the-secret');
    expect((await fetch(`${red.url}/settings`)).ok).toBe(true);
    await context.close();
  }, 120_000);
});

/**
 * An init script that keeps the widget's still requests from leaving the page (over the socket's
 * WebSocket or its HTTP polling, whichever carries them), counting them, and records the width of
 * each still image the widget draws.
 */
const NO_STILL_REQUESTS = `(() => {
  const event = ${JSON.stringify(LIVE_STILL_EVENT)};
  window.__stillRequestsDropped = 0;
  const strip = (data) => {
    if (typeof data !== 'string' || !data.includes(event)) return data;
    const kept = data.split('\x1e').filter((packet) => !packet.includes(event));
    window.__stillRequestsDropped += data.split('\x1e').length - kept.length;
    return kept.length ? kept.join('\x1e') : null;
  };
  const wsSend = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) { const out = strip(data); if (out !== null) wsSend.call(this, out); };
  // An HTTP poll must carry a packet: a noop (6) stands in for a still request sent alone.
  const xhrSend = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (data) { const out = strip(data); return xhrSend.call(this, out === null ? '6' : out); };
  window.__stillWidths = [];
  new MutationObserver(() => {
    for (const img of document.querySelectorAll('.vs-live img.vs-live-still')) {
      if (img.__seen) continue;
      img.__seen = true;
      const note = () => { if (img.naturalWidth > 0) window.__stillWidths.push(img.naturalWidth); };
      if (img.complete) note(); else img.addEventListener('load', note, { once: true });
    }
  }).observe(document, { subtree: true, childList: true });
})()`;

/** A JPEG of one grey 640x480 picture, as the watcher's stills are (base64). */
function stillJpeg(): string {
  const [width, height] = [640, 480];
  return Buffer.from(jpeg.encode({ data: Buffer.alloc(width * height * 4, 0x80), width, height }, 70).data).toString('base64');
}

/**
 * Flow nodes standing in for a face watch node's tracks output: every half second a sample of
 * `stream` with Alice moving right at 100 px/s (until the flow's `faces` is false), and the still.
 */
function trackerFlow(stream: string): Record<string, unknown>[] {
  const func = `const on = flow.get('faces') !== false;
const x = 100 + ((Date.now() / 10) % 300);
msg.topic = 'tracks';
msg.payload = { event: 'tracks', stream_id: ${JSON.stringify(stream)}, frame_time: new Date().toISOString(), width: 640, height: 480,
  tracks: on ? [{ track: 1, verdict: 'person', name: 'Alice', person_id: 'p-1', location: { left: x, top: 120, right: x + 120, bottom: 280 } }] : [] };
msg.still = Buffer.from(${JSON.stringify(stillJpeg())}, 'base64');
const n = (context.get('n') || 0) + 1;
context.set('n', n);
node.status({ text: String(n) });
return msg;`;
  return [
    { id: 'tick', z: 'tab1', type: 'inject', name: 'sample', props: [], repeat: '0.5', once: true, onceDelay: 0.1, x: 100, y: 500, wires: [['tracker']] },
    { id: 'tracker', z: 'tab1', type: 'function', name: 'tracks', func, outputs: 1, x: 300, y: 500, wires: [['live']] },
    { id: 'faces-off', z: 'tab1', type: 'inject', name: 'faces off', props: [], repeat: '', once: false, x: 100, y: 560, wires: [['faces-flag']] },
    { id: 'faces-flag', z: 'tab1', type: 'change', name: 'no face', rules: [{ t: 'set', p: 'faces', pt: 'flow', to: 'false', tot: 'bool' }], x: 300, y: 560, wires: [[]] },
  ];
}

/** What the page showed when, as recorded in the page: the first still, the first playing tile, each tile status line. */
interface Moment {
  what: 'still' | 'playing' | 'status';
  t: number;
  text: string;
}

// Runs in each page before its scripts: records the moments a test asks about (plain JavaScript, as READ_LIVE_VIEW).
const RECORDER = `(() => {
  const log = (window.__liveLog = []);
  const seen = new Set();
  const record = (what, text) => log.push({ what, t: performance.now(), text: text || '' });
  new MutationObserver(() => {
    const still = document.querySelector('.vs-live-still-age');
    if (still && !seen.has('still')) { seen.add('still'); record('still', still.textContent); }
    if (document.querySelector('.vs-live-tile[data-playing="true"]') && !seen.has('playing')) { seen.add('playing'); record('playing'); }
    for (const s of document.querySelectorAll('.vs-live-tile-status')) {
      const text = s.textContent || '';
      if (!seen.has('status:' + text)) { seen.add('status:' + text); record('status', text); }
    }
  }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
})()`;

/** Opens the dashboard in a new context whose pages record their moments (and run `script` first), with the frames each room join sent. */
async function openRecorded(url: string, script = ''): Promise<{ context: BrowserContext; page: Page; joins: string[][] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  if (script) await context.addInitScript(script);
  await context.addInitScript(RECORDER);
  const page = await context.newPage();
  const joins: string[][] = [];
  page.on('websocket', (ws) => {
    if (ws.url().includes('/socket.io/')) return;
    const sent: string[] = [];
    joins.push(sent);
    ws.on('framesent', (f) => sent.push(typeof f.payload === 'string' ? f.payload : f.payload.toString()));
  });
  await page.goto(url);
  return { context, page, joins };
}

/** werift's mDNS lookup module (the sandbox runs in this process, with the same module instance). */
function weriftMdns(): { MdnsLookup: unknown } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a module werift's exports do not name
  return require(path.join(path.dirname(require.resolve('werift')), '..', '..', 'ice', 'src', 'dns', 'lookup.js')) as { MdnsLookup: unknown };
}

/** The moments the page recorded so far. */
async function timeline(page: Page): Promise<Moment[]> {
  return (await page.evaluate('window.__liveLog')) as Moment[];
}

/** Makes the page hidden or shown as a browser does when its tab goes to the background (document.hidden and a visibilitychange event). */
async function setHidden(page: Page, hidden: boolean): Promise<void> {
  await page.evaluate(`(() => {
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => ${hidden} });
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => '${hidden ? 'hidden' : 'visible'}' });
    document.dispatchEvent(new Event('visibilitychange'));
  })()`);
}

/** Resolves when an async predicate holds (polled every 200 ms). */
async function until(what: string, predicate: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

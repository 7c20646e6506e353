import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { startSandbox, type RunningSandbox } from '../../sandbox';
import { StreamingClient } from '../../shared';
import { buildWidget } from '../support/package-build';
import { layOutPackage, liveFlow, startLiveNodeRed, type LiveNodeRed } from '../support/live-browser';
import { TICKET_BURST, TICKETS_PER_SECOND } from '../../node-red/live-tickets';
import { LIVE_STILL_EVENT, LIVE_TICKET_EVENT, WIDGET_SOURCE, type LiveStill } from '../../node-red/live-widget';
import { MAX_PREVIEW_BYTES, MAX_PREVIEW_STREAMS, MAX_STILL_STREAMS, PREVIEW_WIDTH, STILL_BURST, STILLS_PER_SECOND } from '../../node-red/live-stills';
import { imageDimensions } from '../../shared/image/dimensions';

// The live view's server side as a hostile dashboard visitor meets it: the real Node-RED runtime with
// Dashboard 2.0 and this package, and raw socket.io clients (engine.io v4 over a WebSocket, written
// here: the frames are the ones a script would send, `42["event", ...]`).

let sandbox: RunningSandbox;
let streaming: StreamingClient;
let dir: string;
let red: LiveNodeRed;
let roomA: string;
let roomB: string;
const clients: RawSocket[] = [];

/** Node-RED's used heap after two full collections, read through a flow endpoint (a function node with node:v8). */
const HEAP_FLOW = [
  { id: 'heap-in', z: 'tab1', type: 'http in', name: '', url: '/heap', method: 'get', upload: false, x: 100, y: 600, wires: [['heap-fn']] },
  {
    id: 'heap-fn', z: 'tab1', type: 'function', name: 'heap', outputs: 1, x: 300, y: 600, wires: [['heap-out']],
    libs: [{ var: 'v8', module: 'v8' }, { var: 'vm', module: 'vm' }],
    func: "v8.setFlagsFromString('--expose-gc');\nconst gc = vm.runInNewContext('gc');\ngc(); gc();\nmsg.payload = { used: v8.getHeapStatistics().used_heap_size };\nreturn msg;",
  },
  { id: 'heap-out', z: 'tab1', type: 'http response', name: '', statusCode: '', headers: {}, x: 500, y: 600, wires: [] },
];

/**
 * A watch node's tracks message, as its tracks output sends it: fired with msg.payload (the event)
 * and msg.stillSize (a JPEG-looking Buffer of that many bytes, filled with msg.stillFill), or
 * msg.stillBase64 (a real JPEG).
 */
const TRACKS_FLOW = [
  { id: 'tracks-in', z: 'tab1', type: 'inject', name: 'tracks', props: [], repeat: '', once: false, x: 100, y: 800, wires: [['tracks-fn']] },
  {
    id: 'tracks-fn', z: 'tab1', type: 'function', name: 'tracks message', outputs: 1, x: 300, y: 800, wires: [['live']],
    func: "msg.topic = 'tracks';\nif (msg.stillSize) {\n  msg.still = Buffer.alloc(msg.stillSize, msg.stillFill || 7);\n  msg.still[0] = 0xff; msg.still[1] = 0xd8;\n}\nif (msg.stillBase64) msg.still = Buffer.from(msg.stillBase64, 'base64');\ndelete msg.stillSize; delete msg.stillFill; delete msg.stillBase64;\nreturn msg;",
  },
];

/** A tracks event of a stream at one sample, with one face. */
function tracksEvent(streamId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { event: 'tracks', room: 'r', stream_id: streamId, frame_time: new Date().toISOString(), width: 640, height: 480, tracks: [{ track: 1, location: { left: 10, top: 10, right: 110, bottom: 130 }, verdict: 'person', person_id: 'p1', name: 'Ada', label: 'Ada' }], time: new Date().toISOString(), ...extra };
}

beforeAll(async () => {
  sandbox = await startSandbox({ host: '127.0.0.1', port: 0 });
  streaming = new StreamingClient({ authUrl: sandbox.url, sfuUrl: sandbox.url, clientId: sandbox.clientId, clientSecret: 'sandbox-secret' });
  roomA = (await streaming.createRoom()).id;
  roomB = (await streaming.createRoom()).id;
  dir = await mkdtemp(path.join(os.tmpdir(), 'nr-live-hostile-'));
  const pkg = await layOutPackage(path.join(dir, 'package'));
  // A second live view for the limit's test: a bucket of its own, full whatever the other tests took.
  const second = { id: 'live2', z: 'tab1', type: 'vision-streaming-live', name: 'second', group: 'group', order: 2, width: '12', height: '6', service: 'svc', roomId: roomA, codec: 'VP8', x: 500, y: 700, wires: [] };
  red = await startLiveNodeRed(liveFlow({ sandboxUrl: sandbox.url, roomId: roomA, extra: [...HEAP_FLOW, ...TRACKS_FLOW, second] }), { svc: { clientId: sandbox.clientId, clientSecret: 'sandbox-secret' } }, pkg);
}, 120_000);

afterEach(() => {
  for (const c of clients.splice(0)) c.close();
});

afterAll(async () => {
  await red?.stop();
  await streaming?.close();
  await sandbox?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('Dashboard 2.0 finds the widget by the widget package\'s name in the user directory, as it documents: the page\'s config names the component, and Node-RED serves the built file', async () => {
  const page = await connect();
  await until('the dashboard\'s config', () => page.events.some((e) => e[0] === 'ui-config'));
  const config = page.events.find((e) => e[0] === 'ui-config')?.[2] as { widgets: Record<string, { type: string; src?: Record<string, unknown> }> };
  expect(config.widgets.live.type).toBe('vision-streaming-live');
  expect(config.widgets.live.src).toMatchObject({ package: WIDGET_SOURCE.package, name: WIDGET_SOURCE.name, src: WIDGET_SOURCE.src, component: WIDGET_SOURCE.component });
  // Where the page imports it from (/resources/<package>/<output>): the widget as Vite built it.
  const res = await fetch(`${red.url}/resources/${WIDGET_SOURCE.package}/${WIDGET_SOURCE.src}`);
  expect(res.status).toBe(200);
  expect(await res.text()).toBe(readFileSync(buildWidget(), 'utf8'));
  // The package is listed where Dashboard 2.0 looks: the node has nothing to warn of.
  expect(red.log()).not.toContain(WIDGET_SOURCE.package);
}, 60_000);

test("a browser's widget-send and widget-change reach neither the room nor the other pages; a message of the flow does", async () => {
  const [visitor, viewer] = [await connect(), await connect()];
  visitor.emit('widget-send', 'live', { roomId: roomB });
  visitor.emit('widget-change', 'live', { roomId: roomB, payload: { event: 'left', stream_id: 'fake' } });
  visitor.emit('widget-action', 'live', { roomId: roomB });
  const answer = await visitor.ticket('live', 1);
  expect(answer).toMatchObject({ ok: true, roomId: roomA });
  // Nothing of the visitor's reached the other page (the flow's messages reach it as msg-input:live).
  expect(viewer.events.filter((e) => e[0] === 'msg-input:live' || e[0] === 'widget-sync:live')).toEqual([]);
  expect(red.log()).not.toContain(roomB);

  // The flow still switches the room.
  await red.inject('switch', { roomId: roomB });
  await until('the room message on the page', () => viewer.events.some((e) => e[0] === 'msg-input:live'));
  expect(viewer.events.find((e) => e[0] === 'msg-input:live')?.[1]).toMatchObject({ topic: 'room', payload: { roomId: roomB } });
  expect(await viewer.ticket('live', 1)).toMatchObject({ ok: true, roomId: roomB });
  await red.inject('switch', { roomId: roomA });
}, 60_000);

test(`tickets are limited per node across sockets: 20 sockets asking fast get at most ${TICKET_BURST} + ${TICKETS_PER_SECOND}/s, and the status says so`, async () => {
  const sockets = await Promise.all(Array.from({ length: 20 }, () => connect()));
  const started = Date.now();
  let given = 0;
  let refused = 0;
  await Promise.all(
    sockets.map(async (s) => {
      for (let request = 1; request <= 20; request++) {
        const answer = await s.ticket('live2', request);
        if (answer.ok) given++;
        else refused++;
        await new Promise((r) => setTimeout(r, 100));
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  expect(refused).toBeGreaterThan(0);
  expect(given).toBeGreaterThan(0);
  expect(given).toBeLessThanOrEqual(TICKET_BURST + Math.ceil(TICKETS_PER_SECOND * seconds) + 1);
  expect(red.status('live2')).toMatchObject({ fill: 'yellow', text: expect.stringMatching(/tickets? refused/) });
}, 60_000);

test('thousands of hostile messages of up to 1 MB from 20 sockets leave Node-RED running and its heap within 50 MB of where it started', async () => {
  const before = await heap();
  const sockets = await Promise.all(Array.from({ length: 20 }, () => connect()));
  // Frames built as bytes (JSON.stringify of a megabyte is slow here); each request id is a new one.
  const big = Buffer.alloc(990_000, 'A');
  const small = big.subarray(0, 4_000);
  const frame = (before: string, filler: string, body: Buffer, after: string): Buffer => Buffer.concat([Buffer.from(before + filler), body, Buffer.from(after)]);
  sockets.forEach((s, n) => {
    for (let i = 0; i < 100; i++) {
      // A megabyte: each kind once, and every 20th a ticket request (what the live node once kept).
      const [filler, body] = [`${n}:${i}:`, i < 5 || i % 20 === 0 ? big : small];
      switch (i % 5) {
        case 0: s.send(frame(`42["${LIVE_TICKET_EVENT}","live","`, filler, body, '"]')); break; // a request id of up to 1 MB
        case 1: s.send(frame(`42["${LIVE_TICKET_EVENT}","`, filler, body, `",${i}]`)); break; // a widget id of up to 1 MB
        case 2: s.send(frame('42["widget-send","live",{"roomId":"', filler, body, '"}]')); break;
        case 3: s.send(frame('42["widget-change","live",{"payload":"', filler, body, '"}]')); break;
        default: s.send(frame(`42["${LIVE_TICKET_EVENT}","live",{"request":"`, filler, body, '"}]')); break;
      }
    }
  });
  for (const s of sockets) await s.ticket('live', 1_000_000);
  const during = await heap();
  for (const s of sockets) s.close();
  await until('the sockets gone from the status', () => /^0 viewers/.test(red.status('live')?.text ?? ''));
  const after = await heap();
  // In MB: the heap while the sockets are still open, and after they closed.
  expect(mb(during - before)).toBeLessThan(50);
  expect(mb(after - before)).toBeLessThan(50);
  expect((await fetch(`${red.url}/settings`)).ok).toBe(true);
}, 120_000);

test("Dashboard 2.0's one-message crash (a widget-load whose id is not a string) is dropped before it reaches the dashboard", async () => {
  const s = await connect();
  s.send('42["widget-load",123]');
  s.send('42["widget-load",{"startsWith":1}]');
  s.send('42["widget-send",["live"],{"roomId":"x"}]');
  // Still there: the same socket is answered, a new one connects, the editor answers.
  expect(await s.ticket('live', 7)).toHaveProperty('ok');
  await connect();
  expect((await fetch(`${red.url}/settings`)).ok).toBe(true);
  expect(red.log()).not.toMatch(/startsWith is not a function/);
}, 30_000);

test("the tracks messages reach the pages without the still; a page asking the stills gets each stream's latest, once per request, nothing for a malformed request", async () => {
  const [page, viewer] = [await connect(), await connect()];
  const long = 'N'.repeat(5000);
  await red.inject('tracks-in', { payload: tracksEvent('cam-1', { tracks: [{ track: 1, location: { left: 10, top: 10, right: 110, bottom: 130 }, verdict: 'pending', name: long, label: null }] }), stillSize: 1000, stillFill: 1 });
  await red.inject('tracks-in', { payload: tracksEvent('cam-1'), stillSize: 2000, stillFill: 2 });
  await red.inject('tracks-in', { payload: tracksEvent('cam-2'), stillSize: 3000, stillFill: 3 });
  await until('three tracks messages on the page', () => viewer.events.filter((e) => e[0] === 'msg-input:live').length >= 3);
  const sent = viewer.events.filter((e) => e[0] === 'msg-input:live').map((e) => e[1] as { topic: string; payload: Record<string, unknown> });
  expect(sent[0]).toMatchObject({ topic: 'tracks', payload: { event: 'tracks', stream_id: 'cam-1', width: 640, height: 480, tracks: [{ track: 1, verdict: 'pending', label: null }] } });
  // Bounded: no picture, no field the pages do not draw, a long name cut.
  expect(JSON.stringify(sent)).not.toContain('still');
  expect(sent[0].payload).not.toHaveProperty('room');
  expect(((sent[0].payload.tracks as { name: string }[])[0].name).length).toBe(256);

  const answer = await page.stills('live', 1);
  expect(answer!.map((x) => [x.stream_id, Buffer.from(x.src.replace('data:image/jpeg;base64,', ''), 'base64').length])).toEqual([['cam-1', 2000], ['cam-2', 3000]]);
  expect(answer![0]).toMatchObject({ width: 640, height: 480, time: expect.any(String), src: expect.stringMatching(/^data:image\/jpeg;base64,\/9/) });
  // Every live widget's handler hears a request: it is answered once.
  await new Promise((r) => setTimeout(r, 500));
  expect(page.events.filter((e) => e[0] === LIVE_STILL_EVENT && e[2] === 1)).toHaveLength(1);
  // Ids over their bounds, or of the wrong type: no answer.
  page.emit(LIVE_STILL_EVENT, 'x'.repeat(65), 2);
  page.emit(LIVE_STILL_EVENT, 'live', 'r'.repeat(33));
  page.emit(LIVE_STILL_EVENT, 'live', { request: 1 });
  await new Promise((r) => setTimeout(r, 1500));
  expect(page.events.filter((e) => e[0] === LIVE_STILL_EVENT)).toHaveLength(1);
}, 60_000);

test(`a live node keeps at most ${MAX_STILL_STREAMS} streams' stills, none too large, and none of the room before a switch`, async () => {
  const page = await connect();
  for (let n = 0; n < MAX_STILL_STREAMS + 4; n++) await red.inject('tracks-in', { payload: tracksEvent(`many-${n}`), stillSize: 500 });
  await red.inject('tracks-in', { payload: tracksEvent('huge'), stillSize: 300 * 1024 });
  await until('the last tracks message on the page', () => page.events.some((e) => e[0] === 'msg-input:live' && (e[1] as { payload?: { stream_id?: string } }).payload?.stream_id === 'huge'));
  let answer = await page.stills('live', 1);
  // Map order: the streams updated longest ago went first.
  expect(answer!.map((x) => x.stream_id)).toEqual(Array.from({ length: MAX_STILL_STREAMS }, (_, n) => `many-${n + 4}`));
  await red.inject('switch', { roomId: roomB });
  await new Promise((r) => setTimeout(r, 1100));
  answer = await page.stills('live', 2);
  expect(answer).toEqual([]);
  await red.inject('switch', { roomId: roomA });
}, 60_000);

test(`the dashboard's set-up gives each page small copies of the latest stills (${PREVIEW_WIDTH} px wide, at most ${MAX_PREVIEW_STREAMS} streams and ${MAX_PREVIEW_BYTES / 1024} kB), none of the room before a switch`, async () => {
  const photo = readFileSync(require.resolve('@vladmandic/face-api/demo/sample1.jpg'));
  const streams = Array.from({ length: MAX_PREVIEW_STREAMS + 2 }, (_, n) => `copy-${n}`);
  for (const stream of streams) await red.inject('tracks-in', { payload: tracksEvent(stream), stillBase64: photo.toString('base64') });
  // What a page connecting now gets in the dashboard's set-up.
  const copiesOf = async (): Promise<LiveStill[]> => {
    const socket = await connect();
    await until('the set-up', () => socket.events.some((e) => e[0] === 'ui-config'));
    const config = socket.events.find((e) => e[0] === 'ui-config')![2] as { widgets: Record<string, { props: { stills?: LiveStill[] } }> };
    return config.widgets.live.props.stills ?? [];
  };
  const untilCopies = async (what: string, predicate: (copies: LiveStill[]) => boolean): Promise<LiveStill[]> => {
    for (const deadline = Date.now() + 20_000; ; await new Promise((r) => setTimeout(r, 200))) {
      const copies = await copiesOf();
      if (predicate(copies)) return copies;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(copies.map((c) => c.stream_id))}`);
    }
  };
  const copies = await untilCopies('the copies of every stream', (c) => c.some((x) => x.stream_id === streams.at(-1)));
  expect(copies.map((c) => c.stream_id)).toEqual(streams.slice(-MAX_PREVIEW_STREAMS));
  const bytes = copies.map((c) => Buffer.from(c.src.replace('data:image/jpeg;base64,', ''), 'base64'));
  for (const [i, jpeg] of bytes.entries()) {
    expect(imageDimensions(jpeg, 'image/jpeg')?.width).toBe(PREVIEW_WIDTH);
    // The frame's size, which the boxes are in, whatever the copy's.
    expect(copies[i]).toMatchObject({ width: 640, height: 480, time: expect.any(String) });
  }
  expect(bytes.reduce((n, b) => n + b.length, 0)).toBeLessThanOrEqual(MAX_PREVIEW_BYTES);
  await red.inject('switch', { roomId: roomB });
  await untilCopies('no copies after the switch', (c) => c.length === 0);
  await red.inject('switch', { roomId: roomA });
}, 60_000);

test(`still requests are limited per node and per socket: 20 sockets asking fast get at most ${STILL_BURST} + ${STILLS_PER_SECOND}/s answers, one a second each, and the heap stays within 50 MB`, async () => {
  // Stills as large as the store holds, so each answer is as large as it can be.
  for (let n = 0; n < 8; n++) await red.inject('tracks-in', { payload: tracksEvent(`big-${n}`), stillSize: 250 * 1024, stillFill: n + 1 });
  const sockets = await Promise.all(Array.from({ length: 20 }, () => connect()));
  const before = await heap();
  const started = Date.now();
  for (let request = 1; request <= 30; request++) {
    for (const s of sockets) s.emit(LIVE_STILL_EVENT, 'live', request);
    await new Promise((r) => setTimeout(r, 50));
  }
  const during = await heap();
  await new Promise((r) => setTimeout(r, 1000));
  const seconds = (Date.now() - started) / 1000;
  const answers = sockets.map((s) => s.events.filter((e) => e[0] === LIVE_STILL_EVENT));
  const given = answers.reduce((n, a) => n + a.length, 0);
  expect(given).toBeGreaterThan(0);
  expect(given).toBeLessThanOrEqual(STILL_BURST + Math.ceil(STILLS_PER_SECOND * seconds) + 1);
  // One a second per socket at most: 30 requests over 1.5 s or so.
  for (const a of answers) expect(a.length).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
  for (const s of sockets) s.close();
  const after = await heap();
  expect(mb(during - before)).toBeLessThan(50);
  expect(mb(after - before)).toBeLessThan(50);
  expect((await fetch(`${red.url}/settings`)).ok).toBe(true);
}, 60_000);

test('a widget mounted again on the same page, its request numbers starting over, gets its ticket and stills at once; one request heard by every widget is answered once', async () => {
  const page = await connect();
  expect(await page.ticket('live', 1)).toHaveProperty('ok');
  expect(await page.stills('live', 1)).toBeDefined();
  // The dashboard's navigation back to the page: a new component, counting from 1 again, past the per-socket intervals.
  await new Promise((r) => setTimeout(r, 1100));
  expect(await page.ticket('live', 1)).toHaveProperty('ok');
  expect(await page.stills('live', 1)).toBeDefined();
  // Both live views' handlers heard each request: one answer per request.
  await new Promise((r) => setTimeout(r, 300));
  expect(page.events.filter((e) => e[0] === LIVE_TICKET_EVENT)).toHaveLength(2);
  expect(page.events.filter((e) => e[0] === LIVE_STILL_EVENT)).toHaveLength(2);
}, 30_000);

/** The used heap, in bytes. */
async function heap(): Promise<number> {
  const res = await fetch(`${red.url}/heap`);
  if (!res.ok) throw new Error(`GET /heap: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { used: number }).used;
}

function mb(bytes: number): number {
  return Math.round(bytes / 1024 / 1024);
}

/** Resolves when a predicate holds (polled every 100 ms). */
async function until(what: string, predicate: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; Node-RED: ${red.log().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A socket.io client speaking the frames itself. */
interface RawSocket {
  /** Every event the server sent, as [name, ...args]. */
  events: unknown[][];
  emit(event: string, ...args: unknown[]): void;
  /** Sends one engine.io frame as it is, as text (`42[...]` is a socket.io event). */
  send(frame: string | Buffer): void;
  /** Asks a ticket and resolves with the answer to that request. */
  ticket(id: string, request: number): Promise<{ ok: boolean; roomId?: string; code?: string }>;
  /** Asks the stills and resolves with the answer to that request (undefined when none comes within 3 s). */
  stills(id: string, request: number): Promise<LiveStill[] | undefined>;
  close(): void;
}

/** Connects to the dashboard's socket.io as a browser does: an engine.io handshake over HTTP polling, the namespace joined, then the upgrade to a WebSocket. */
async function connect(): Promise<RawSocket> {
  const base = `${red.url}/dashboard/socket.io/?EIO=4`;
  const open = await (await fetch(`${base}&transport=polling`)).text();
  const sid = (JSON.parse(open.slice(1)) as { sid: string }).sid;
  const posted = await fetch(`${base}&transport=polling&sid=${sid}`, { method: 'POST', body: '40' });
  if (!posted.ok) throw new Error(`socket.io connect: ${posted.status}`);
  const events: unknown[][] = [];
  const take = (packet: string): void => {
    if (packet.startsWith('42')) events.push(JSON.parse(packet.slice(2)) as unknown[]);
  };
  const polled = await (await fetch(`${base}&transport=polling&sid=${sid}`)).text();
  if (!polled.startsWith('40')) throw new Error(`socket.io refused the connection: ${polled.slice(0, 200)}`);
  polled.split('\x1e').forEach(take);
  // A zero mask: a client may choose it, and ws then sends the bytes as they are (masking a megabyte in JavaScript is slow).
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}&transport=websocket&sid=${sid}`, { generateMask: (mask) => void mask.fill(0) });
  await new Promise<void>((resolve, reject) => {
    ws.once('error', reject);
    ws.once('open', () => ws.send('2probe'));
    ws.once('message', (data) => {
      if (data.toString() !== '3probe') return reject(new Error(`no probe answer: ${data.toString()}`));
      ws.send('5');
      resolve();
    });
  });
  const waiting = new Set<() => void>();
  ws.on('message', (data) => {
    const text = data.toString();
    if (text === '2') ws.send('3');
    else take(text);
    for (const w of waiting) w();
  });
  ws.on('error', () => undefined);
  const socket: RawSocket = {
    events,
    send: (frame) => ws.send(frame, { binary: false }),
    emit: (event, ...args) => ws.send(`42${JSON.stringify([event, ...args])}`),
    ticket: (id, request) =>
      new Promise((resolve, reject) => {
        // Only an answer that comes after this request (a page may ask with the same number again).
        const from = events.length;
        const found = (): boolean => {
          const e = events.slice(from).find((x) => x[0] === LIVE_TICKET_EVENT && x[1] === id && x[2] === request);
          if (!e) return false;
          waiting.delete(check);
          clearTimeout(timer);
          resolve(e[3] as { ok: boolean });
          return true;
        };
        const check = (): void => void found();
        const timer = setTimeout(() => {
          waiting.delete(check);
          reject(new Error(`no answer to ticket request ${request}; Node-RED: ${red.log().slice(-2000)}`));
        }, 15_000);
        waiting.add(check);
        socket.emit(LIVE_TICKET_EVENT, id, request);
      }),
    stills: (id, request) =>
      new Promise((resolve) => {
        const from = events.length;
        const check = (): void => {
          const e = events.slice(from).find((x) => x[0] === LIVE_STILL_EVENT && x[1] === id && x[2] === request);
          if (!e) return;
          waiting.delete(check);
          clearTimeout(timer);
          resolve(e[3] as LiveStill[]);
        };
        const timer = setTimeout(() => {
          waiting.delete(check);
          resolve(undefined);
        }, 3_000);
        waiting.add(check);
        socket.emit(LIVE_STILL_EVENT, id, request);
      }),
    close: () => ws.close(),
  };
  clients.push(socket);
  return socket;
}

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import * as vue from 'vue';
import { LIVE_STILL_EVENT, LIVE_TICKET_EVENT, slimEvent, VERDICT_COLOURS, WIDGET_SOURCE } from '../../node-red/live-widget';
import * as ui from '../../dashboard/src/view';
import { WIDGET_MISSING, widgetPackageListed } from '../../node-red/live-widget-package';
import { buildWidget } from '../support/package-build';

// The live view's pure parts: where a box goes over a letterboxed video, what a face event and a
// tracked face show, which events reach the browsers, and that the node, the widget package and the
// built component agree on their names.

const face = { left: 160, top: 120, right: 320, bottom: 360 };

it('scales a box to the shown size, with the letterbox of a picture wider or taller than its tile', () => {
  // 640x480 shown in 320x240: half size, no bars.
  expect(ui.placeBox(face, { width: 640, height: 480 }, { width: 320, height: 240 })).toEqual({ left: 80, top: 60, width: 80, height: 120 });
  // 640x480 in a 400x400 tile: scale 0.625, 50 px bars above and below.
  expect(ui.placeBox(face, { width: 640, height: 480 }, { width: 400, height: 400 })).toEqual({ left: 100, top: 125, width: 100, height: 150 });
  // 640x480 in an 800x300 tile: scale 0.625, 200 px bars left and right.
  expect(ui.placeBox(face, { width: 640, height: 480 }, { width: 800, height: 300 })).toEqual({ left: 300, top: 75, width: 100, height: 150 });
});

it('refuses a box outside the picture or without four numbers, and a picture not yet sized', () => {
  expect(ui.placeBox({ left: 600, top: 10, right: 700, bottom: 90 }, { width: 640, height: 480 }, { width: 640, height: 480 })).toBeNull();
  expect(ui.placeBox({ left: 10, top: 10, right: 5, bottom: 90 }, { width: 640, height: 480 }, { width: 640, height: 480 })).toBeNull();
  expect(ui.placeBox({ left: 10, top: 10, right: 50 }, { width: 640, height: 480 }, { width: 640, height: 480 })).toBeNull();
  expect(ui.placeBox(face, { width: 0, height: 0 }, { width: 640, height: 480 })).toBeNull();
});

it('shows a known person green with the name, a remembered visitor orange with the id, an unknown face red', () => {
  const base = { stream_id: 's', location: face };
  expect(ui.faceView({ ...base, event: 'match', name: 'Alice', label: 'old label' })).toEqual({ kind: 'person', text: 'Alice', colour: '#1b8a3a' });
  expect(ui.faceView({ ...base, event: 'match', label: 'Bob' })).toMatchObject({ kind: 'person', text: 'Bob' });
  expect(ui.faceView({ ...base, event: 'unknown', visitor_id: '0123456789abcdef' })).toEqual({ kind: 'visitor', text: 'visitor 01234567', colour: '#e07b00' });
  expect(ui.faceView({ ...base, event: 'unknown', score: 0.2 })).toEqual({ kind: 'unknown', text: 'unknown', colour: '#d32f2f' });
  expect(ui.faceView({ event: 'match', stream_id: 's', name: 'no box' })).toBeNull();
  expect(ui.presenceNote({ event: 'arrived', stream_id: 's', name: 'Alice' })).toBe('Alice arrived');
  expect(ui.presenceNote({ event: 'left', stream_id: 's', visitor_id: 'abcdef0123' })).toBe('visitor abcdef01 left');
});

it('gives a box its lag: the event\'s own latency plus the time since it was made', () => {
  const now = Date.parse('2026-01-01T00:00:01.000Z');
  expect(ui.lagMs({ latency_ms: 250, time: '2026-01-01T00:00:00.900Z' }, now)).toBe(350);
  expect(ui.lagMs({ latency_ms: 250 }, now)).toBe(250);
});

it('passes face and presence events on without pictures, and drops anything a box cannot be drawn from', () => {
  const match = { event: 'match', location: face, stream_id: 's1', stream_label: 'Door', name: 'Alice', label: 'Alice', latency_ms: 120, time: 't', track: 3, snapshot: Buffer.from('jpeg'), face: Buffer.from('jpeg') };
  expect(slimEvent(match)).toEqual({ event: 'match', location: face, stream_id: 's1', stream_label: 'Door', name: 'Alice', label: 'Alice', latency_ms: 120, time: 't', track: 3 });
  expect(slimEvent({ event: 'left', stream_id: 's1', visitor_id: 'v' })).toEqual({ event: 'left', stream_id: 's1', visitor_id: 'v' });
  expect(slimEvent({ event: 'match', stream_id: 's1' })).toBeUndefined();
  expect(slimEvent({ event: 'match', location: { ...face, right: Number.NaN }, stream_id: 's1' })).toBeUndefined();
  expect(slimEvent({ event: 'status', stream_id: 's1' })).toBeUndefined();
  expect(slimEvent({ event: 'unknown', location: face })).toBeUndefined();
  expect(slimEvent('match')).toBeUndefined();
  expect(slimEvent(null)).toBeUndefined();
});

it('shows a tracked face in its verdict\'s colour with the name, and takes only tracks it can draw', () => {
  const location = { left: 10, top: 20, right: 110, bottom: 140 };
  expect(ui.trackView({ track: 1, location, verdict: 'person', name: 'Alice' })).toEqual({ kind: 'person', text: 'Alice', colour: VERDICT_COLOURS.person });
  expect(ui.trackView({ track: 2, location, verdict: 'visitor', visitor_id: 'abcdef0123' })).toEqual({ kind: 'visitor', text: 'visitor abcdef01', colour: VERDICT_COLOURS.visitor });
  expect(ui.trackView({ track: 3, location, verdict: 'pending' })).toEqual({ kind: 'pending', text: 'deciding', colour: VERDICT_COLOURS.pending });
  const payload = {
    event: 'tracks', stream_id: 's1', frame_time: '2026-01-01T00:00:00.000Z', width: 640, height: 480,
    tracks: [{ track: 1, location, verdict: 'person', name: 'Alice', snapshot: 'x' }, { track: 2, location: { ...location, right: 0 }, verdict: 'unknown' }, { track: 3, location, verdict: 'friend' }],
  };
  expect(ui.tracksOf(payload)?.tracks.map((t) => t.track)).toEqual([1]);
  expect(ui.tracksOf({ ...payload, width: 0 })).toBeNull();
  expect(ui.tracksOf({ ...payload, tracks: 'none' })).toBeNull();
  expect(ui.tracksOf({ ...payload, event: 'match' })).toBeNull();
});

it('carries a moving face\'s box ahead along its motion, by at most a second, inside the picture', () => {
  const picture = { width: 640, height: 480 };
  const before = { left: 100, top: 100, right: 220, bottom: 240 };
  // 20 px right in 500 ms: 40 px/s; carried 700 ms ahead, 28 px further.
  const now = { left: 120, top: 100, right: 240, bottom: 240 };
  expect(ui.leadLocation(before, 0, now, 500, 700, picture)).toEqual({ left: 148, top: 100, right: 268, bottom: 240 });
  // The lead is capped: a face that stops is overshot by at most a second of its motion.
  expect(ui.leadLocation(before, 0, now, 500, 5000, picture)).toEqual({ left: 160, top: 100, right: 280, bottom: 240 });
  // Never out of the picture, where no box would be drawn.
  expect(ui.leadLocation({ ...before, left: 500, right: 620 }, 0, { ...now, left: 510, right: 630 }, 500, 1000, picture)).toEqual({ left: 520, top: 100, right: 640, bottom: 240 });
  // No sample before, samples too far apart, or frame times out of order: the sample's own place.
  expect(ui.leadLocation(undefined, 0, now, 500, 700, picture)).toBe(now);
  expect(ui.leadLocation(before, 0, now, 5000, 700, picture)).toBe(now);
  expect(ui.leadLocation(before, 600, now, 500, 700, picture)).toBe(now);
});

it('shows a still with its age, and takes only an image data: URL with a size', () => {
  const still = { stream_id: 's1', src: 'data:image/jpeg;base64,AAAA', time: '2026-01-01T00:00:00.000Z', width: 640, height: 480 };
  expect(ui.usableStill(still)).toEqual(still);
  expect(ui.usableStill({ ...still, src: 'https://example.com/x.jpg' })).toBeNull();
  expect(ui.usableStill({ ...still, width: 0 })).toBeNull();
  expect(ui.stillAge(still, Date.parse(still.time) + 4_400)).toBe('still, 4 s old');
  expect(ui.stillAge(still, Date.parse(still.time) + 125_000)).toBe('still, 2 min old');
});

it('names the component the same way in the widget package, the node and the built file, which takes the node\'s event names and colours', () => {
  const root = path.join(__dirname, '..', '..');
  const main = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
  const widget = JSON.parse(readFileSync(path.join(root, 'dashboard', 'package.json'), 'utf8')) as Record<string, unknown> & { name: string; files: string[]; peerDependencies: Record<string, string> };
  // Dashboard 2.0 looks for widgets in the user directory's dependencies whose names have this in them.
  expect(widget.name).toBe(WIDGET_SOURCE.package);
  expect(widget.name.startsWith('node-red-dashboard-2-')).toBe(true);
  const block = widget['node-red-dashboard-2'] as { widgets: Record<string, { output: string; component: string }> };
  expect(block.widgets[WIDGET_SOURCE.name]).toEqual({ output: WIDGET_SOURCE.src, component: WIDGET_SOURCE.component });
  expect(widget.files).toEqual(['resources']);
  expect(widget.peerDependencies[main.name as string]).toBe(main.version);
  expect(widget.version).toBe(main.version);
  expect(main['node-red-dashboard-2']).toBeUndefined();
  expect((main['node-red'] as { nodes: Record<string, string> }).nodes[WIDGET_SOURCE.name]).toBe('dist/node-red/live.js');

  // The built file as the dashboard runs it: a UMD script that sets window[name] on the page's Vue.
  const code = readFileSync(buildWidget(), 'utf8');
  const page: Record<string, unknown> = { Vue: vue };
  vm.runInNewContext(code, page);
  const lib = page[WIDGET_SOURCE.name] as Record<string, { name?: string }>;
  expect(lib[WIDGET_SOURCE.component].name).toBe(WIDGET_SOURCE.component);
  // A production build: no source paths of the machine that built it.
  expect(code).not.toContain('__file');
  expect(code).not.toContain(root);
  // Taken from the node's module, not copied by hand.
  for (const shared of [LIVE_TICKET_EVENT, LIVE_STILL_EVENT, ...Object.values(VERDICT_COLOURS)]) expect(code).toContain(shared);
});

it('tells whether the user directory lists the widget package, where Dashboard 2.0 looks for it', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vs-userdir-'));
  try {
    expect(widgetPackageListed(undefined)).toBeUndefined();
    expect(widgetPackageListed(dir)).toBeUndefined();
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ dependencies: { 'n8n-nodes-vision-streaming': '0.1.0' } }));
    expect(widgetPackageListed(dir)).toBe(false);
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ dependencies: { 'n8n-nodes-vision-streaming': '0.1.0', [WIDGET_SOURCE.package]: '0.1.0' } }));
    expect(widgetPackageListed(dir)).toBe(true);
    expect(WIDGET_MISSING).toContain(`npm install ${WIDGET_SOURCE.package}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

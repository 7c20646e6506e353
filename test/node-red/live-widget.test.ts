import { readFileSync } from 'node:fs';
import path from 'node:path';
import { LIVE_TICKET_EVENT, slimEvent, WIDGET_SOURCE } from '../../node-red/live-widget';

// The live view's pure parts: where a box goes over a letterboxed video, what a face event shows,
// which events reach the browsers, and that the server and the component agree on their names.

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the component is a plain UMD file (no build step); Node loads it as CommonJS
const ui = require('../../node-red/ui/vision-streaming-live.umd.js') as {
  TICKET_EVENT: string;
  placeBox(l: object, picture: { width: number; height: number }, shown: { width: number; height: number }): { left: number; top: number; width: number; height: number } | null;
  faceView(e: object): { kind: string; text: string; colour: string } | null;
  presenceNote(e: object): string | null;
  lagMs(e: object, now: number): number;
  VisionStreamingLive: { name: string };
};

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

it('names the component and its socket event the same way on both sides and in package.json', () => {
  const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as Record<string, unknown> & { name: string; files: string[] };
  const block = pkg['node-red-dashboard-2'] as { widgets: Record<string, { output: string; component: string }> };
  expect(block.widgets[WIDGET_SOURCE.name]).toEqual({ output: WIDGET_SOURCE.src, component: WIDGET_SOURCE.component });
  expect(pkg.name).toBe(WIDGET_SOURCE.package);
  expect(pkg.files).toContain('resources');
  expect((pkg['node-red'] as { nodes: Record<string, string> }).nodes['vision-streaming-live']).toBe('dist/node-red/live.js');
  expect(ui.VisionStreamingLive.name).toBe(WIDGET_SOURCE.component);
  expect(ui.TICKET_EVENT).toBe(LIVE_TICKET_EVENT);
});

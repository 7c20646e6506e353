import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CameraPublisher, liveFfmpegChildren, type CameraStatus } from '../../shared/publish';
import { FaceWatcher, type MatchEvent, type WatchEvent } from '../../shared/watch';
import { encodeJpeg } from '../support/images';
import { frame } from '../support/clip';
import { collect, standardScene, startWatchHarness, waitFor, type StandardScene, type WatchHarness } from '../watch/support/room';
import { doorFrames, startMjpegCamera, startRtspCamera, type RtspCamera } from './support/cameras';
import { claimedPng } from '../support/claimed-images';

// A door camera as users have them: an RTSP server on 127.0.0.1 sending H.264 over TCP behind a
// password, showing A (the enrolled astronaut) then nobody, looped, and an
// MJPEG HTTP camera. Each goes through a camera publisher into a sandbox room, to the face watcher.

let h: WatchHarness;
let dir: string;
let scene: StandardScene;
let camera: RtspCamera;
let framesA: Buffer[];

beforeAll(async () => {
  h = await startWatchHarness();
  dir = await mkdtemp(path.join(os.tmpdir(), 'camera-'));
  scene = await standardScene(h);
  // encodeClip leaves the JPEG frames it encoded in <name>-frames: the RTSP camera serves those.
  camera = await startRtspCamera(await doorFrames(dir, scene.people.a));
  const at = { faceSide: 150, cx: 320, cy: 220 };
  framesA = [0, 4, 8].map((dx) => encodeJpeg(frame([{ person: scene.people.a, ...at, cx: at.cx + dx }]), 85));
}, 180_000);

afterAll(async () => {
  await camera?.stop();
  await h?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const matches = (events: WatchEvent[]): MatchEvent[] => events.filter((e): e is MatchEvent => e.event === 'match');
const states = (s: CameraStatus[]): string[] => s.map((x) => x.state);
/** Everything a user could see, pictures left out. */
const shown = (statuses: CameraStatus[], events: WatchEvent[]): string =>
  JSON.stringify([statuses, events.map((e) => ('snapshot' in e ? { ...e, snapshot: null, face: null, snapshot_boxes: null } : e))]);

test('an H.264 RTSP camera relayed as it is: a match with its stream id, back after the camera restarts, no password shown', async () => {
  const room = await h.streaming.createRoom();
  const watcher = new FaceWatcher({ vision: h.vision, streaming: h.streaming, roomId: room.id, collectionId: scene.collectionId, codec: 'H264', decoder: 'wasm', loopbackOnly: true, cooldownSeconds: 0 });
  const events = collect((n, fn) => watcher.on(n, fn));
  const cam = new CameraPublisher({ source: camera.url, codec: 'H264', getTicket: h.streaming.ticketSource(room.id, 'up'), loopbackOnly: true, stallSeconds: 3, maxRetrySeconds: 2 });
  const statuses: CameraStatus[] = [];
  cam.on('status', (s) => statuses.push(s));
  try {
    await watcher.start();
    await cam.start();
    const streamId = cam.streamId!;
    expect(streamId).toBeTruthy();
    await waitFor('live', () => cam.status?.state === 'live', 30_000);
    expect(cam.status).toMatchObject({ relayed: true, codec: 'H264', stream_id: streamId, source: expect.stringContaining('rtsp://door:***@127.0.0.1') });
    await waitFor('a match from the camera', () => matches(events).length > 0, 60_000);
    expect(matches(events)[0]).toMatchObject({ face_id: scene.faceA, stream_id: streamId, room: room.id });

    // The camera reboots: the room session stays, the camera is retried until it answers again.
    await camera.stop();
    await waitFor('camera_lost', () => cam.status?.state === 'camera_lost', 30_000);
    expect(cam.status!.reason).toBeTruthy();
    expect(cam.streamId).toBe(streamId);
    await camera.start();
    const lostAt = statuses.length;
    await waitFor('live again', () => statuses.slice(lostAt).some((s) => s.state === 'live'), 60_000);
    // A match made from a frame sent after the restart (the camera was down for a second or more before).
    const liveAgain = Date.parse(statuses.slice(lostAt).find((s) => s.state === 'live')!.time);
    await waitFor('a match after the restart', () => matches(events).some((m) => Date.parse(m.time) > liveAgain), 60_000);
    expect(matches(events).at(-1)).toMatchObject({ face_id: scene.faceA, stream_id: streamId });
    expect(cam.stats!.retries).toBeGreaterThanOrEqual(1);
  } finally {
    await cam.stop();
    await watcher.stop();
  }
  expect(states(statuses)[0]).toBe('connecting');
  expect(states(statuses)).toEqual(expect.arrayContaining(['live', 'camera_lost']));
  expect(states(statuses).at(-1)).toBe('stopped');
  for (const s of statuses) expect(s.stream_id === null || typeof s.stream_id === 'string').toBe(true);
  const text = shown(statuses, events);
  expect(text).not.toContain(camera.password);
  expect(text).toContain('door:***@');
  expect(liveFfmpegChildren()).toBe(0);
}, 240_000);

test('an MJPEG HTTP camera, encoded to VP8 (the watcher\'s default): a match; wrong password: one clear error, retried, never shown', async () => {
  const mjpeg = await startMjpegCamera(framesA, { fps: 10 });
  const room = await h.streaming.createRoom();
  const watcher = new FaceWatcher({ vision: h.vision, streaming: h.streaming, roomId: room.id, collectionId: scene.collectionId, loopbackOnly: true });
  const events = collect((n, fn) => watcher.on(n, fn));
  const wrong = mjpeg.url.replace(mjpeg.password, 'not-the-Pa55word');
  const refused = new CameraPublisher({ source: wrong, getTicket: h.streaming.ticketSource(room.id, 'up'), loopbackOnly: true, maxRetrySeconds: 1 });
  const refusedStatuses: CameraStatus[] = [];
  const refusedErrors: Error[] = [];
  refused.on('status', (s) => refusedStatuses.push(s));
  refused.on('error', (e) => refusedErrors.push(e));
  const cam = new CameraPublisher({ source: mjpeg.url, getTicket: h.streaming.ticketSource(room.id, 'up'), loopbackOnly: true, width: 640, height: 480 });
  try {
    await watcher.start();
    await refused.start();
    await waitFor('refused', () => refused.status?.state === 'camera_lost', 20_000);
    expect(refused.status!.reason).toMatch(/refused the credentials \(HTTP 401\)/);
    expect(refused.status!.retry_in_ms).toBeLessThanOrEqual(1000);
    // Retried at the capped interval; the error is said once, not at every attempt.
    await waitFor('a second refusal', () => refusedStatuses.filter((s) => s.state === 'camera_lost').length >= 2, 20_000);
    expect(refusedErrors).toHaveLength(1);
    expect(refusedErrors[0]).toMatchObject({ name: 'PublishError', code: 'camera_refused', message: expect.stringMatching(/127\.0\.0\.1.*refused the credentials/) });
    await refused.stop();
    await cam.start();
    await waitFor('a match from the MJPEG camera', () => matches(events).length > 0, 60_000);
    expect(matches(events)[0]).toMatchObject({ face_id: scene.faceA, stream_id: cam.streamId });
    expect(cam.status).toMatchObject({ state: 'live', codec: 'VP8', relayed: false });
  } finally {
    await refused.stop();
    await cam.stop();
    await watcher.stop();
    await mjpeg.stop();
  }
  const text = shown([...refusedStatuses, cam.status!], events) + JSON.stringify(refusedErrors.map((e) => e.message));
  expect(text).not.toContain(mjpeg.password);
  expect(text).not.toContain('not-the-Pa55word');
  expect(liveFfmpegChildren()).toBe(0);
}, 180_000);

test('pictures pushed by the host: bad ones refused, a burst keeps the newest, the last one repeated for late viewers', async () => {
  const room = await h.streaming.createRoom();
  const cam = new CameraPublisher({ getTicket: h.streaming.ticketSource(room.id, 'up'), loopbackOnly: true, fps: 10 });
  expect(() => cam.push(framesA[0])).toThrow(/not started/);
  try {
    await cam.start();
    expect(() => cam.push(Buffer.from('not a picture'))).toThrow(expect.objectContaining({ name: 'InputError', field: 'payload' }));
    expect(() => cam.push('a string' as never)).toThrow(/not a JPEG or PNG/);
    // A picture is checked for its pixel count before it reaches the encoder.
    expect(() => cam.push(claimedPng(16000, 16000))).toThrow(expect.objectContaining({ name: 'InputError', field: 'payload', limit: expect.stringMatching(/pixels/) }));
    // A burst far faster than an encoder: older pictures are dropped, never queued.
    for (let i = 0; i < 60; i++) cam.push(framesA[i % framesA.length]);
    await waitFor('live', () => cam.status?.state === 'live', 20_000);
    const s = cam.stats!;
    expect(s.images).toBe(60);
    expect(s.dropped).toBeGreaterThan(30);
    // Nothing more is pushed: the last picture still goes out about once a second.
    const frames = s.frames;
    await new Promise((r) => setTimeout(r, 2600));
    expect(cam.stats!.frames - frames).toBeGreaterThanOrEqual(2);
    expect(cam.stats!.frames - frames).toBeLessThanOrEqual(4);
  } finally {
    await cam.stop();
  }
  expect(cam.status?.state).toBe('stopped');
  expect(liveFfmpegChildren()).toBe(0);
}, 60_000);

import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Agent } from 'undici';
import { startSandbox, type RunningSandbox } from '../../../sandbox';
import { openVideoSource, Publisher } from '../../../shared/publish';
import { StreamingClient } from '../../../shared/streaming';
import { VisionClient } from '../../../shared/vision';
import type { WatchEvent } from '../../../shared/watch';
import { astronautFaceOfSize, mirrorJpeg } from '../../support/images';
import { encodeClip, faceOfB, loadPeople, standardSegments, type People, type Segment } from '../../support/clip';
import { closingItsSource } from '../../streaming/support/peers';

/** A sandbox with a vision and a streaming client logged in to it. */
export interface WatchHarness {
  sandbox: RunningSandbox;
  vision: VisionClient;
  streaming: StreamingClient;
  /** Client credentials plus the harness's own dispatcher (closed by stop(), so no keep-alive outlives the file). */
  credentials: { authUrl: string; clientId: string; clientSecret: string; dispatcher: Agent };
  stop(): Promise<void>;
}

/** Starts a sandbox on a free loopback port and the two clients. */
export async function startWatchHarness(): Promise<WatchHarness> {
  const sandbox = await startSandbox({ host: '127.0.0.1', port: 0, eagerModel: true, streaming: { countDelayMs: 0 } });
  const dispatcher = new Agent();
  const credentials = { authUrl: sandbox.url, clientId: 'sandbox-client', clientSecret: 'sandbox-secret', dispatcher };
  const retry = { retries: 6, baseDelayMs: 10, maxDelayMs: 100 };
  const vision = new VisionClient({ ...credentials, visionUrl: sandbox.url, retry });
  const streaming = new StreamingClient({ ...credentials, sfuUrl: sandbox.url, retry });
  return {
    sandbox,
    vision,
    streaming,
    credentials,
    async stop() {
      await vision.close();
      await streaming.close();
      await dispatcher.close();
      await sandbox.stop();
    },
  };
}

/** Publishes a clip file (looped) into a room over loopback WebRTC. */
export async function publishClip(h: WatchHarness, roomId: string, file: string, fps = 10): Promise<Publisher> {
  const source = await openVideoSource({ file, loop: true, fps });
  const publisher = closingItsSource(new Publisher({ source, getTicket: h.streaming.ticketSource(roomId, 'up'), loopbackOnly: true, rejoin: { baseDelayMs: 50, maxDelayMs: 300 } }), source);
  await publisher.start();
  return publisher;
}

/** Collects a watcher's events in order. */
export function collect(on: (name: WatchEvent['event'], fn: (e: WatchEvent) => void) => unknown): WatchEvent[] {
  const events: WatchEvent[] = [];
  for (const name of ['match', 'unknown', 'arrived', 'left', 'status', 'error'] as const) on(name, (e) => events.push(e));
  return events;
}

/** Resolves when `predicate` holds (polled every 50 ms); rejects after `timeoutMs` naming `what`. */
export async function waitFor(what: string, predicate: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) {
      // A process held off the CPU wakes with its timers first: the I/O that came meanwhile is read
      // before the wait is called lost (a loaded machine once ended a 5 s wait that way).
      await new Promise((r) => setImmediate(r));
      if (predicate()) return;
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits a fixed span: only for "nothing more happens in this window" checks. */
export function during(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** The standard scene: the two people, a collection that holds A, and the standard clip's segments. */
export interface StandardScene {
  people: People;
  collectionId: string;
  /** A's face_id, enrolled from another image of A (a mirrored, differently scaled crop of the same photo). */
  faceA: string;
  /** A 3 s, then B 3 s, then nobody 2 s (loop it by publishing the file looped). */
  segments: Segment[];
}

/** Enrols A in a new collection and describes the standard clip (A, then a stranger B, then nobody). */
export async function standardScene(h: WatchHarness): Promise<StandardScene> {
  const people = loadPeople(await faceOfB((jpeg) => h.vision.detectFaces(jpeg)));
  const collectionId = (await h.vision.createCollection()).collectionId;
  const faceA = (await h.vision.addFace(collectionId, mirrorJpeg(astronautFaceOfSize(220)))).faceId;
  const segments = standardSegments(people.a, people.b);
  return { people, collectionId, faceA, segments };
}

/** How long one loop of a clip of these segments lasts, in ms. */
export function loopMs(segments: Segment[]): number {
  return segments.reduce((total, s) => total + s.seconds * 1000, 0);
}

/** What useStandardScene made for a test file. */
export interface SceneSetup {
  h: WatchHarness;
  /** A fresh folder of the file's own, removed after its tests. */
  dir: string;
  scene: StandardScene;
  /** The standard clip, encoded in `dir`. */
  clip: string;
}

/**
 * For a test file: a harness, a fresh folder, the standard scene and its clip, made before the file's
 * tests and handed to `ready` (which may add what the file needs); stopped and removed after them.
 */
export function useStandardScene(prefix: string, timeoutMs: number, ready: (setup: SceneSetup) => void | Promise<void>): void {
  const made: Partial<SceneSetup> = {};
  beforeAll(async () => {
    const h = (made.h = await startWatchHarness());
    const dir = (made.dir = await mkdtemp(path.join(os.tmpdir(), prefix)));
    const scene = await standardScene(h);
    await ready({ h, dir, scene, clip: await encodeClip(dir, 'standard', scene.segments) });
  }, timeoutMs);
  afterAll(async () => {
    await made.h?.stop();
    if (made.dir) await rm(made.dir, { recursive: true, force: true });
  });
}

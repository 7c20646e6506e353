/**
 * The test RTSP camera (test/support/rtsp-camera.ts) in a child process, for benchmarks: its work
 * is then neither on the benchmark's JS thread nor in the CPU time the benchmark counts.
 */
import { fork } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { startRtspCameraServer } from '../../test/support/rtsp-camera';

const CHILD_FLAG = '--camera-child';

/** Settings of the camera child: an H.264 Annex-B clip file and how to serve it. */
export interface CameraChildOptions {
  clipFile: string;
  fps: number;
  user: string;
  password: string;
}

/** A camera running in a child process. */
export interface CameraChild {
  /** rtsp://user:password@127.0.0.1:port/stream1 */
  readonly url: string;
  /** Stops the camera and waits for the child to exit. */
  stop(): Promise<void>;
}

/** Forks this module as a child serving the clip on 127.0.0.1. */
export async function forkCamera(options: CameraChildOptions): Promise<CameraChild> {
  const child = fork(__filename, [CHILD_FLAG, JSON.stringify(options)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { type: string; port: number }) => (m.type === 'ready' ? resolve(m.port) : reject(new Error('camera child failed'))));
    child.once('exit', (code) => reject(new Error(`camera child exited with ${code}`)));
  });
  return {
    url: `rtsp://${options.user}:${options.password}@127.0.0.1:${port}/stream1`,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.send({ type: 'stop' });
      await exited;
    },
  };
}

/** In the child: serve the clip until told to stop or the parent goes away. */
async function runChild(o: CameraChildOptions): Promise<void> {
  const camera = await startRtspCameraServer({ clip: await readFile(o.clipFile), fps: o.fps, user: o.user, password: o.password, path: '/stream1' });
  const stop = (): void => void camera.stop().then(() => process.exit(0));
  process.on('message', (msg: { type: string }) => msg.type === 'stop' && stop());
  // A parent that dies (crash, Ctrl-C) closes the IPC channel: the child must not outlive it.
  process.on('disconnect', stop);
  process.send?.({ type: 'ready', port: camera.port });
}

if (require.main === module && process.argv[2] === CHILD_FLAG) {
  runChild(JSON.parse(process.argv[3] ?? '{}') as CameraChildOptions).catch((err: unknown) => {
    console.error('camera child failed:', err instanceof Error ? err.message : String(err));
    process.exit(1);
  });
}

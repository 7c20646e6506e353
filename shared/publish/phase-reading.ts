import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { AccessUnitSplitter } from '../frames/access-units';
import { IvfReader } from '../frames/ivf';
import { phaseFd } from './phase-outputs';

/** The pipes an ffmpeg child writes its phases to, in phase order (it was spawned with that many outputs). */
export function phaseStreams(child: ChildProcess, count: number): Readable[] {
  return Array.from({ length: count }, (_, i) => child.stdio[phaseFd(i)] as Readable);
}

/** The encoded frames of one ffmpeg output: IVF frames (VP8/VP9), else H.264 Annex-B access units. */
export async function* encodedFrames(stream: Readable, ivf: boolean): AsyncGenerator<Buffer> {
  const reader = ivf ? new IvfReader() : undefined;
  const splitter = ivf ? undefined : new AccessUnitSplitter();
  for await (const chunk of stream) {
    yield* reader ? reader.push(chunk as Buffer).map((f) => f.data) : splitter!.push(chunk as Buffer);
  }
  if (splitter) yield* splitter.flush();
}

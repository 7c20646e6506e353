import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ALL_FORMATS, BufferSource, EncodedPacketSink, Input } from 'mediabunny';
import { runFfmpeg } from '../../streaming/support/ffmpeg';

/** What a clip file holds, as a demuxer (mediabunny's Input) and a decoder (the dev ffmpeg) read it. */
export interface ProbedClip {
  /** 'vp8' | 'vp9' | 'avc' */
  codec: string | null;
  width: number;
  height: number;
  durationS: number;
  packets: number;
  firstIsKey: boolean;
  /** Pictures the dev ffmpeg decoded from the file, and what it complained of. */
  decoded: number;
  errors: string;
}

const run = promisify(execFile);

/** Reads a clip file with mediabunny's demuxer and decodes it with the dev ffmpeg. */
export async function probeClip(data: Buffer, container: 'webm' | 'mp4'): Promise<ProbedClip> {
  const input = new Input({ source: new BufferSource(data), formats: ALL_FORMATS });
  try {
    const track = await input.getPrimaryVideoTrack();
    if (!track) throw new Error('no video track');
    const sink = new EncodedPacketSink(track);
    let packets = 0;
    let firstIsKey = false;
    for await (const p of sink.packets()) {
      if (packets === 0) firstIsKey = p.type === 'key';
      packets++;
    }
    const durationS = await track.computeDuration();
    const r = await runFfmpeg(['-v', 'error', '-f', container === 'mp4' ? 'mp4' : 'matroska', '-i', 'pipe:0', '-f', 'framecrc', 'pipe:1'], data);
    const decoded = r.stdout.toString().split('\n').filter((l) => l.length > 0 && !l.startsWith('#')).length;
    return { codec: track.codec, width: track.codedWidth, height: track.codedHeight, durationS, packets, firstIsKey, decoded, errors: r.code === 0 ? r.stderr.trim() : `exit ${r.code}: ${r.stderr.trim()}` };
  } finally {
    input.dispose();
  }
}

/** What ffprobe reads of a clip file: its container's duration and codec, and whether its first frame is a key frame. */
export interface FfprobedClip {
  durationS: number;
  codec: string;
  width: number;
  height: number;
  firstFrameKey: boolean;
}

/**
 * The dev ffprobe (@ffprobe-installer/linux-x64) as a runnable file: its package makes it executable in
 * an install script, which this project's installs do not run, so a copy with the mode set is kept in
 * the temporary folder. Undefined where the package is not installed (another platform).
 */
export async function ffprobePath(): Promise<string | undefined> {
  let packaged: string;
  try {
    packaged = path.join(path.dirname(require.resolve('@ffprobe-installer/linux-x64/package.json')), 'ffprobe');
  } catch {
    return undefined;
  }
  const size = (await fs.stat(packaged)).size;
  const copy = path.join(os.tmpdir(), `vision-streaming-test-ffprobe-${process.getuid?.() ?? 0}-${size}`);
  const held = await fs.stat(copy).catch(() => undefined);
  if (held?.size !== size) {
    const part = `${copy}.${process.pid}`;
    await fs.copyFile(packaged, part);
    await fs.chmod(part, 0o755);
    await fs.rename(part, copy);
  }
  return copy;
}

/** Reads a clip file with ffprobe (from a file: an MP4's index may come after its frames). */
export async function ffprobeClip(binary: string, data: Buffer, container: 'webm' | 'mp4'): Promise<FfprobedClip> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'vs-ffprobe-'));
  try {
    const file = path.join(dir, `clip.${container}`);
    await fs.writeFile(file, data);
    const args = ['-v', 'error', '-of', 'json', '-select_streams', 'v:0', '-show_entries', 'format=duration:stream=codec_name,width,height:frame=key_frame', '-read_intervals', '%+#1', '-show_frames', file];
    const { stdout } = await run(binary, args);
    const out = JSON.parse(stdout) as { format: { duration: string }; streams: { codec_name: string; width: number; height: number }[]; frames: { key_frame: number }[] };
    return { durationS: Number(out.format.duration), codec: out.streams[0].codec_name, width: out.streams[0].width, height: out.streams[0].height, firstFrameKey: out.frames[0]?.key_frame === 1 };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

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

/** Reads a clip file with mediabunny's demuxer and decodes it with the dev ffmpeg (there is no ffprobe). */
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

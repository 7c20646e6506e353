import { H264Packetizer, RtpPacket, Vp8Packetizer, Vp9Packetizer } from 'werift';
import {
  AccessUnitSplitter,
  FrameAssembler,
  H264ParameterCache,
  IvfReader,
  nalType,
  parseVp8Frame,
  joinVp8Payloads,
  splitAnnexB,
  joinAnnexB,
  type EncodedFrame,
  type KeyframeReason,
  type VideoCodec,
} from '../../shared/frames';
import { ivfFileHeader, ivfFrameHeader } from '../../shared/frames/ivf';
import { ReorderBuffer } from '../../shared/frames/reorder';
import { decodeFrames, encodeTestPattern } from './support/ffmpeg';

interface Source {
  data: Buffer;
  ts: number;
}

function packetize(codec: VideoCodec, frames: Source[], sequenceNumber = 65500): RtpPacket[] {
  const opts = { maxPayloadSize: 400, payloadType: 96, ssrc: 1234, sequenceNumber };
  const p = codec === 'VP8' ? new Vp8Packetizer(opts) : codec === 'VP9' ? new Vp9Packetizer(opts) : new H264Packetizer(opts);
  // Round trip through bytes so the assembler sees what a socket would deliver.
  return frames.flatMap((f) => p.packetize(f.data, f.ts).map((pkt) => RtpPacket.deSerialize(pkt.serialize())));
}

function assemble(codec: VideoCodec, packets: RtpPacket[]): { frames: EncodedFrame[]; requests: KeyframeReason[] } {
  const frames: EncodedFrame[] = [];
  const requests: KeyframeReason[] = [];
  const a = new FrameAssembler({ codec, onFrame: (f) => frames.push(f), onKeyframeNeeded: (r) => requests.push(r), reorderWindow: 8 });
  for (const p of packets) a.push(p);
  return { frames, requests };
}

async function ivfSources(codec: 'VP8' | 'VP9', n: number): Promise<Source[]> {
  const reader = new IvfReader();
  const frames = reader.push(await encodeTestPattern({ codec, frames: n, gop: 10 }));
  // Start the RTP clock near the 32-bit wrap to exercise unwrapping.
  return frames.map((f, i) => ({ data: f.data, ts: (0xfffff000 + i * 3000) >>> 0 }));
}

async function h264Sources(n: number, slices?: number): Promise<Source[]> {
  const splitter = new AccessUnitSplitter();
  const stream = await encodeTestPattern({ codec: 'H264', frames: n, gop: 10, slices });
  // Feed in odd-sized chunks as a pipe would.
  const aus: Buffer[] = [];
  for (let i = 0; i < stream.length; i += 777) aus.push(...splitter.push(stream.subarray(i, i + 777)));
  aus.push(...splitter.flush());
  return aus.map((data, i) => ({ data, ts: i * 3000 }));
}

describe('frame parsing', () => {
  test('IVF frame records written header by header read back whole, timestamps past 32 bits included', () => {
    const frames = [
      { data: Buffer.from('first'), pts: 0 },
      { data: Buffer.from('second frame'), pts: 2 ** 40 + 7 },
      { data: Buffer.alloc(0), pts: 3.6 },
    ];
    const reader = new IvfReader();
    const chunks = [ivfFileHeader({ codec: 'VP8', width: 4, height: 2, timebaseDen: 90000, timebaseNum: 1 }), ...frames.flatMap((f) => [ivfFrameHeader(f.data.length, f.pts), f.data])];
    const out = reader.push(Buffer.concat(chunks));
    expect(out.map((f) => [f.data.toString(), f.pts])).toEqual([['first', 0], ['second frame', 2 ** 40 + 7], ['', 4]]);
  });

  test('VP8 key frames are recognised from the bitstream, with their size', async () => {
    const src = await ivfSources('VP8', 25);
    expect(src).toHaveLength(25);
    const keys = src.map((s, i) => (parseVp8Frame(s.data).isKeyframe ? i : -1)).filter((i) => i >= 0);
    expect(keys).toEqual([0, 10, 20]);
    expect(parseVp8Frame(src[0].data)).toEqual({ isKeyframe: true, width: 320, height: 240 });
    // A delta frame whose tag bit is forced to 0 is still no key frame without the start code.
    const forged = Buffer.from(src[1].data);
    forged[0] &= 0xfe;
    expect(parseVp8Frame(forged).isKeyframe).toBe(false);
  });

  test('VP8 payload descriptors of every shape are taken off (RFC 7741)', () => {
    const data = [Buffer.from([1, 2, 3]), Buffer.from([4, 5]), Buffer.from([6])];
    const descriptors: Record<string, number[]> = {
      'no extension': [0x10],
      '7-bit picture id': [0x90, 0x80, 0x05],
      '15-bit picture id': [0x90, 0x80, 0x85, 0x21],
      TL0PICIDX: [0x90, 0x40, 0x07],
      'TID and KEYIDX': [0x90, 0x30, 0x41],
      'TID only': [0x90, 0x20, 0x40],
      everything: [0x90, 0xf0, 0xff, 0xff, 0x07, 0x41],
    };
    for (const [name, d] of Object.entries(descriptors)) {
      const payloads = data.map((part, i) => Buffer.concat([Buffer.from(i === 0 ? d : [d[0] & ~0x10, ...d.slice(1)]), part]));
      expect([name, joinVp8Payloads(payloads)]).toEqual([name, Buffer.from([1, 2, 3, 4, 5, 6])]);
    }
    // A payload with no byte of frame data after its descriptor makes the picture unusable.
    expect(joinVp8Payloads([Buffer.from([0x90, 0x80, 0x85, 0x21])])).toBeUndefined();
    expect(joinVp8Payloads([Buffer.from([0x10, 1]), Buffer.alloc(0)])).toBeUndefined();
  });

  test('H264 streams split into one access unit per picture', async () => {
    const src = await h264Sources(25);
    expect(src).toHaveLength(25);
    const cache = new H264ParameterCache();
    const keys = src.map((s, i) => (cache.process(s.data).isKeyframe ? i : -1)).filter((i) => i >= 0);
    expect(keys).toEqual([0, 10, 20]);
  });

  test('an IDR without parameter sets is a key frame only once SPS/PPS are known, and gets them prepended', async () => {
    const src = await h264Sources(12);
    const idr = src[10].data;
    const stripped = joinAnnexB(splitAnnexB(idr).filter((u) => nalType(u) !== 7 && nalType(u) !== 8));
    expect(new H264ParameterCache().process(stripped).isKeyframe).toBe(false);
    const cache = new H264ParameterCache();
    cache.process(src[0].data);
    const fixed = cache.process(stripped);
    expect(fixed.isKeyframe).toBe(true);
    expect(fixed).toMatchObject({ width: 320, height: 240 });
    expect(splitAnnexB(fixed.data).map(nalType).filter((t) => t === 7 || t === 8)).toEqual([7, 8]);
  });
});

describe('RTP to frames', () => {
  test.each(['VP8', 'VP9'] as const)('%s frames come out byte-identical and decodable', async (codec) => {
    const src = await ivfSources(codec, 30);
    const { frames, requests } = assemble(codec, packetize(codec, src));
    expect(requests).toEqual(['start']);
    expect(frames.map((f) => f.data)).toEqual(src.map((s) => s.data));
    expect(frames.filter((f) => f.isKeyframe)).toHaveLength(3);
    expect(frames[0]).toMatchObject({ codec, width: 320, height: 240, isKeyframe: true });
    // Timestamps grow across the 32-bit wrap.
    for (let i = 1; i < frames.length; i++) expect(frames[i].timestamp - frames[i - 1].timestamp).toBe(3000);
    const dec = await decodeFrames(frames);
    expect(dec).toEqual({ decoded: 30, errors: '' });
  });

  test('H264 access units come out decodable, with SPS/PPS present on key frames', async () => {
    const src = await h264Sources(30);
    const { frames } = assemble('H264', packetize('H264', src));
    expect(frames).toHaveLength(30);
    expect(frames.filter((f) => f.isKeyframe)).toHaveLength(3);
    expect(frames[0]).toMatchObject({ width: 320, height: 240 });
    const dec = await decodeFrames(frames);
    expect(dec).toEqual({ decoded: 30, errors: '' });
  });

  test('loss holds frames back until the next key frame and asks for one', async () => {
    const src = await ivfSources('VP8', 30);
    const packets = packetize('VP8', src);
    // Drop one packet of frame 3; reorder a pair elsewhere (must not count as loss).
    const frame3 = packets.findIndex((p) => p.header.timestamp === src[3].ts);
    const kept = packets.filter((_, i) => i !== frame3);
    const j = kept.findIndex((p) => p.header.timestamp === src[15].ts);
    [kept[j], kept[j + 1]] = [kept[j + 1], kept[j]];
    const { frames, requests } = assemble('VP8', kept);
    expect(requests).toEqual(['start', 'loss']);
    const got = frames.map((f) => src.findIndex((s) => s.ts === (f.timestamp >>> 0)));
    expect(got).toEqual([0, 1, 2, ...Array.from({ length: 20 }, (_, i) => i + 10)]);
    expect((await decodeFrames(frames)).errors).toBe('');
  });

  test('a stream joined mid-GOP starts at the first real key frame', async () => {
    const src = await ivfSources('VP8', 25);
    const packets = packetize('VP8', src.slice(4));
    const { frames } = assemble('VP8', packets);
    expect(frames[0].isKeyframe).toBe(true);
    expect(frames).toHaveLength(15);
  });
});

describe('loss inside a picture and restarted senders', () => {
  const sources = (codec: VideoCodec, n: number): Promise<Source[]> => (codec === 'H264' ? h264Sources(n, 2) : ivfSources(codec, n));
  const indexOf = (src: Source[], f: EncodedFrame): number => src.findIndex((s) => s.ts === f.timestamp % 0x100000000);

  test.each(['H264', 'VP8', 'VP9'] as const)('%s: a packet lost in the middle of a key frame drops the whole picture and PLIs go on', async (codec) => {
    const src = await sources(codec, 25);
    if (codec === 'H264') {
      // Two slices per picture: the IDR's second slice alone must not pass for a key frame.
      expect(splitAnnexB(src[10].data).filter((u) => nalType(u) === 5)).toHaveLength(2);
    }
    const packets = packetize(codec, src);
    const ofKey = packets.filter((p) => p.header.timestamp === src[10].ts);
    expect(ofKey.length).toBeGreaterThanOrEqual(3);
    const lost = ofKey[Math.floor(ofKey.length / 2)];
    const frames: EncodedFrame[] = [];
    const requests: KeyframeReason[] = [];
    const a = new FrameAssembler({ codec, onFrame: (f) => frames.push(f), onKeyframeNeeded: (r) => requests.push(r), reorderWindow: 8 });
    const waitingDuringGop: boolean[] = [];
    for (const p of packets) {
      if (p === lost) continue;
      a.push(p);
      if (p.header.timestamp === src[15].ts && p.header.marker) waitingDuringGop.push(a.waitingForKeyframe);
    }
    expect(requests).toEqual(['start', 'loss']);
    // Still waiting halfway through the broken GOP, so the session keeps sending PLIs.
    expect(waitingDuringGop).toEqual([true]);
    expect(frames.map((f) => indexOf(src, f))).toEqual([...Array.from({ length: 10 }, (_, i) => i), 20, 21, 22, 23, 24]);
    expect(frames.filter((f) => f.isKeyframe).map((f) => indexOf(src, f))).toEqual([0, 20]);
    expect((await decodeFrames(frames)).errors).toBe('');
  });

  test('a packet lost at the start of a picture: the rest of that picture is not taken for a frame', async () => {
    const src = await ivfSources('VP8', 25);
    const packets = packetize('VP8', src);
    const firstOfKey = packets.findIndex((p) => p.header.timestamp === src[10].ts);
    const { frames, requests } = assemble('VP8', packets.filter((_, i) => i !== firstOfKey));
    expect(requests).toEqual(['start', 'loss']);
    expect(frames.map((f) => indexOf(src, f))).toEqual([...Array.from({ length: 10 }, (_, i) => i), 20, 21, 22, 23, 24]);
  });

  test('a sender that restarts with lower sequence numbers is followed from its next key frame', async () => {
    const src = await ivfSources('VP8', 30);
    const before = packetize('VP8', src.slice(0, 15), 30000);
    const after = packetize('VP8', src.slice(15), 100);
    const { frames, requests } = assemble('VP8', [...before, ...after]);
    expect(requests).toEqual(['start', 'loss']);
    expect(frames.map((f) => indexOf(src, f))).toEqual([...Array.from({ length: 15 }, (_, i) => i), ...Array.from({ length: 10 }, (_, i) => i + 20)]);
    expect((await decodeFrames(frames)).errors).toBe('');
  });

  test('a forward jump in the middle of a key frame reports loss instead of emitting half a frame', async () => {
    const src = await ivfSources('VP8', 30);
    const head = packetize('VP8', src.slice(0, 11), 1000);
    const ofKey = head.filter((p) => p.header.timestamp === src[10].ts);
    expect(ofKey.length).toBeGreaterThanOrEqual(2);
    const cut = head.slice(0, head.length - Math.ceil(ofKey.length / 2));
    const tail = packetize('VP8', src.slice(11), 1000 + 20000);
    const { frames, requests } = assemble('VP8', [...cut, ...tail]);
    expect(requests).toEqual(['start', 'loss']);
    expect(frames.map((f) => indexOf(src, f))).toEqual([...Array.from({ length: 10 }, (_, i) => i), ...Array.from({ length: 10 }, (_, i) => i + 20)]);
    expect((await decodeFrames(frames)).errors).toBe('');
  });

  test('the reorder buffer ignores one stray far-off packet but follows a confirmed jump', () => {
    const buf = new ReorderBuffer<number>((n) => n, 8);
    for (let s = 1; s <= 10; s++) expect(buf.push(s)).toEqual({ ready: [s] });
    expect(buf.push(40000)).toEqual({ ready: [] });
    expect(buf.push(11)).toEqual({ ready: [11] });
    expect(buf.push(5)).toEqual({ ready: [] }); // late: dropped
    expect(buf.push(20000)).toEqual({ ready: [] });
    expect(buf.push(20001)).toEqual({ ready: [], restart: [20000, 20001] });
    // Backwards by a little, many times in a row: the sender started again just behind.
    const b = new ReorderBuffer<number>((n) => n, 4);
    for (let s = 500; s < 510; s++) b.push(s);
    const outs = [490, 491, 492, 493].map((s) => b.push(s));
    expect(outs.slice(0, 3)).toEqual([{ ready: [] }, { ready: [] }, { ready: [] }]);
    expect(outs[3]).toEqual({ ready: [], restart: [493] });
  });
});

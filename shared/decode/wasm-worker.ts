/*
 * Worker thread of the wasm backend, shared by several streams (wasm-pool.ts): each stream's
 * decoder is a wasm instance of its own here, so that the synchronous wasm decoders never block the
 * host's event loop while the thread (most of a worker's memory) is paid once for many streams. The
 * pictures asked for leave as RGB, converted here: a whole frame's conversion is the largest piece
 * of a sample's work, and here it does not hold up the host. In development Node runs this file
 * straight from TypeScript (types stripped): so it is CommonJS without import statements, and
 * compiles the package's modules it requires with the TypeScript compiler.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parentPort } = require('node:worker_threads') as typeof import('node:worker_threads');
if (__filename.endsWith('.ts')) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('../util/compile-on-require.ts') as { compileTypeScriptOnRequire(): void }).compileTypeScriptOnRequire();
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { toRaw } = require('../picture/convert') as typeof import('../picture/convert');
type DecodeRequest = import('./wasm-protocol').DecodeRequest;
type VideoCodec = import('../frames/types').VideoCodec;
type WorkerReply = import('./wasm-protocol').WorkerReply;

/** One decoder library behind the calls the worker needs. */
interface WasmCodec {
  /** Decodes one frame; returns the shown picture as tight I420, or undefined when none came out. */
  decode(units: Uint8Array[], want: boolean, width?: number, height?: number): { width: number; height: number; data: Uint8Array } | undefined;
}

interface OgvPlane {
  bytes: Uint8Array;
  stride: number;
}
interface OgvFrameBuffer {
  format: { cropLeft: number; cropTop: number; cropWidth: number; cropHeight: number };
  y: OgvPlane;
  u: OgvPlane;
  v: OgvPlane;
}
interface OgvModule {
  init(done: () => void): void;
  processFrame(data: ArrayBuffer, done: (ok: number) => void): void;
  frameBuffer: OgvFrameBuffer | null;
  recycleFrame(frame: OgvFrameBuffer): void;
}
type OgvFactory = (options: { videoFormat: object }) => Promise<OgvModule>;

interface H264Lib {
  H264Decoder: new () => { decode(nalu: Uint8Array): number; width: number; height: number; pic: Uint8Array };
}

// ogv's decoders: the VP9 one with SIMD (every Node that runs this package has wasm SIMD).
const OGV_MODULE = { VP8: 'ogv/dist/ogv-decoder-video-vp8-wasm.js', VP9: 'ogv/dist/ogv-decoder-video-vp9-simd-wasm.js' } as const;
const H264_PIC_RDY = 1;
// h264decoder copies each unit into a 1 MiB buffer inside its wasm memory.
const H264_MAX_UNIT = 1024 * 1024;

async function ogvCodec(codec: 'VP8' | 'VP9'): Promise<WasmCodec> {
  const imported = (await import(OGV_MODULE[codec])) as { default: OgvFactory };
  // videoFormat must be given at creation: the frame callback reads it and crashes on null.
  const mod = await imported.default({ videoFormat: {} });
  await new Promise<void>((resolve) => mod.init(resolve));
  return {
    decode(units, want) {
      mod.frameBuffer = null;
      const data = units[0];
      let ok = 0;
      // ogv's wasm build is synchronous: the callback runs before processFrame returns.
      mod.processFrame(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer, (r) => (ok = r));
      const fb = mod.frameBuffer as OgvFrameBuffer | null;
      if (!ok || !fb) return undefined;
      const picture = want ? packOgv(fb) : undefined;
      mod.recycleFrame(fb);
      return picture;
    },
  };
}

function packOgv(fb: OgvFrameBuffer): { width: number; height: number; data: Uint8Array } {
  const { cropLeft, cropTop, cropWidth: w, cropHeight: h } = fb.format;
  const cw = (w + 1) >> 1;
  const ch = (h + 1) >> 1;
  const out = new Uint8Array(w * h + 2 * cw * ch);
  copyPlane(fb.y, cropLeft, cropTop, w, h, out, 0);
  copyPlane(fb.u, cropLeft >> 1, cropTop >> 1, cw, ch, out, w * h);
  copyPlane(fb.v, cropLeft >> 1, cropTop >> 1, cw, ch, out, w * h + cw * ch);
  return { width: w, height: h, data: out };
}

function copyPlane(plane: OgvPlane, left: number, top: number, w: number, h: number, out: Uint8Array, at: number): void {
  for (let row = 0; row < h; row++) {
    const from = (top + row) * plane.stride + left;
    out.set(plane.bytes.subarray(from, from + w), at + row * w);
  }
}

async function h264Codec(): Promise<WasmCodec> {
  const imported = (await import('h264decoder')) as H264Lib & { default?: H264Lib };
  const Decoder = imported.H264Decoder ?? imported.default?.H264Decoder;
  const dec = new Decoder();
  return {
    decode(units, want, width, height) {
      let ready = false;
      for (const unit of units) {
        if (unit.byteLength > H264_MAX_UNIT) return undefined;
        if (dec.decode(unit) === H264_PIC_RDY) ready = true;
      }
      if (!ready || !want) return undefined;
      // The decoder's picture is macroblock-aligned; the SPS size cuts the padding off.
      const w = Math.min(width ?? dec.width, dec.width);
      const h = Math.min(height ?? dec.height, dec.height);
      return { width: w, height: h, data: cropI420(dec.pic, dec.width, dec.height, w, h) };
    },
  };
}

function cropI420(src: Uint8Array, sw: number, sh: number, w: number, h: number): Uint8Array {
  if (w === sw && h === sh) return src.slice(0, w * h * 1.5);
  const cw = (w + 1) >> 1;
  const ch = (h + 1) >> 1;
  const scw = sw >> 1;
  const out = new Uint8Array(w * h + 2 * cw * ch);
  copyPlane({ bytes: src, stride: sw }, 0, 0, w, h, out, 0);
  copyPlane({ bytes: src.subarray(sw * sh), stride: scw }, 0, 0, cw, ch, out, w * h);
  copyPlane({ bytes: src.subarray(sw * sh + scw * (sh >> 1)), stride: scw }, 0, 0, cw, ch, out, w * h + cw * ch);
  return out;
}

/** A tight I420 picture as interleaved RGB, in a buffer of its own (to be transferred). */
function toRgb(p: { width: number; height: number; data: Uint8Array }): Uint8Array {
  const { data } = toRaw({ ...p, format: 'i420', timestamp: 0 });
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

function post(reply: WorkerReply, transfer: ArrayBuffer[] = []): void {
  parentPort?.postMessage(reply, transfer);
}

/** The decoders of this worker, by the id their host gave them; a promise while one loads. */
const decoders = new Map<number, WasmCodec | Promise<WasmCodec | undefined>>();

async function open(id: number, codec: VideoCodec): Promise<void> {
  const loading = (codec === 'H264' ? h264Codec() : ogvCodec(codec)).then(
    (decoder) => decoder,
    (err: unknown) => {
      post({ type: 'failed', id, message: err instanceof Error ? err.message : String(err) });
      return undefined;
    },
  );
  decoders.set(id, loading);
  const decoder = await loading;
  // Closed while it loaded: it is dropped.
  if (decoders.get(id) !== loading) return;
  if (!decoder) {
    decoders.delete(id);
    return;
  }
  decoders.set(id, decoder);
  post({ type: 'ready', id });
}

parentPort?.on('message', (req: DecodeRequest) => {
  if (req.type === 'open') {
    void open(req.id, req.codec);
    return;
  }
  if (req.type === 'close') {
    decoders.delete(req.id);
    return;
  }
  const decoder = decoders.get(req.id);
  // Frames come only once the decoder said it is ready; one closed meanwhile gets no answer.
  if (!decoder || decoder instanceof Promise) return;
  try {
    const i420 = decoder.decode(req.units, req.want, req.width, req.height);
    const picture = i420 && { width: i420.width, height: i420.height, data: toRgb(i420) };
    post({ type: 'done', id: req.id, seq: req.seq, picture }, picture ? [picture.data.buffer as ArrayBuffer] : []);
  } catch (err) {
    post({ type: 'done', id: req.id, seq: req.seq, error: err instanceof Error ? err.message : String(err) });
  }
});

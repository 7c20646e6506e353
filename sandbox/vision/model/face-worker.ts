/*
 * The face model's worker thread (started by model-thread.ts): decodes the image and runs face-api on
 * it, so that the sandbox's event loop (its HTTP, signaling and WebRTC relay) is not held up for the
 * hundreds of milliseconds an image takes. The sandbox sends one request at a time.
 *
 * Built, this runs as face-worker.js. From sources (tests) Node runs it with its types stripped: so it
 * is CommonJS without import statements, and it teaches `require` to compile the sandbox's .ts modules
 * (which use import statements) with the TypeScript compiler. The block keeps its names out of the
 * scope the type checker gives every script file.
 */
{
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { parentPort } = require('node:worker_threads') as typeof import('node:worker_threads');
  if (__filename.endsWith('.ts')) requireTypeScriptSources();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { UnreadableImageError, decodeImage } = require('./decode') as typeof import('./decode');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { directionOf, yawIndex } = require('./geometry') as typeof import('./geometry');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { loadFaceApi } = require('./tfjs-runtime') as typeof import('./tfjs-runtime');
  type FaceApi = import('./tfjs-runtime').FaceApi;
  type FoundFace = import('./face-model').FoundFace;
  type ModelRequest = import('./face-protocol').ModelRequest;
  type ModelReply = import('./face-protocol').ModelReply;

  /** Tiny face detector settings: chosen for speed on one core (see bench/sandbox.bench.ts). */
  const DETECTOR = { inputSize: 416, scoreThreshold: 0.5 } as const;

  interface FaceApiResult {
    detection: { score: number; box: { x: number; y: number; width: number; height: number } };
    landmarks: { positions: { x: number; y: number }[] };
    alignedRect: unknown;
  }

  /** Descriptor of one face, computed on its landmark-aligned crop as face-api's own pipeline does. */
  const describe = async (faceapi: FaceApi, tensor: unknown, face: FaceApiResult): Promise<Float32Array> => {
    const crops = await faceapi.extractFaceTensors(tensor, [face.alignedRect]);
    try {
      // A copy with a buffer of its own, so that buffer can be transferred (never the wasm heap's).
      return new Float32Array((await faceapi.nets.faceRecognitionNet.computeFaceDescriptor(crops[0])) as Float32Array);
    } finally {
      for (const crop of crops) crop.dispose();
    }
  };

  const analyze = async (id: number, bytes: ArrayBuffer): Promise<{ reply: ModelReply; transfer: ArrayBuffer[] }> => {
    const image = decodeImage(Buffer.from(bytes));
    const faceapi: FaceApi = await loadFaceApi();
    const tensor = faceapi.tf.tensor3d(image.data, [image.height, image.width, 3], 'int32');
    try {
      const options = new faceapi.TinyFaceDetectorOptions(DETECTOR);
      const found: FaceApiResult[] = await faceapi.detectAllFaces(tensor, options).withFaceLandmarks();
      found.sort((a, b) => b.detection.score - a.detection.score);
      const faces = found.map((f): FoundFace => {
        const yaw = yawIndex(f.landmarks.positions);
        const { x, y, width, height } = f.detection.box;
        return { box: { x, y, width, height }, score: f.detection.score, yaw, direction: directionOf(yaw) };
      });
      const bestDescriptor = found.length > 0 ? await describe(faceapi, tensor, found[0]) : undefined;
      const reply: ModelReply = { id, ok: true, width: image.width, height: image.height, faces, bestDescriptor };
      return { reply, transfer: bestDescriptor ? [bestDescriptor.buffer as ArrayBuffer] : [] };
    } finally {
      tensor.dispose();
    }
  };

  parentPort?.on('message', (request: ModelRequest) => {
    const work =
      request.type === 'load'
        ? loadFaceApi().then((): { reply: ModelReply; transfer: ArrayBuffer[] } => ({ reply: { id: request.id, ok: true, loaded: true }, transfer: [] }))
        : analyze(request.id, request.bytes);
    work.then(
      ({ reply, transfer }) => parentPort.postMessage(reply, transfer),
      (err: unknown) => {
        const kind = err instanceof UnreadableImageError ? 'unreadable' : 'failed';
        const message = err instanceof Error ? err.message : String(err);
        parentPort.postMessage({ id: request.id, ok: false, kind, message } satisfies ModelReply);
      },
    );
  });

  /**
   * Lets `require` load the sandbox's .ts files by compiling each to CommonJS (sources only; the
   * built package has .js files and never loads the compiler).
   */
  function requireTypeScriptSources(): void {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const ts = require('typescript') as typeof import('typescript');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { readFileSync } = require('node:fs') as typeof import('node:fs');
    type CompilingModule = { _compile(code: string, filename: string): void };
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const loaders = (require('node:module') as { _extensions: Record<string, (m: CompilingModule, filename: string) => void> })._extensions;
    const compilerOptions = { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true };
    loaders['.ts'] = (module, filename) => {
      const { outputText } = ts.transpileModule(readFileSync(filename, 'utf8'), { fileName: filename, compilerOptions });
      module._compile(outputText, filename);
    };
  }
}

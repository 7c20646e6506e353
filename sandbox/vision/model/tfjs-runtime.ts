import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { compileFunction } from 'node:vm';

/** The parts of face-api this sandbox uses; typed loosely because the package's types assume its full tfjs. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type FaceApi = any;

/** Ops that face-api calls as tensor methods (`t.add(...)`); tfjs-core alone does not install them. */
const CHAINED_OPS = [
  'abs', 'add', 'all', 'any', 'argMax', 'argMin', 'asin', 'atan', 'avgPool', 'batchNorm', 'clipByValue', 'conv2d',
  'depthwiseConv2d', 'div', 'exp', 'expandDims', 'floor', 'isNaN', 'log', 'matMul', 'max', 'maxPool', 'mean', 'min',
  'mul', 'neg', 'pad', 'relu', 'reshape', 'reverse', 'round', 'separableConv2d', 'sigmoid', 'slice', 'softmax', 'split',
  'sqrt', 'square', 'squeeze', 'sub', 'sum', 'tile', 'transpose', 'unstack',
];

/** Where the loaded face-api is kept: on tfjs-core's module object, which Node's own require shares. */
const LOADED = Symbol.for('vision-streaming.sandbox.faceApi');

/**
 * Loads face-api's wasm build on tfjs-core with the wasm backend, once per process.
 *
 * Why the detours: the build requires the umbrella package `@tensorflow/tfjs`, which would pull in
 * layers, converter and data for nothing; face-api only needs core ops. So the build is evaluated with
 * its own `require` that hands it tfjs-core for that one name (no global loader hook), and the chained
 * tensor methods the umbrella would register are installed here. Node's own `require` (createRequire)
 * loads the rest, so the heavy modules load once even under a test runner with its own module registry
 * per file; the loaded networks are kept on tfjs-core's module object for the same reason (a module
 * variable would be one per registry: the bundle evaluated and the weights loaded again, into the
 * same wasm backend, for every test file).
 */
export function loadFaceApi(): Promise<FaceApi> {
  const nodeRequire = createRequire(__filename);
  const tf = nodeRequire('@tensorflow/tfjs-core');
  const kept = tf[LOADED] as Promise<FaceApi> | undefined;
  if (kept) return kept;
  const loading = (async () => {
    installChainedOps(tf);
    const faceapi = evaluateFaceApi(nodeRequire.resolve('@vladmandic/face-api/dist/face-api.node-wasm.js'));
    const wasmDir = dirname(nodeRequire.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));
    faceapi.tf.setWasmPaths(wasmDir + '/');
    await faceapi.tf.setBackend('wasm');
    await faceapi.tf.ready();
    const modelDir = join(dirname(nodeRequire.resolve('@vladmandic/face-api/package.json')), 'model');
    for (const [net, file] of Object.entries(MODEL_FILES)) {
      faceapi.nets[net].loadFromWeightMap(await readWeights(faceapi, modelDir, file));
    }
    return faceapi;
  })();
  tf[LOADED] = loading;
  loading.catch(() => {
    if (tf[LOADED] === loading) delete tf[LOADED];
  });
  return loading;
}

/** The three networks the sandbox uses and the file names of their weights in face-api's model folder. */
const MODEL_FILES = {
  tinyFaceDetector: 'tiny_face_detector_model',
  faceLandmark68Net: 'face_landmark_68_model',
  faceRecognitionNet: 'face_recognition_model',
} as const;

/**
 * Reads one network's weights from disk through tfjs's weights loader. face-api's own loadFromDisk is
 * not used: under a test runner's sandboxed globals it hands tfjs buffers that do not line up.
 */
async function readWeights(faceapi: FaceApi, modelDir: string, name: string): Promise<unknown> {
  const manifest = JSON.parse(readFileSync(join(modelDir, `${name}-weights_manifest.json`), 'utf8'));
  const fetchWeights = async (paths: string[]): Promise<ArrayBuffer[]> =>
    paths.map((path) => {
      const bytes = readFileSync(path);
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer;
    });
  return faceapi.tf.io.weightsLoaderFactory(fetchWeights)(manifest, modelDir + '/');
}

/** Runs the CommonJS bundle at `file` with a require that maps the tfjs umbrella name to tfjs-core. */
function evaluateFaceApi(file: string): FaceApi {
  const localRequire = createRequire(file);
  const requireForBundle = (id: string): unknown => localRequire(id === '@tensorflow/tfjs' ? '@tensorflow/tfjs-core' : id);
  const module = { exports: {} as Record<string, unknown> };
  const run = compileFunction(readFileSync(file, 'utf8'), ['exports', 'require', 'module', '__filename', '__dirname'], {
    filename: file,
  });
  run.call(module.exports, module.exports, requireForBundle, module, file, dirname(file));
  return module.exports;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function installChainedOps(tf: any): void {
  const proto = tf.Tensor.prototype;
  for (const name of CHAINED_OPS) {
    if (typeof proto[name] === 'function') continue;
    proto[name] = function (this: unknown, ...args: unknown[]) {
      return tf[name](this, ...args);
    };
  }
  const reshapeTo = (shape: (t: { size: number }, args: number[]) => number[]) =>
    function (this: { size: number }, ...args: number[]) {
      return tf.reshape(this, shape(this, args));
    };
  proto.as1D ??= reshapeTo((t) => [t.size]);
  proto.as2D ??= reshapeTo((_t, a) => a.slice(0, 2));
  proto.as3D ??= reshapeTo((_t, a) => a.slice(0, 3));
  proto.as4D ??= reshapeTo((_t, a) => a.slice(0, 4));
  proto.asScalar ??= reshapeTo(() => []);
  proto.toInt ??= function (this: unknown) {
    return tf.cast(this, 'int32');
  };
  proto.toFloat ??= function (this: unknown) {
    return tf.cast(this, 'float32');
  };
  proto.concat ??= function (this: unknown, more: unknown, axis?: number) {
    return tf.concat([this, ...(Array.isArray(more) ? more : [more])], axis);
  };
  proto.stack ??= function (this: unknown, more: unknown, axis?: number) {
    return tf.stack([this, ...(Array.isArray(more) ? more : [more])], axis);
  };
}

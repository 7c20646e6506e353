import { createRequire, registerHooks } from 'node:module';
import { dirname, join } from 'node:path';

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

let loaded: Promise<FaceApi> | undefined;

/**
 * Loads face-api's wasm build on tfjs-core with the wasm backend, once per process.
 *
 * Why the detours: the build requires the umbrella package `@tensorflow/tfjs`, which would pull in
 * layers, converter and data for nothing; face-api only needs core ops. A resolve hook maps the umbrella
 * name to tfjs-core, and the chained tensor methods the umbrella would register are installed here.
 * Node's own `require` (createRequire) is used so the heavy modules load once even under a test runner
 * with its own module registry.
 */
export function loadFaceApi(): Promise<FaceApi> {
  loaded ??= (async () => {
    const nodeRequire = createRequire(__filename);
    registerHooks({
      resolve(specifier, context, next) {
        return next(specifier === '@tensorflow/tfjs' ? '@tensorflow/tfjs-core' : specifier, context);
      },
    });
    const tf = nodeRequire('@tensorflow/tfjs-core');
    installChainedOps(tf);
    const faceapi = nodeRequire('@vladmandic/face-api/dist/face-api.node-wasm.js');
    const wasmDir = dirname(nodeRequire.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));
    faceapi.tf.setWasmPaths(wasmDir + '/');
    await faceapi.tf.setBackend('wasm');
    await faceapi.tf.ready();
    const modelDir = join(dirname(nodeRequire.resolve('@vladmandic/face-api/package.json')), 'model');
    await faceapi.nets.tinyFaceDetector.loadFromDisk(modelDir);
    await faceapi.nets.faceLandmark68Net.loadFromDisk(modelDir);
    await faceapi.nets.faceRecognitionNet.loadFromDisk(modelDir);
    return faceapi;
  })();
  loaded.catch(() => {
    loaded = undefined;
  });
  return loaded;
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

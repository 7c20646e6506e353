import { Worker } from 'node:worker_threads';
import { startSandbox, type RunningSandbox } from '../../sandbox';
import { FaceModel } from '../../sandbox/vision/model/face-model';
import { astronautJpeg, faceApiSample } from '../support/images';
import { fetchToken } from '../support/vision-http';

// The face model runs in a worker thread: while it analyses an image, the process's event loop (the
// sandbox's HTTP, signaling, relay) goes on. The model here is in this process like the sandbox's own,
// and driven directly so that the analysis has certainly begun when the token request is sent.

let sandbox: RunningSandbox;
const model = new FaceModel(0);

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
  await model.warmUp();
});
afterAll(async () => {
  await sandbox.stop();
  await model.close();
});

test('a token request is answered while a full-size photo is being analysed', async () => {
  const order: string[] = [];
  const analysis = model.analyze(faceApiSample(1)).then((result) => {
    order.push('analysis');
    return result;
  });
  const token = fetchToken(sandbox.url).then(() => order.push('token'));
  const [result] = await Promise.all([analysis, token]);
  expect(order).toEqual(['token', 'analysis']);
  expect(result.width).toBe(1920);
  expect(result.faces.length).toBeGreaterThan(0);
  expect(result.bestDescriptor).toHaveLength(128);
});

test('a worker thread that dies fails the analysis it held with an error saying so, and the next analysis starts a new one', async () => {
  // The test ends the thread itself, as a crash would; the prototype is wrapped only to find the thread.
  const threads: Worker[] = [];
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (this: Worker, ...args: Parameters<Worker['postMessage']>) {
    threads.push(this);
    return post.apply(this, args);
  };
  let held: Promise<unknown>;
  try {
    held = model.analyze(faceApiSample(2));
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    Worker.prototype.postMessage = post;
  }
  expect(threads).toHaveLength(1);
  await threads[0].terminate();
  await expect(held).rejects.toThrow(/worker thread stopped .*the next analysis starts a new one/);
  const again = await model.analyze(astronautJpeg());
  expect(again.faces.length).toBeGreaterThan(0);
});

test('closing the model fails the analysis it holds and every later one, with an error saying so', async () => {
  const held = model.analyze(faceApiSample(3));
  // Let the request reach the worker before it is ended.
  await new Promise((resolve) => setImmediate(resolve));
  await model.close();
  await expect(held).rejects.toThrow(/face model was closed/);
  await expect(model.analyze(faceApiSample(4))).rejects.toThrow(/face model is closed/);
  await expect(model.close()).resolves.toBeUndefined();
});

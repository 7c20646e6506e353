import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as jpeg from 'jpeg-js';
import { FaceModel } from '../sandbox/vision/model/face-model';
import { descriptorDistance, similarityFromDistance } from '../sandbox/vision/model/similarity';

// Times the sandbox's face model run directly (no HTTP): decode + tiny detector + 68 landmarks + the
// descriptor of the best face, per photo scaled to 640 px wide, and the same photos at full size as a
// baseline. Then measures descriptor distances (same face at other scales vs different people).
// Photos: the committed public-domain astronaut and face-api's demo samples read from node_modules.

const WARM_UP_PASSES = 1;
const PASSES = Number(process.env.BENCH_PASSES ?? 3);
const GOAL_MS = 300;

interface Rgba {
  width: number;
  height: number;
  data: Uint8Array;
}

function loadPhotos(): { name: string; image: Rgba }[] {
  const faceApiRoot = dirname(require.resolve('@vladmandic/face-api/package.json'));
  const files = [
    { name: 'astronaut', path: join(__dirname, '..', '..', 'test', 'fixtures', 'astronaut.jpg') },
    ...[1, 2, 3, 4, 5, 6].map((n) => ({ name: `sample${n}`, path: join(faceApiRoot, 'demo', `sample${n}.jpg`) })),
  ];
  return files.map(({ name, path }) => {
    const decoded = jpeg.decode(readFileSync(path), { useTArray: true, formatAsRGBA: true, maxMemoryUsageInMB: 1024 });
    return { name, image: { width: decoded.width, height: decoded.height, data: decoded.data } };
  });
}

/** Nearest-neighbour resize; quality is irrelevant for timing. */
function resize(image: Rgba, width: number): Rgba {
  const height = Math.round((image.height * width) / image.width);
  const out = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y += 1) {
    const sy = Math.min(image.height - 1, Math.floor((y * image.height) / height));
    for (let x = 0; x < width; x += 1) {
      const sx = Math.min(image.width - 1, Math.floor((x * image.width) / width));
      out.set(image.data.subarray((sy * image.width + sx) * 4, (sy * image.width + sx) * 4 + 4), (y * width + x) * 4);
    }
  }
  return { width, height, data: out };
}

function crop(image: Rgba, x0: number, y0: number, w: number, h: number): Rgba {
  const x = Math.max(0, Math.round(x0));
  const y = Math.max(0, Math.round(y0));
  const width = Math.min(image.width - x, Math.round(w));
  const height = Math.min(image.height - y, Math.round(h));
  const out = new Uint8Array(width * height * 4);
  for (let row = 0; row < height; row += 1) {
    const from = ((y + row) * image.width + x) * 4;
    out.set(image.data.subarray(from, from + width * 4), row * width * 4);
  }
  return { width, height, data: out };
}

const encode = (image: Rgba): Buffer => Buffer.from(jpeg.encode(image, 90).data);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function timePhotos(model: FaceModel, photos: Buffer[]): Promise<number[]> {
  for (let pass = 0; pass < WARM_UP_PASSES; pass += 1) for (const photo of photos) await model.analyze(photo);
  const times: number[] = [];
  for (let pass = 0; pass < PASSES; pass += 1) {
    for (const photo of photos) {
      const start = performance.now();
      await model.analyze(photo);
      times.push(performance.now() - start);
    }
  }
  return times;
}

async function similarityFigures(model: FaceModel, photos: { name: string; image: Rgba }[]): Promise<void> {
  // Different people: every face of one group photo against every other face of the same photo.
  // Same face: each face against itself cropped and rescaled to 0.6x and 1.5x.
  const different: number[] = [];
  const same: number[] = [];
  for (const { name, image } of photos) {
    const analysis = await model.analyze(encode(image));
    const descriptors: Float32Array[] = [];
    for (const face of analysis.faces) {
      const m = face.box.width * 0.6;
      const region = crop(image, face.box.x - m, face.box.y - m, face.box.width + 2 * m, face.box.height + 2 * m);
      const base = (await model.analyze(encode(region))).bestDescriptor;
      if (!base) continue;
      descriptors.push(base);
      for (const factor of [0.6, 1.5]) {
        const other = (await model.analyze(encode(resize(region, Math.round(region.width * factor))))).bestDescriptor;
        if (other) same.push(descriptorDistance(base, other));
      }
    }
    for (let i = 0; i < descriptors.length; i += 1) {
      for (let j = i + 1; j < descriptors.length; j += 1) different.push(descriptorDistance(descriptors[i], descriptors[j]));
    }
    console.log(`${name}: ${analysis.faces.length} faces, directions ${analysis.faces.map((f) => `${f.direction}(${f.yaw.toFixed(2)})`).join(' ')}`);
  }
  const show = (label: string, values: number[]): void => {
    const scores = values.map(similarityFromDistance);
    console.log(
      `${label}: n=${values.length} distance min ${Math.min(...values).toFixed(3)} median ${percentile(values, 50).toFixed(3)} ` +
        `max ${Math.max(...values).toFixed(3)} | score min ${Math.min(...scores).toFixed(4)} max ${Math.max(...scores).toFixed(4)}`,
    );
  };
  show('same face, other scale', same);
  show('different people     ', different);
}

async function main(): Promise<void> {
  const photos = loadPhotos();
  const model = new FaceModel(0);
  const loadStart = performance.now();
  await model.warmUp();
  console.log(`model load: ${(performance.now() - loadStart).toFixed(0)} ms`);

  const small = photos.map((p) => encode(resize(p.image, 640)));
  const full = photos.map((p) => encode(p.image));
  const smallTimes = await timePhotos(model, small);
  const fullTimes = await timePhotos(model, full);
  const median = percentile(smallTimes, 50);
  const fullMedian = percentile(fullTimes, 50);
  console.log(`640 px wide: median ${median.toFixed(0)} ms, p90 ${percentile(smallTimes, 90).toFixed(0)} ms over ${smallTimes.length} runs`);
  console.log(`full size (up to 1920 px): median ${fullMedian.toFixed(0)} ms, p90 ${percentile(fullTimes, 90).toFixed(0)} ms`);
  console.log(`full size / 640 px: ${(fullMedian / median).toFixed(2)}x`);

  await similarityFigures(new FaceModel(0), photos);

  console.log(
    JSON.stringify({
      benchmark: 'sandbox-model',
      ms_per_photo_median: Math.round(median),
      p90: Math.round(percentile(smallTimes, 90)),
      photos: photos.length,
      runs: smallTimes.length,
      full_size_median_ms: Math.round(fullMedian),
      full_over_640_ratio: Number((fullMedian / median).toFixed(2)),
      goal_ms: GOAL_MS,
      meets_goal: median <= GOAL_MS,
    }),
  );
}

main().catch((err: unknown) => {
  console.error('benchmark failed:', err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});

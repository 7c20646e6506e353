// The demo's camera clip, made at run time from photos that are never committed: the public-domain
// astronaut (test/fixtures/astronaut.jpg, the person the collection knows) and a stranger cropped
// from @vladmandic/face-api's demo photo (read from node_modules). Frames are composed with sharp
// and encoded to VP8 (.ivf) by the dev ffmpeg, so the publisher sends it without re-encoding; a
// second file holds the same frames with key frames half a second later (two key-frame phases).
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const sharp = require('sharp');

const ROOT = path.resolve(__dirname, '..');
const FRAME = { width: 640, height: 480 };
const FPS = 10;

/** Head-and-shoulders crops (raw RGBA) of the two people, their faces about `side` px wide. */
async function people(side) {
  const astronaut = fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'astronaut.jpg'));
  const faceApiDemo = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo', 'sample1.jpg');
  // Face boxes measured once with the sandbox's detector: astronaut 116 px at (163,76); the
  // stranger of sample1.jpg 307 px at (1422,215).
  const known = await crop(astronaut, { x: 163, y: 76, w: 116, h: 110 }, side);
  const stranger = await crop(fs.readFileSync(faceApiDemo), { x: 1422, y: 215, w: 307, h: 283 }, side);
  return { known, stranger };
}

async function crop(bytes, face, side) {
  const meta = await sharp(bytes).metadata();
  const left = Math.max(0, Math.round(face.x - face.w * 0.45));
  const top = Math.max(0, Math.round(face.y - face.h * 0.5));
  const width = Math.min(meta.width - left, Math.round(face.w * 1.9));
  const height = Math.min(meta.height - top, Math.round(face.h * 2.2));
  const scale = side / face.w;
  const { data, info } = await sharp(bytes)
    .extract({ left, top, width, height })
    .resize(Math.round(width * scale), Math.round(height * scale))
    .png()
    .toBuffer({ resolveWithObject: true });
  return { png: data, width: info.width, height: info.height };
}

/** One frame: a plain wall with the given people pasted at x positions. */
function compose(placed) {
  const layers = placed.map(({ person, x }) => ({ input: person.png, left: Math.round(x), top: Math.max(0, Math.round((FRAME.height - person.height) / 2)) }));
  return sharp({ create: { width: FRAME.width, height: FRAME.height, channels: 3, background: '#5b6770' } })
    .composite(layers)
    .jpeg({ quality: 90 })
    .toBuffer();
}

/**
 * Writes the clip (the known person 4 s, both people 4 s, the stranger 3 s, nobody 6 s, each
 * drifting slowly) and returns its path. Looped, the stranger comes back every loop, and both leave.
 * Each person goes on from where the last scene left them: one who jumps is a new face to the tracker.
 */
async function makeClip(dir, ffmpegPath) {
  const { known, stranger } = await people(150);
  const frames = path.join(dir, 'frames');
  fs.mkdirSync(frames, { recursive: true });
  const scenes = [
    { seconds: 4, at: (t) => [{ person: known, x: 100 - 20 * t }] },
    { seconds: 4, at: (t) => [{ person: known, x: 20 + 8 * t }, { person: stranger, x: 340 + 8 * t }] },
    { seconds: 3, at: (t) => [{ person: stranger, x: 372 - 10 * t }] },
    { seconds: 6, at: () => [] },
  ];
  let n = 0;
  for (const scene of scenes) {
    for (let i = 0; i < scene.seconds * FPS; i++) {
      const jpeg = await compose(scene.at(i / FPS));
      fs.writeFileSync(path.join(frames, `${String(++n).padStart(4, '0')}.jpg`), jpeg);
    }
  }
  const out = path.join(dir, 'door-camera.ivf');
  // The same pictures a second time with their key frames half a second later, as a camera with two
  // key-frame phases sends them: the demo's publisher answers a viewer's key-frame request from either.
  const later = path.join(dir, 'door-camera-half.ivf');
  const vp8 = ['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '1500k', '-pix_fmt', 'yuv420p', '-f', 'ivf'];
  const keys = ['-g', String(FPS), '-keyint_min', String(FPS)];
  const halfKeys = ['-g', String(2 * FPS), '-force_key_frames', `expr:gte(n,n_forced*${FPS}+${FPS / 2})`];
  const args = ['-v', 'error', '-y', '-framerate', String(FPS), '-i', path.join(frames, '%04d.jpg'), ...keys, ...vp8, out, ...halfKeys, ...vp8, later];
  await new Promise((resolve, reject) => {
    const child = spawn(ffmpegPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg could not encode the demo clip: ${err}`))));
  });
  fs.rmSync(frames, { recursive: true, force: true });
  return { file: out, phases: [out, later], fps: FPS };
}

/** A second picture of the known person for the collection: mirrored and larger, so it is not a frame of the clip. */
async function enrolmentPhoto() {
  const { known } = await people(220);
  return sharp(known.png).flop().jpeg({ quality: 92 }).toBuffer();
}

module.exports = { makeClip, enrolmentPhoto };

// `node scripts/demo-clip.js DIR` (after `npm run build`): writes the clip (DIR/door-camera.ivf) and the
// enrolment photo (DIR/astronaut-face.jpg) for a first run of the command line (docs/command-line.md).
if (require.main === module) {
  const dir = path.resolve(process.argv[2] || 'first-run');
  (async () => {
    const { findFfmpeg } = require(path.join(ROOT, 'dist', 'shared'));
    fs.mkdirSync(dir, { recursive: true });
    const clip = await makeClip(dir, await findFfmpeg());
    const photo = path.join(dir, 'astronaut-face.jpg');
    fs.writeFileSync(photo, await enrolmentPhoto());
    process.stdout.write(`${clip.file}\n${photo}\n`);
  })().catch((err) => {
    process.stderr.write(`demo-clip: ${err && err.message ? err.message : err}\n`);
    process.exitCode = 1;
  });
}

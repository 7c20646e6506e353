import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import jpeg from 'jpeg-js';

// Children run on this Node (24) with the TypeScript sources, transpiled on load.
function runTs(file: string): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(__dirname, 'support/run-ts.js'), path.join(__dirname, 'support', file)], { timeout: 60000 }, (err, stdout, stderr) =>
      err ? reject(Object.assign(err, { stderr })) : resolve({ stdout, stderr }),
    );
  });
}

test('an ffmpeg child does not outlive a host that exits without closing its decoder', async () => {
  const { stdout } = await runTs('orphan-decoder.ts');
  const pid = Number(stdout.trim());
  expect(pid).toBeGreaterThan(0);
  const until = Date.now() + 10000;
  while (await alive(pid)) {
    if (Date.now() > until) throw new Error(`ffmpeg ${pid} still runs after its host exited`);
    await new Promise((r) => setTimeout(r, 50));
  }
});

test("pictures work on sharp's wasm build when the native one cannot load", async () => {
  const { stdout } = await runTs('wasm-sharp.ts');
  const out = JSON.parse(stdout) as Record<string, string>;
  expect(out.backend).toBe('sharp-wasm');
  const full = jpeg.decode(Buffer.from(out.jpeg, 'base64'));
  expect([full.width, full.height]).toEqual([64, 48]);
  const crop = jpeg.decode(Buffer.from(out.crop, 'base64'));
  expect([crop.width, crop.height]).toEqual([20, 30]);
  const boxed = jpeg.decode(Buffer.from(out.boxes, 'base64'));
  const i = (8 * 64 + 20) * 4; // on the top edge of the box
  expect(boxed.data[i]).toBeGreaterThan(170);
  expect(boxed.data[i] - Math.max(boxed.data[i + 1], boxed.data[i + 2])).toBeGreaterThan(100);
});

async function alive(pid: number): Promise<boolean> {
  try {
    const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

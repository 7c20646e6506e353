// Makes pictures with sharp's wasm build: the native platform package is made unloadable first,
// as on a host that stripped optional dependencies.
import Module from 'node:module';

const mod = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
const resolve = mod._resolveFilename;
mod._resolveFilename = function (request: string, ...rest: unknown[]): string {
  if (/^@img\/sharp-(linux|linuxmusl|darwin|win32|libvips)/.test(request)) {
    throw Object.assign(new Error(`Cannot find module '${request}'`), { code: 'MODULE_NOT_FOUND' });
  }
  return resolve.call(this, request, ...rest);
};

void (async () => {
  const { pictureBackend, encodeJpeg, cropToJpeg, drawBoxes } = await import('../../../shared/picture');
  const width = 64;
  const height = 48;
  const data = new Uint8Array(width * height * 1.5).fill(128);
  const picture = { width, height, format: 'i420' as const, data, timestamp: 0 };
  const box = { left: 8, top: 8, right: 40, bottom: 30 };
  const out = {
    backend: pictureBackend(),
    jpeg: (await encodeJpeg(picture)).toString('base64'),
    crop: (await cropToJpeg(picture, box, { width: 20, height: 30 })).toString('base64'),
    boxes: (await drawBoxes(picture, [{ location: box, label: 'x', color: 'red' }])).toString('base64'),
  };
  process.stdout.write(JSON.stringify(out));
})();

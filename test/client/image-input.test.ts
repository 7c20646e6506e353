import { InputError } from '../../shared/errors';
import { MAX_IMAGE_BYTES, resolveImage, sniffImage } from '../../shared/image';
import { faceApiSample, paddedJpeg, tinyJpeg, tinyPng } from '../support/images';

describe('image sniffing', () => {
  it('recognises whole JPEG and PNG files', () => {
    expect(sniffImage(tinyJpeg())).toEqual({ mime: 'image/jpeg', complete: true });
    expect(sniffImage(tinyPng())).toEqual({ mime: 'image/png', complete: true });
    expect(sniffImage(faceApiSample(1))).toEqual({ mime: 'image/jpeg', complete: true });
  });

  it('flags files cut short', () => {
    const jpg = faceApiSample(2);
    expect(sniffImage(jpg.subarray(0, jpg.length - 100))).toEqual({ mime: 'image/jpeg', complete: false });
    expect(sniffImage(jpg.subarray(0, 200))).toEqual({ mime: 'image/jpeg', complete: false });
    const png = tinyPng();
    expect(sniffImage(png.subarray(0, png.length - 12))).toEqual({ mime: 'image/png', complete: false });
  });

  it('rejects other formats', () => {
    expect(sniffImage(Buffer.from('GIF89a....'))).toBeUndefined();
    expect(sniffImage(Buffer.from('hello'))).toBeUndefined();
  });

  it('accepts a JPEG padded with comment segments (used by size tests)', () => {
    const padded = paddedJpeg(200_000);
    expect(padded.length).toBeGreaterThanOrEqual(200_000);
    expect(sniffImage(padded)).toEqual({ mime: 'image/jpeg', complete: true });
  });
});

describe('image input forms', () => {
  const jpg = tinyJpeg();

  it('takes a Buffer, a Uint8Array and an ArrayBuffer', () => {
    expect(resolveImage(jpg, 'image')).toMatchObject({ kind: 'bytes', mime: 'image/jpeg' });
    expect(resolveImage(new Uint8Array(jpg), 'image')).toMatchObject({ kind: 'bytes', mime: 'image/jpeg' });
    const ab = jpg.buffer.slice(jpg.byteOffset, jpg.byteOffset + jpg.byteLength);
    expect(resolveImage(ab, 'image')).toMatchObject({ kind: 'bytes', mime: 'image/jpeg' });
  });

  it('decodes base64 (standard, url-safe, with line breaks) and data URLs', () => {
    const b64 = jpg.toString('base64');
    const same = (r: ReturnType<typeof resolveImage>) => r.kind === 'bytes' && r.bytes.equals(jpg);
    expect(same(resolveImage(b64, 'image'))).toBe(true);
    expect(same(resolveImage(jpg.toString('base64url'), 'image'))).toBe(true);
    expect(same(resolveImage(b64.replace(/(.{76})/g, '$1\n'), 'image'))).toBe(true);
    expect(same(resolveImage(`data:image/jpeg;base64,${b64}`, 'image'))).toBe(true);
    const png = resolveImage(`data:image/png;base64,${tinyPng().toString('base64')}`, 'image');
    expect(png).toMatchObject({ kind: 'bytes', mime: 'image/png' });
  });

  it('keeps http(s) URLs as URLs', () => {
    expect(resolveImage('https://example.test/a.jpg?x=1', 'image')).toEqual({ kind: 'url', url: 'https://example.test/a.jpg?x=1' });
    expect(resolveImage('  http://127.0.0.1:9/p.png ', 'source')).toEqual({ kind: 'url', url: 'http://127.0.0.1:9/p.png' });
  });

  it('uses 4 MiB, strictly, as the image limit', () => {
    expect(MAX_IMAGE_BYTES).toBe(4 * 1024 * 1024);
    expect(resolveImage(paddedJpeg(MAX_IMAGE_BYTES - 1).subarray(0), 'image').kind).toBe('bytes');
    const exact = paddedJpeg(MAX_IMAGE_BYTES);
    expect(exact.length).toBeGreaterThanOrEqual(MAX_IMAGE_BYTES);
    expect(() => resolveImage(exact, 'image')).toThrow(InputError);
  });

  it('names the field in every refusal', () => {
    const cases: [unknown, RegExp][] = [
      [Buffer.alloc(0), /empty/],
      ['', /empty/],
      [42, /must be a Buffer/],
      [null, /got null/],
      ['data:text/plain;base64,aGVsbG8=', /text\/plain/],
      ['data:image/jpeg,raw', /base64/],
      ['ftp://host/a.jpg', /ftp/],
      ['file:///etc/passwd', /file/],
      ['!!!not base64!!!', /base64/],
    ];
    for (const [input, message] of cases) {
      let caught: unknown;
      try {
        resolveImage(input, 'target');
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(InputError);
      expect((caught as InputError).field).toBe('target');
      expect((caught as InputError).message).toMatch(/^target /);
      expect((caught as InputError).message).toMatch(message);
    }
  });
});

import { ApiError, InputError } from '../../shared/errors';
import { MAX_BODY_BYTES } from '../../shared/http';
import { MAX_IMAGE_BYTES } from '../../shared/image';
import { VisionClient } from '../../shared/vision';
import { CLIENT_ID, CLIENT_SECRET, FAST_RETRY, caught, closedPort, startHarness, type Harness } from './harness';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server';
import { paddedJpeg, tinyJpeg, tinyPng } from '../support/images';

/** What a refusal must look like. */
interface Expectation {
  type: typeof InputError | typeof ApiError;
  /** InputError.field */
  field?: string;
  /** The message must match (it names the field and/or the limit). */
  message: RegExp;
  /** Whether the sandbox may see a request (false: the client must refuse before sending). */
  sends?: boolean;
}

type Case = [name: string, run: (h: Harness, ctx: Context) => Promise<unknown>, expected: Expectation];

interface Context {
  collectionId: string;
  images: FixtureServer;
}

const jpg = tinyJpeg();
const png = tinyPng();
const truncatedJpeg = jpg.subarray(0, jpg.length - 40);
const truncatedPng = png.subarray(0, png.length - 12);
const over4 = paddedJpeg(MAX_IMAGE_BYTES + 10);
const half = paddedJpeg(MAX_IMAGE_BYTES / 2 + 100);
const over10 = paddedJpeg(MAX_BODY_BYTES + 100);
const gif = Buffer.from('474946383961010001000000002c00000000010001000002', 'hex');
const webp = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 '), Buffer.alloc(20)]);
const b64 = jpg.toString('base64');

const limit4 = /4194304|4 MiB/;
const input = (field: string, message: RegExp): Expectation => ({ type: InputError, field, message });

const cases: Case[] = [
  ['empty buffer', (h) => h.client.detectFaces(Buffer.alloc(0)), input('image', /^image is empty/)],
  ['empty string', (h) => h.client.detectHumans(''), input('image', /^image is an empty string/)],
  ['blank string', (h) => h.client.detectFaces('   \n'), input('image', /^image is an empty string/)],
  ['not an image', (h) => h.client.detectFaces(Buffer.from('hello, world')), input('image', /image is not a JPEG or PNG/)],
  ['truncated JPEG', (h) => h.client.detectFaces(truncatedJpeg), input('image', /image looks truncated: no JPEG end-of-image/)],
  ['truncated PNG', (h) => h.client.detectHumans(truncatedPng), input('image', /image looks truncated: no PNG IEND/)],
  ['single image over 4 MB', (h) => h.client.detectFaces(over4), input('image', limit4)],
  ['image of exactly 4 MiB', (h) => h.client.detectHumans(paddedJpeg(MAX_IMAGE_BYTES)), input('image', limit4)],
  ['image over 10 MB', (h) => h.client.detectFaces(over10), input('image', limit4)],
  ['comparison over 4 MB in total', (h) => h.client.compareFaces(half, half), input('source+target', /in total/)],
  ['GIF (wrong content type)', (h) => h.client.detectFaces(gif), input('image', /image is a GIF image; the service reads only JPEG or PNG/)],
  ['WebP (wrong content type)', (h) => h.client.addFace('c', webp), input('image', /WebP/)],
  ['base64 garbage', (h) => h.client.detectFaces('@@not*base64@@'), input('image', /image is neither a URL nor valid base64/)],
  ['base64 of the wrong length', (h) => h.client.detectFaces('abcde'), input('image', /base64/)],
  ['base64 of non-image bytes', (h) => h.client.detectFaces(Buffer.from('plain text here').toString('base64')), input('image', /JPEG or PNG/)],
  ['data URL with a non-image mime', (h) => h.client.detectFaces(`data:text/plain;base64,${b64}`), input('image', /"text\/plain"; only image\/jpeg and image\/png/)],
  ['data URL with image/gif', (h) => h.client.detectFaces(`data:image/gif;base64,${gif.toString('base64')}`), input('image', /image\/gif/)],
  ['data URL not base64', (h) => h.client.detectFaces('data:image/jpeg,xyz'), input('image', /base64/)],
  ['maxResults 0', (h, c) => h.client.compareWithCollection(c.collectionId, jpg, { maxResults: 0 }), input('maxResults', /maxResults must be an integer from 1 to 1000 \(got 0\)/)],
  ['maxResults 1001', (h, c) => h.client.compareWithCollection(c.collectionId, jpg, { maxResults: 1001 }), input('maxResults', /1 to 1000.*1001/)],
  ['maxResults "x"', (h, c) => h.client.compareWithCollection(c.collectionId, jpg, { maxResults: 'x' as unknown as number }), input('maxResults', /1 to 1000.*string "x"/)],
  ['maxResults 1.5', (h, c) => h.client.compareWithCollection(c.collectionId, jpg, { maxResults: 1.5 }), input('maxResults', /1\.5/)],
  ['maxResults NaN', (h, c) => h.client.compareWithCollection(c.collectionId, jpg, { maxResults: NaN }), input('maxResults', /NaN/)],
  ['maxResults -1', (h, c) => h.client.compareWithCollection(c.collectionId, jpg, { maxResults: -1 }), input('maxResults', /1 to 1000/)],
  ['maxResults Infinity', (h, c) => h.client.compareWithCollection(c.collectionId, jpg, { maxResults: Infinity }), input('maxResults', /Infinity/)],
  [
    'unknown collection id',
    (h) => h.client.compareWithCollection('00000000-0000-0000-0000-000000000000', jpg),
    { type: ApiError, message: /HTTP 404.*collectionId "00000000-0000-0000-0000-000000000000" does not exist/, sends: true },
  ],
  ['unknown face id', (h, c) => h.client.removeFace(c.collectionId, 'missing-face'), { type: ApiError, message: /HTTP 404.*faceId "missing-face"/, sends: true }],
  ['collection id with a slash', (h) => h.client.listFaces('a/b'), input('collectionId', /collectionId must not contain "\/"/)],
  ['empty collection id', (h) => h.client.deleteCollection(''), input('collectionId', /collectionId is required/)],
  ['dot-dot collection id', (h) => h.client.addFace('..', jpg), input('collectionId', /dot segment/)],
  ['face id with a slash', (h, c) => h.client.removeFace(c.collectionId, 'x/../y'), input('faceId', /faceId must not contain/)],
  ['empty face id', (h, c) => h.client.removeFace(c.collectionId, ''), input('faceId', /faceId is required/)],
  ['id with a control character', (h) => h.client.listFaces('a\nb'), input('collectionId', /control characters/)],
  ['bad URL', (h) => h.client.detectFaces('http://'), input('image', /image is not a valid http\(s\) URL/)],
  ['ftp: URL', (h) => h.client.detectFaces('ftp://127.0.0.1/face.jpg'), input('image', /scheme "ftp:" is not supported/)],
  ['file: URL', (h) => h.client.compareFaces(jpg, 'file:///tmp/x.jpg'), input('target', /^target URL scheme "file:"/)],
  ['bad source, good target', (h) => h.client.compareFaces(Buffer.from('nope'), jpg), input('source', /^source is not a JPEG or PNG/)],
  ['good source, bad target', (h) => h.client.compareFaces(png, Buffer.alloc(0)), input('target', /^target is empty/)],
  ['image of the wrong type (number)', (h) => h.client.detectFaces(42 as unknown as Buffer), input('image', /must be a Buffer, Uint8Array, base64 string, data URL or http\(s\) URL \(got number\)/)],
  ['image null', (h) => h.client.addFace('c', null as unknown as Buffer), input('image', /got null/)],
  ['mixed comparison whose URL is missing', (h, c) => h.client.compareFaces(c.images.urlOf('/missing.jpg'), jpg), input('source', /source could not be downloaded from http:\/\/127\.0\.0\.1:\d+: no image came back/)],
  ['mixed comparison whose URL is not an image', (h, c) => h.client.compareFaces(jpg, c.images.urlOf('/text.txt')), input('target', /^target is not a JPEG or PNG/)],
  [
    'body above 10485760 bytes on the raw client',
    (h) => h.http.request({ method: 'POST', path: '/v1/detect_faces', body: over10, headers: { 'content-type': 'image/jpeg' }, operation: 'detectFaces' }),
    input('body', /10485760 bytes/),
  ],
  [
    'empty client id',
    (h) => Promise.resolve().then(() => new VisionClient({ authUrl: h.sandbox.url, visionUrl: h.sandbox.url, clientId: '', clientSecret: 'x' })),
    input('clientId', /clientId is required/),
  ],
  [
    'empty client secret',
    (h) => Promise.resolve().then(() => new VisionClient({ authUrl: h.sandbox.url, visionUrl: h.sandbox.url, clientId: 'x', clientSecret: '' })),
    input('clientSecret', /clientSecret is required/),
  ],
  [
    'bad vision URL',
    (h) => Promise.resolve().then(() => new VisionClient({ authUrl: h.sandbox.url, visionUrl: 'ftp://x', clientId: 'x', clientSecret: 'y' })),
    input('visionUrl', /visionUrl must use http or https/),
  ],
  [
    'wrong client secret',
    async (h) => {
      const client = new VisionClient({ authUrl: h.sandbox.url, visionUrl: h.sandbox.url, clientId: CLIENT_ID, clientSecret: `${CLIENT_SECRET}-wrong`, retry: FAST_RETRY });
      try {
        return await client.listCollections();
      } finally {
        await client.close();
      }
    },
    { type: ApiError, message: /client id or client secret was rejected/, sends: true },
  ],
  [
    'unreachable auth URL',
    async (h) => {
      const port = await closedPort();
      const client = new VisionClient({ authUrl: `http://127.0.0.1:${port}`, visionUrl: h.sandbox.url, clientId: 'x', clientSecret: 'y', retry: { retries: 1, baseDelayMs: 1, maxDelayMs: 2 } });
      try {
        return await client.detectFaces(jpg);
      } finally {
        await client.close();
      }
    },
    { type: ApiError, message: /getToken failed: no response from http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/ },
  ],
];

describe('bad input is refused with a clear error', () => {
  let h: Harness;
  const ctx = {} as Context;

  beforeAll(async () => {
    h = await startHarness();
    ctx.collectionId = (await h.client.createCollection()).collectionId;
    ctx.images = await startFixtureServer({ '/text.txt': { body: Buffer.from('not an image'), contentType: 'text/plain' } });
  });
  afterAll(async () => {
    await ctx.images.stop();
    await h.stop();
  });

  it('has at least 30 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
  });

  it.each(cases)('%s', async (_name, run, expected) => {
    const before = h.requests();
    const err = await caught(() => run(h, ctx));
    expect(err).toBeInstanceOf(expected.type);
    expect(err.message).toMatch(expected.message);
    if (expected.field !== undefined) expect((err as InputError).field).toBe(expected.field);
    if (err instanceof InputError) expect(err.message).toContain(err.field.split('+')[0]);
    if (!expected.sends) expect(h.requests()).toBe(before);
  });
});

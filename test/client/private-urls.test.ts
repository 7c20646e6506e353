import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TokenProvider } from '../../shared/auth';
import { InputError } from '../../shared/errors';
import { downloadImage, isLocalServiceUrl, isPrivateAddress, MAX_IMAGE_BYTES } from '../../shared/image';
import { guardedLookup, privateAllowedByEnvironment } from '../../shared/image/address-guard';
import { imageWithBoxes } from '../../shared/picture/boxes';
import { VisionClient } from '../../shared/vision';
import { closedPort } from './harness';
import { tinyJpeg } from '../support/images';

// The package's own downloads of image URLs (the URL side of a mixed comparison, boxes drawn on a
// URL image) reach no loopback, link-local or private address unless the service itself is on this
// machine or the caller allows it, and a failed download never tells a closed port from an open one.

let server: Server;
let base: string;
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/face.jpg') res.writeHead(200, { 'content-type': 'image/jpeg' }).end(tinyJpeg());
    else if (req.url === '/moved') res.writeHead(302, { location: '/face.jpg' }).end();
    else if (req.url === '/loop') res.writeHead(302, { location: '/loop' }).end();
    else if (req.url === '/broken') res.writeHead(500).end('internal details of the server');
    else res.writeHead(404).end('not here');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  hits.length = 0;
});

const tokens: TokenProvider = { getToken: () => Promise.resolve({ accessToken: 'stand-in', expiresAt: Date.now() + 3_600_000 }), invalidate: () => undefined };
const limits = { maxBytes: MAX_IMAGE_BYTES, timeoutMs: 5000 };

test('addresses of this machine, link-local and private networks are told from public ones', () => {
  for (const a of ['127.0.0.1', '127.8.9.10', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '[::1]', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::']) {
    expect([a, isPrivateAddress(a)]).toEqual([a, true]);
  }
  for (const a of ['8.8.8.8', '172.32.0.1', '2001:4860:4860::8888', '::ffff:8.8.8.8', 'example.com']) expect([a, isPrivateAddress(a)]).toEqual([a, false]);
  expect(isLocalServiceUrl('http://127.0.0.1:8787')).toBe(true);
  expect(isLocalServiceUrl('http://localhost:8787/v1')).toBe(true);
  expect(isLocalServiceUrl('http://[::1]:8787')).toBe(true);
  expect(isLocalServiceUrl('https://ips.api.ricoh')).toBe(false);
  expect(isLocalServiceUrl('http://10.0.0.5')).toBe(false);
  expect(privateAllowedByEnvironment({ VS_ALLOW_PRIVATE_IMAGE_URLS: '1' })).toBe(true);
  expect(privateAllowedByEnvironment({})).toBe(false);
});

test('a mixed comparison of a client whose service is elsewhere refuses a URL on this machine before any request', async () => {
  const client = new VisionClient({ visionUrl: 'https://vision.example.invalid', tokens, retry: { retries: 0 } });
  try {
    for (const url of [`${base}/face.jpg`, `http://localhost:${new URL(base).port}/face.jpg`, 'http://169.254.169.254/latest/meta-data', 'http://[::1]/x.jpg', 'http://10.0.0.1/x.jpg']) {
      const err = await client.compareFaces(tinyJpeg(), url).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InputError);
      expect(err).toMatchObject({ field: 'target', limit: 'a public http(s) URL', message: expect.stringMatching(/loopback, link-local or private network address/) });
    }
    expect(hits).toEqual([]);
  } finally {
    await client.close();
  }
});

test('a host name is checked by the address it resolves to, and the connection goes to that address', async () => {
  const addresses = await new Promise<unknown>((resolve) => guardedLookup(new URL('http://localhost/'), {}, (err, found) => resolve(err ?? found)));
  expect(addresses).toMatchObject({ code: 'EPRIVATEADDRESS' });
});

test('boxes on a URL image: refused by default, drawn when the caller allows it (a host whose service is on this machine does)', async () => {
  const boxes = [{ location: { left: 2, top: 2, right: 20, bottom: 20 } }];
  await expect(imageWithBoxes(`${base}/face.jpg`, boxes)).rejects.toMatchObject({ field: 'image', message: expect.stringMatching(/private network/) });
  expect(hits).toEqual([]);
  const drawn = await imageWithBoxes(`${base}/moved`, boxes, { allowPrivateImageUrls: true });
  expect(drawn.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  // The redirect was followed, hop by hop.
  expect(hits).toEqual(['/moved', '/face.jpg']);
  // And an explicit option on a client whose service is elsewhere.
  const client = new VisionClient({ visionUrl: 'https://vision.example.invalid', tokens, retry: { retries: 0 }, allowPrivateImageUrls: true });
  await client.compareFaces(tinyJpeg(), `${base}/face.jpg`).catch(() => undefined);
  await client.close();
  expect(hits.at(-1)).toBe('/face.jpg');
});

test('a closed port, an error answer, a missing file and a redirect loop give the same message', async () => {
  const closed = `http://127.0.0.1:${await closedPort()}/face.jpg`;
  const messages: string[] = [];
  for (const url of [closed, `${base}/broken`, `${base}/missing.jpg`, `${base}/loop`]) {
    const err = (await downloadImage(url, 'image', limits, { allowPrivateAddresses: true }).catch((e: unknown) => e)) as InputError;
    expect(err).toBeInstanceOf(InputError);
    messages.push(err.message.replace(/127\.0\.0\.1:\d+/, 'HOST'));
  }
  expect(new Set(messages).size).toBe(1);
  expect(messages[0]).toMatch(/image could not be downloaded from http:\/\/HOST: no image came back/);
  expect(messages[0]).not.toMatch(/ECONNREFUSED|HTTP|\b500\b|404|internal details/);
});

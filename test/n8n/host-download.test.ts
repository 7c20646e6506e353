import type { IAllExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';
import { hostDownload } from '../../nodes/common/host-io';
import { isLoopbackServiceUrl, isPrivateLiteralHost } from '../../shared/image/literal-host';
import { astronautJpeg } from '../support/images';

// The n8n nodes download a mixed comparison's image URL through n8n's own request helper: addresses
// written out as private are refused before any request, redirects included, unless the service is
// itself on this machine. n8n's helper is stood in for by a recorder of what it is asked.

test('private hosts as written: localhost, loopback, private, link-local, mapped and IPv6 ranges; public ones pass', () => {
  for (const url of ['http://localhost/a.jpg', 'http://127.0.0.1:8080/', 'http://2130706433/', 'http://10.1.2.3/', 'http://172.20.0.1/', 'http://192.168.1.10/', 'http://169.254.169.254/latest', 'http://[::1]/', 'http://[::ffff:127.0.0.1]/', 'http://[fd00::1]/', 'http://[fe80::1]/', 'http://0.0.0.0/']) {
    expect([url, isPrivateLiteralHost(new URL(url).hostname)]).toEqual([url, true]);
  }
  for (const url of ['https://example.com/face.jpg', 'http://8.8.8.8/', 'http://[2001:db8::1]/', 'http://172.32.0.1/']) {
    expect([url, isPrivateLiteralHost(new URL(url).hostname)]).toEqual([url, false]);
  }
  expect(isLoopbackServiceUrl('http://127.0.0.1:8787')).toBe(true);
  expect(isLoopbackServiceUrl('https://ips.api.ricoh/v1')).toBe(false);
});

function recorder(answers: Record<string, { statusCode: number; body?: Buffer; headers?: Record<string, string> }>) {
  const asked: string[] = [];
  const ctx = {
    helpers: {
      httpRequest: async (o: IHttpRequestOptions) => {
        asked.push(String(o.url));
        expect(o.disableFollowRedirect).toBe(true);
        return answers[String(o.url)] ?? { statusCode: 404, body: Buffer.alloc(0), headers: {} };
      },
    },
  } as unknown as IAllExecuteFunctions;
  return { ctx, asked };
}

test('a private URL is refused before any request; a redirect to one is refused before it is followed; a public one downloads', async () => {
  const jpeg = astronautJpeg();
  const { ctx, asked } = recorder({
    'https://photos.example/face.jpg': { statusCode: 200, body: jpeg },
    'https://photos.example/moved': { statusCode: 302, headers: { location: 'http://169.254.169.254/latest/meta-data' } },
    'https://photos.example/hop': { statusCode: 301, headers: { location: '/face.jpg' } },
  });
  const download = hostDownload(ctx, 'https://vision.example/v1');
  await expect(download('http://127.0.0.1:9/x.jpg', 'target', 1 << 22, undefined, 'compareFaces')).rejects.toMatchObject({ name: 'InputError', field: 'target', message: expect.stringMatching(/private network address/) });
  expect(asked).toEqual([]);
  await expect(download('https://photos.example/moved', 'target', 1 << 22, undefined, 'compareFaces')).rejects.toMatchObject({ field: 'target', message: expect.stringMatching(/private network address/) });
  expect(asked).toEqual(['https://photos.example/moved']);
  const got = await download('https://photos.example/hop', 'target', 1 << 22, undefined, 'compareFaces');
  expect(got.bytes.equals(jpeg)).toBe(true);
  expect(asked.slice(1)).toEqual(['https://photos.example/hop', 'https://photos.example/face.jpg']);
});

test('with the service on this machine (a local sandbox), local image URLs are fetched', async () => {
  const jpeg = astronautJpeg();
  const { ctx, asked } = recorder({ 'http://127.0.0.1:8787/face.jpg': { statusCode: 200, body: jpeg } });
  const got = await hostDownload(ctx, 'http://127.0.0.1:8787')('http://127.0.0.1:8787/face.jpg', 'target', 1 << 22, undefined, 'compareFaces');
  expect(got.bytes.length).toBe(jpeg.length);
  expect(asked).toEqual(['http://127.0.0.1:8787/face.jpg']);
});

import { maskText, maskUrl, parseCameraSource, urlSecrets, userInfo } from '../../shared/publish/camera-url';

// Camera URLs: refused when they hold what would reach the camera's requests as it is (control
// characters, blanks), and masked wherever shown, whatever the password holds.

describe('parseCameraSource refuses control characters and blanks in a camera URL, before anything is sent', () => {
  const refused = (value: string, what: RegExp, field = 'source'): void => {
    let err: unknown;
    try {
      parseCameraSource(value, { field });
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ name: 'InputError', code: 'invalid_input', field, limit: 'no spaces or control characters' });
    expect((err as Error).message).toMatch(new RegExp(`^${field} must not contain spaces or control characters`));
    expect((err as Error).message).toMatch(what);
    expect((err as Error).message).not.toContain('Secret-77');
  };

  test.each([
    ['CR LF with an injected header', 'rtsp://cam:Secret-77@host/x\r\nX-Injected: yes', /CR at position 28/],
    ['a trailing CR LF (which trim() would drop)', 'rtsp://host/x\r\n', /CR/],
    ['a trailing LF', 'rtsps://host/x\n', /LF/],
    ['NUL', 'rtsp://host/x\0y', /NUL/],
    ['TAB (which URL parsing drops silently)', 'rtsp://ho\tst/x', /TAB/],
    ['another C0 control', 'http://host/x\u001by', /U\+001B/],
    ['DEL', 'http://host/x\u007f', /DEL/],
    ['a C1 control', 'rtsp://host/x\u0085', /U\+0085/],
    ['a space inside', 'rtsp://host/my stream', /a space at position 15/],
    ['a leading space', ' rtsp://host/x', /a space at position 1/],
    ['a no-break space', 'rtsp://host/x\u00a0', /U\+00A0/],
  ])('%s', (_name, value, what) => refused(value, what));

  test('the field named is the caller\'s; clean URLs, file paths with spaces and empty values still pass', () => {
    refused('rtsp://host/x\r\n', /CR/, 'cameraUrl');
    expect(parseCameraSource('rtsp://cam:Secret-77@host/x')).toEqual({ kind: 'rtsp', url: 'rtsp://cam:Secret-77@host/x', transport: 'tcp' });
    expect(parseCameraSource('/videos/front door.mp4')).toEqual({ kind: 'file', file: '/videos/front door.mp4' });
    expect(parseCameraSource('  ')).toEqual({ kind: 'push' });
  });
});

describe('masking hides the user info up to the last @ of the authority, and every copy of the password', () => {
  test('a raw @ in the password', () => {
    expect(maskUrl('rtsp://cam:CrEt@-991@host/x')).toBe('rtsp://cam:***@host/x');
    expect(maskUrl('rtsp://cam:CrEt@-991@host')).toBe('rtsp://cam:***@host');
    expect(maskUrl('rtsp://cam:a@b@c@host:554?x=1')).toBe('rtsp://cam:***@host:554?x=1');
    expect(urlSecrets('rtsp://cam:CrEt@-991@host/x')).toEqual(['CrEt@-991']);
    expect(userInfo('rtsp://cam:CrEt@-991@host/x')).toBe('cam:CrEt@-991');
  });

  test('an @ after the authority (in the path or query) is not user info', () => {
    expect(maskUrl('rtsp://host/x@y')).toBe('rtsp://host/x@y');
    expect(maskUrl('http://host?mail=a@b')).toBe('http://host?mail=a@b');
    expect(maskUrl('http://host#a@b')).toBe('http://host#a@b');
    expect(urlSecrets('rtsp://host/user:pw@x')).toEqual([]);
    expect(userInfo('rtsp://host/user:pw@x')).toBeUndefined();
  });

  test('a percent-encoded password: masked in the URL, both its forms scrubbed from other text', () => {
    const url = 'rtsp://cam:CrEt%40-991%3Ax@host/x';
    expect(maskUrl(url)).toBe('rtsp://cam:***@host/x');
    expect(urlSecrets(url)).toEqual(['CrEt%40-991%3Ax', 'CrEt@-991:x']);
    expect(maskText(`opening ${url} failed; password CrEt@-991:x refused (raw CrEt%40-991%3Ax)`, urlSecrets(url))).toBe('opening rtsp://cam:***@host/x failed; password *** refused (raw ***)');
  });

  test('a user without a password: the lone user info (often a token) hidden too; no secret to scrub', () => {
    expect(maskUrl('rtsp://admin@host/x')).toBe('rtsp://***@host/x');
    expect(maskUrl('https://tok3n-abcdef@host/snap.jpg')).toBe('https://***@host/snap.jpg');
    expect(urlSecrets('rtsp://admin@host/x')).toEqual([]);
    expect(maskUrl('rtsp://admin:@host/x')).toBe('rtsp://admin:***@host/x');
  });

  test('several URLs in one text, each masked up to its own last @', () => {
    const text = 'tried rtsp://a:p@1@cam1/s then rtsps://b:q@@2@cam2:322/s and http://c@cam3/x, not http://cam4/x@y';
    expect(maskUrl(text)).toBe('tried rtsp://a:***@cam1/s then rtsps://b:***@cam2:322/s and http://***@cam3/x, not http://cam4/x@y');
    const secrets = [...urlSecrets('rtsp://a:p@1-long@cam1/s'), ...urlSecrets('rtsps://b:q@@2-long@cam2:322/s')];
    expect(maskText('ffmpeg said: p@1-long, q@@2-long', secrets)).toBe('ffmpeg said: ***, ***');
  });

  test('secrets in the query and plain URLs', () => {
    expect(maskUrl('http://h/snapshot.cgi?user=admin&pwd=hunter22')).toBe('http://h/snapshot.cgi?user=admin&pwd=***');
    expect(maskUrl('rtsp://192.0.2.10/stream1')).toBe('rtsp://192.0.2.10/stream1');
  });
});

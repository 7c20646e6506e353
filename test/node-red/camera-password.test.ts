import { readFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { carriesPassword, joinPassword } from '../../node-red/lib/camera-password';

// The camera node's password round trip: the editor's dialog (node-red/camera.html's movePassword,
// run as the browser would with its two input fields) splits a Source typed with its password into
// the Source and the Password credential; the runtime joins them again into the same URL.

/** Runs the editor's movePassword on a dialog whose Source and Password fields hold these values. */
function editorSplit(source: string, password = ''): { source: string; password: string } {
  const html = readFileSync(path.join(__dirname, '..', '..', 'node-red', 'camera.html'), 'utf8');
  const code = ['splitPassword', 'movePassword'].map((name) => new RegExp(`function ${name}\\(\\w*\\) \\{[\\s\\S]*?\\n {2}\\}\\n`).exec(html)?.[0] ?? '').join('\n');
  if (!code.includes('function movePassword') || !code.includes('function splitPassword')) throw new Error('no movePassword or splitPassword in camera.html');
  const fields: Record<string, string> = { '#node-input-source': source, '#node-input-password': password };
  const $ = (selector: string) => ({
    val: (value?: string) => {
      if (value === undefined) return fields[selector];
      fields[selector] = value;
      return undefined;
    },
  });
  vm.runInNewContext(`${code}\nmovePassword();`, { $ });
  return { source: fields['#node-input-source'], password: fields['#node-input-password'] };
}

test('a Source typed with its password is split by the editor and joined again by the runtime into the same URL', () => {
  for (const [typed, user, password] of [
    ['rtsp://door:Pa55-word@192.0.2.10:554/stream1', 'door', 'Pa55-word'],
    ['http://admin:p%40ss%3Aw%25rd@192.0.2.11:81/stream?x=1', 'admin', 'p@ss:w%rd'],
    ['rtsps://:only-a-password@cam.example/s', '', 'only-a-password'],
  ]) {
    const split = editorSplit(typed, '__PWRD__');
    expect(split.password).toBe(password);
    expect(split.source).not.toContain(password);
    expect(carriesPassword(split.source)).toBe(false);
    expect(split.source).toBe(typed.replace(/\/\/[^@]*@/, `//${user ? `${user}@` : ''}`));
    const joined = joinPassword(split.source, split.password)!;
    const url = new URL(joined);
    expect([decodeURIComponent(url.username), decodeURIComponent(url.password)]).toEqual([user, password]);
    expect(url.host).toBe(new URL(typed).host);
  }
});

test('a Source without a password, a device or a file is left to the editor and the runtime as it is', () => {
  for (const source of ['rtsp://door@192.0.2.10/stream1', 'http://192.0.2.11/stream', '/dev/video0', 'clip.mp4', '']) {
    expect(editorSplit(source, '__PWRD__')).toEqual({ source, password: '__PWRD__' });
  }
  expect(joinPassword('/dev/video0', 'secret')).toBe('/dev/video0');
  expect(joinPassword('clip.mp4', 'secret')).toBe('clip.mp4');
  expect(joinPassword('rtsp://door@h/s', undefined)).toBe('rtsp://door@h/s');
  expect(joinPassword('http://h:81/stream', 'pw')).toBe('http://:pw@h:81/stream');
  // A flow saved with the password in Source keeps it: the runtime uses it as before.
  expect(joinPassword('rtsp://door:old@h/s', 'new')).toBe('rtsp://door:old@h/s');
  expect(carriesPassword('rtsp://door:old@h/s')).toBe(true);
});

import { main } from '../../cli/main';

// Bad input names the flag it was given with, whatever part of the code refused it: the core's
// message is kept as it is, after the flag its field maps to. Nothing here reaches a service.

async function run(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: (l: string) => void (stdout += `${l}\n`), stderr: (l: string) => void (stderr += `${l}\n`), interrupted: new Promise<void>(() => undefined) };
  const code = await main(argv, { VS_CLIENT_ID: 'x', VS_CLIENT_SECRET: 's' }, io);
  return { code, stdout, stderr };
}

test.each([
  // The watcher's option table refuses leftAfterSeconds: its flag is --left-after.
  [['watch', '--room', 'r', '--collection', 'c', '--left-after', '0'], 'vision-streaming watch: --left-after: leftAfterSeconds must be a number in 1..86400'],
  // The camera's settings refuse bitRateKbps: its flag is --bit-rate; the camera is named in the message.
  [['publish', '--room', 'r', '--source', 'rtsp://192.0.2.10/x', '--bit-rate', '10'], 'vision-streaming publish: --bit-rate: camera 1: bitRateKbps must be a whole number from 50 to 20000'],
  // A room id the core refuses: roomId is --room.
  [['rooms', 'get', '--room', 'a/b'], 'vision-streaming rooms get: --room: roomId must be a single path segment'],
  // A message that names its flag already is not given it twice.
  [['watch', '--room', 'r', '--collection', 'c', '--fps', 'x'], 'vision-streaming watch: --fps must be a number'],
])('%j: exit 2, the flag named first, the message as the code gave it', async (argv, line) => {
  const r = await run(...(argv as string[]));
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.split('\n')[0]).toContain(line as string);
});

// A host that makes an ffmpeg decoder and exits without closing it: the child must not outlive it.
import { createDecoder, FfmpegDecoder } from '../../../shared/decode';

void (async () => {
  const d = await createDecoder({ codec: 'VP8', backend: 'ffmpeg' });
  if (!(d instanceof FfmpegDecoder)) throw new Error('not an ffmpeg decoder');
  process.stdout.write(`${d.pid}\n`);
  process.exit(0);
})();

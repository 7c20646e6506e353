import type { Browser, Page } from 'playwright-core';
import { muxClip } from '../../shared/clips/mux';
import type { VideoCodec } from '../../shared/frames';
import { astronautClip } from '../decode/support/clips';
import { CHROMIUM, launchChromium } from '../support/live-browser';
import { ffprobeClip, ffprobePath, probeClip } from './support/probe';

// Clips play in a browser: frames as the receiver hands them over (real encoder output, 15/s, RTP
// times), muxed as a clip is, then played by Debian's headless Chromium in a <video> from a blob:
// it plays to its end, and the browser's duration is the clip's.

const FRAMES = 45;
const FPS = 15;
/** The clip as muxed: the first key frame to the last frame's end. */
const EXPECTED_S = FRAMES / FPS;

const describeWithBrowser = CHROMIUM ? describe : describe.skip;
if (!CHROMIUM) console.log('clip playback tests skipped: no Chromium on this machine (apt-get install chromium)');

/** What the page's <video> did with a clip. */
interface Played {
  canPlay: string;
  duration: number;
  ended: boolean;
  currentTime: number;
  error: string | null;
}

/** Plays `data` as `mime` in a <video> (muted, as autoplay allows) until it ends, fails or 15 s pass. */
async function play(page: Page, data: Buffer, mime: string): Promise<Played> {
  return page.evaluate(
    async ({ b64, type }) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const video = document.createElement('video');
      video.muted = true;
      document.body.append(video);
      const canPlay = video.canPlayType(type);
      video.src = URL.createObjectURL(new Blob([bytes], { type }));
      const outcome = await new Promise<string | null>((resolve) => {
        const timer = setTimeout(() => resolve(null), 15_000);
        video.addEventListener('ended', () => (clearTimeout(timer), resolve(null)));
        video.addEventListener('error', () => (clearTimeout(timer), resolve(`${video.error?.code}: ${video.error?.message}`)));
        void video.play().catch((e: Error) => (clearTimeout(timer), resolve(`play(): ${e.message}`)));
      });
      return { canPlay, duration: video.duration, ended: video.ended, currentTime: video.currentTime, error: outcome };
    },
    { b64: data.toString('base64'), type: mime },
  );
}

describeWithBrowser('a clip plays in Chromium', () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    browser = await launchChromium();
    page = await (await browser.newContext()).newPage();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  test.each<[VideoCodec, string]>([
    ['VP8', 'video/webm; codecs="vp8"'],
    ['H264', 'video/mp4; codecs="avc1.42E01E"'],
  ])('%s: the clip plays to its end and lasts as muxed', async (codec, mime) => {
    // Cut at the second key frame (key frames 1 s apart), as a clip from a pre-roll is.
    const clip = await astronautClip(codec, FRAMES + FPS, 320, 240, FPS);
    const muxed = await muxClip(clip.frames.slice(FPS));
    expect(muxed.durationS).toBeCloseTo(EXPECTED_S, 2);
    const probed = await probeClip(muxed.data, muxed.container);
    expect(probed).toMatchObject({ firstIsKey: true, packets: FRAMES, errors: '' });
    const ffprobe = await ffprobePath();
    if (ffprobe) {
      const read = await ffprobeClip(ffprobe, muxed.data, muxed.container);
      expect(read).toMatchObject({ codec: codec === 'VP8' ? 'vp8' : 'h264', width: 320, height: 240, firstFrameKey: true });
      expect(Math.abs(read.durationS - EXPECTED_S)).toBeLessThanOrEqual(0.5);
    }
    const played = await play(page, muxed.data, mime);
    // Debian builds Chromium with its proprietary codecs (H.264 in MP4); a build without them says '' here.
    expect(played.canPlay).not.toBe('');
    expect(played.error).toBeNull();
    expect(played.ended || played.currentTime > 1).toBe(true);
    expect(Math.abs(played.duration - EXPECTED_S)).toBeLessThanOrEqual(0.5);
  }, 60_000);
});

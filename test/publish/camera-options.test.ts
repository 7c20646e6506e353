import path from 'node:path';
import { FfmpegNotFoundError } from '../../shared/media';
import { joinAnnexB, splitAnnexB, nalType } from '../../shared/frames';
import { cameraArgs, CameraPublisher, checkCamera, imageEncoderArgs, maskUrl, openCameraSource, ParameterSetKeeper, parseCameraSource } from '../../shared/publish';

// The parts of publishing a camera that need no camera: reading sources, masking, ffmpeg's
// command lines (the V4L2 one included: no test machine has a webcam), the H.264 relay's framing.

const encoding = { codec: 'VP8' as const, fps: 10, bitRateKbps: 800 };

describe('sources', () => {
  test('each kind of source is recognised', () => {
    expect(parseCameraSource('rtsp://u:p@192.0.2.10/stream1')).toEqual({ kind: 'rtsp', url: 'rtsp://u:p@192.0.2.10/stream1', transport: 'tcp' });
    expect(parseCameraSource('rtsps://192.0.2.10/s', { transport: 'udp' })).toMatchObject({ kind: 'rtsp', transport: 'udp' });
    expect(parseCameraSource('http://192.0.2.11:81/stream')).toEqual({ kind: 'http', url: 'http://192.0.2.11:81/stream' });
    expect(parseCameraSource('https://cam.example/snapshot.jpg')).toMatchObject({ kind: 'http' });
    expect(parseCameraSource('/dev/video0')).toEqual({ kind: 'v4l2', device: '/dev/video0' });
    expect(parseCameraSource('clip.mp4')).toEqual({ kind: 'file', file: path.resolve('clip.mp4') });
    expect(parseCameraSource(undefined)).toEqual({ kind: 'push' });
    expect(parseCameraSource('  ')).toEqual({ kind: 'push' });
  });

  test('bad sources get an InputError naming the field, the password masked', () => {
    const bad = (v: unknown, o?: { transport?: string }) => {
      try {
        parseCameraSource(v, o);
      } catch (err) {
        return err as { name: string; field: string; message: string };
      }
      throw new Error(`accepted ${String(v)}`);
    };
    expect(bad('ftp://u:secret1@host/x')).toMatchObject({ name: 'InputError', field: 'source', message: expect.stringContaining('ftp://u:***@host/x') });
    expect(bad('ftp://u:secret1@host/x').message).not.toContain('secret1');
    expect(bad('rtmp://host/live')).toMatchObject({ field: 'source', message: expect.stringMatching(/unsupported scheme rtmp/) });
    expect(bad('rtsp://u:secret1@[bad/x').message).not.toContain('secret1');
    expect(bad('/dev/sda1')).toMatchObject({ field: 'source', message: expect.stringMatching(/not a V4L2/) });
    expect(bad('rtsp://host/x', { transport: 'sctp' })).toMatchObject({ field: 'transport' });
    expect(bad(42)).toMatchObject({ field: 'source' });
  });

  test('settings are checked before anything starts', () => {
    expect(() => checkCamera({ source: 'rtsp://h/x', codec: 'VP9' as never })).toThrow(expect.objectContaining({ field: 'codec' }));
    expect(() => checkCamera({ source: 'rtsp://h/x', fps: 0 })).toThrow(expect.objectContaining({ field: 'fps' }));
    expect(() => checkCamera({ source: 'rtsp://h/x', bitRateKbps: 10 })).toThrow(expect.objectContaining({ field: 'bitRateKbps' }));
    expect(() => checkCamera({ source: 'rtsp://h/x', width: 640 })).toThrow(expect.objectContaining({ field: 'height' }));
    expect(() => checkCamera({ source: 'rtsp://h/x', width: 641, height: 480 })).toThrow(expect.objectContaining({ field: 'width' }));
    expect(() => checkCamera({ source: 'rtsp://h/x', maxRetrySeconds: 60 })).toThrow(expect.objectContaining({ field: 'maxRetrySeconds' }));
    expect(() => new CameraPublisher({ source: 'gopher://h/x', getTicket: () => Promise.reject(new Error('unused')) })).toThrow(expect.objectContaining({ field: 'source' }));
    // H.264 from an RTSP camera is relayed; VP8 (the default) and other sources are encoded.
    expect(checkCamera({ source: 'rtsp://h/x', codec: 'H264' }).relay).toBe(true);
    expect(checkCamera({ source: 'rtsp://h/x', codec: 'H264', reencode: true }).relay).toBe(false);
    expect(checkCamera({ source: 'rtsp://h/x' })).toMatchObject({ relay: false, codec: 'VP8', fps: 10, bitRateKbps: 800, stallMs: 5000, maxRetryMs: 30_000 });
    expect(checkCamera({ source: 'http://h/stream', codec: 'H264' }).relay).toBe(false);
  });

  test('a missing device, or no ffmpeg, is said plainly', async () => {
    await expect(openCameraSource({ source: '/dev/video97' })).rejects.toMatchObject({ name: 'InputError', field: 'source', message: expect.stringMatching(/no such device: \/dev\/video97/) });
    const err = await openCameraSource({ source: 'rtsp://h/x', ffmpegPath: '/nonexistent/ffmpeg' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FfmpegNotFoundError);
    expect((err as Error).message).toMatch(/publishing a camera needs ffmpeg/);
  });
});

test('passwords in camera URLs are masked, the user name kept', () => {
  expect(maskUrl('rtsp://admin:hunter22@192.0.2.10:554/stream1')).toBe('rtsp://admin:***@192.0.2.10:554/stream1');
  expect(maskUrl('failed: http://u:p%40ss@h/x and rtsps://a:b@c/d')).toBe('failed: http://u:***@h/x and rtsps://a:***@c/d');
  expect(maskUrl('http://h/snapshot.cgi?user=admin&pwd=hunter22')).toBe('http://h/snapshot.cgi?user=admin&pwd=***');
  expect(maskUrl('rtsp://192.0.2.10/stream1')).toBe('rtsp://192.0.2.10/stream1');
});

describe('ffmpeg command lines', () => {
  test('an RTSP camera: TCP by default, UDP when asked; H.264 relayed with copy, else encoded with a key frame a second and a capped bit rate', () => {
    const relay = cameraArgs({ kind: 'rtsp', url: 'rtsp://h/x', transport: 'tcp' }, { ...encoding, codec: 'H264' }, true).join(' ');
    expect(relay).toContain('-rtsp_transport tcp');
    expect(relay).toContain('-i rtsp://h/x -an -c:v copy -bsf:v h264_mp4toannexb');
    expect(relay).not.toMatch(/libx264|-vf/);
    const encoded = cameraArgs({ kind: 'rtsp', url: 'rtsp://h/x', transport: 'udp' }, encoding, false).join(' ');
    expect(encoded).toContain('-rtsp_transport udp');
    expect(encoded).toContain('-vf fps=10,format=yuv420p -g 10 -keyint_min 10');
    expect(encoded).toContain('-c:v libvpx');
    expect(encoded).toContain('-b:v 800k -maxrate 800k');
    const h264 = cameraArgs({ kind: 'rtsp', url: 'rtsp://h/x', transport: 'tcp' }, { ...encoding, codec: 'H264', width: 640, height: 480 }, false).join(' ');
    expect(h264).toContain('-c:v libx264 -preset ultrafast -tune zerolatency -profile:v baseline');
    expect(h264).toContain('scale=640:480');
  });

  test('a V4L2 webcam: the documented argument list', () => {
    expect(cameraArgs({ kind: 'v4l2', device: '/dev/video0' }, { ...encoding, width: 640, height: 480 }, false)).toEqual([
      '-hide_banner', '-loglevel', 'error',
      '-f', 'v4l2', '-framerate', '10', '-video_size', '640x480', '-i', '/dev/video0',
      '-an', '-vf', 'fps=10,scale=640:480,format=yuv420p', '-g', '10', '-keyint_min', '10',
      '-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-lag-in-frames', '0', '-auto-alt-ref', '0', '-error-resilient', '1',
      '-b:v', '800k', '-maxrate', '800k', '-bufsize', '1600k', '-flush_packets', '1', '-f', 'ivf', 'pipe:1',
    ]);
  });

  test('pictures: letterboxed into a fixed frame, kept at their own pace, a key frame forced each second', () => {
    const args = imageEncoderArgs('png', encoding).join(' ');
    expect(args).toContain('-f mpjpeg -c:v png -i pipe:0');
    expect(args).toContain('scale=640:480:force_original_aspect_ratio=decrease,pad=640:480');
    expect(args).toContain('-vsync passthrough -force_key_frames expr:gte(t,n_forced*1)');
  });

  test('key-frame phases: one decode split into one encoder per phase, each on its own pipe, key frames staggered', () => {
    const two = cameraArgs({ kind: 'rtsp', url: 'rtsp://h/x', transport: 'tcp' }, { ...encoding, keyFramePhases: 2 }, false).join(' ');
    expect(two).toContain('-filter_complex [0:v]fps=10,format=yuv420p,split=2[p0][p1]');
    expect(two).toContain('-map [p0] -g 10 -keyint_min 10 -c:v libvpx');
    expect(two).toMatch(/-map \[p1\] -g 20 -force_key_frames expr:gte\(n,n_forced\*10\+5\) -c:v libvpx .* pipe:3$/);
    expect(two.match(/-b:v 800k/g)).toHaveLength(2);
    const pictures = imageEncoderArgs('jpeg', { ...encoding, keyFramePhases: 4 }).join(' ');
    expect(pictures).toContain('split=4[p0][p1][p2][p3]');
    expect(pictures).toContain('-force_key_frames expr:gte(t,n_forced*1+0.75)');
    expect(pictures).toContain('pipe:5');
    // No more phases than frames in the interval: at 2 fps, two.
    expect(cameraArgs({ kind: 'v4l2', device: '/dev/video0' }, { ...encoding, fps: 2, keyFramePhases: 4 }, false).join(' ')).toContain('split=2[p0][p1]');
    expect(checkCamera({ source: 'rtsp://h/x' }).keyFramePhases).toBe(2);
    expect(() => checkCamera({ source: 'rtsp://h/x', keyFramePhases: 5 })).toThrow(expect.objectContaining({ field: 'keyFramePhases', limit: '1..4' }));
  });
});

test('the H.264 relay starts at a key frame and puts the parameter sets in front of every key frame', () => {
  const sps = Buffer.from([0x67, 0x42, 0xc0, 0x1e, 0x01]);
  const pps = Buffer.from([0x68, 0xce, 0x3c, 0x80]);
  const idr = Buffer.from([0x65, 0x88, 0x84, 0x01]);
  const p = Buffer.from([0x41, 0x9a, 0x02]);
  const keeper = new ParameterSetKeeper();
  expect(keeper.take(joinAnnexB([p]))).toBeUndefined();
  const first = keeper.take(joinAnnexB([sps, pps, idr]))!;
  expect(splitAnnexB(first).map(nalType)).toEqual([7, 8, 5]);
  expect(splitAnnexB(keeper.take(joinAnnexB([p]))!).map(nalType)).toEqual([1]);
  // A later key frame sent without them gets the latest SPS/PPS.
  expect(splitAnnexB(keeper.take(joinAnnexB([Buffer.from([0x09, 0xf0]), idr]))!).map(nalType)).toEqual([9, 7, 8, 5]);
  expect(keeper.skipped).toBe(1);
});

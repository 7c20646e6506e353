import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import * as root from '../../shared';
import { ApiError, ClientError, InputError, isAbortError, isClientError } from '../../shared/errors';
import { DecoderFailedError, DecoderUnavailableError } from '../../shared/decode';
import { FfmpegNotFoundError, findFfmpeg } from '../../shared/media';
import { PublishError } from '../../shared/publish/errors';
import { IvfFileSource } from '../../shared/publish';
import { SignalingError, errorFromClose } from '../../shared/signaling';
import * as vision from '../../shared/vision';
import * as streaming from '../../shared/streaming';
import { caught } from './harness';

const SHARED = resolve(__dirname, '..', '..', 'shared');

/** Every module a source file pulls in, following relative imports; bare specifiers are collected. */
function importGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(file, 'utf8');
    // Type-only imports vanish from the compiled output and load nothing.
    for (const m of text.matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?from\s+'([^']+)'/gms)) {
      const spec = m[1];
      if (!spec.startsWith('.')) {
        packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
        continue;
      }
      const base = resolve(dirname(file), spec);
      const candidates = [`${base}.ts`, join(base, 'index.ts')];
      const found = candidates.find((c) => {
        try {
          readFileSync(c);
          return true;
        } catch {
          return false;
        }
      });
      if (!found) throw new Error(`cannot resolve ${spec} from ${file}`);
      visit(found);
    }
  };
  visit(entry);
  return { files, packages };
}

describe('one error base', () => {
  it('every error class of the package is a ClientError with a code and retryable', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'vs-errors-'));
    try {
      writeFileSync(join(tmp, 'short.ivf'), 'DKIF');
      const publish = await caught(() => new IvfFileSource(join(tmp, 'short.ivf')).open());
      const ffmpeg = await caught(() => findFfmpeg({ ffmpegPath: join(tmp, 'missing-ffmpeg') }));
      const errors: ClientError[] = [
        ApiError.from({ operation: 'x', status: 503, serviceMessage: 'down', retryable: true }),
        new InputError('invalid_input', 'image is empty', { field: 'image', limit: 'non-empty' }),
        errorFromClose(1008, 'RAPI-INVALID-TOKEN'),
        ffmpeg as ClientError,
        publish as ClientError,
        DecoderUnavailableError.from('H264', 'wasm', 'h264decoder is not installed'),
        DecoderFailedError.from('VP8', 'ffmpeg', 'the child exited'),
      ];
      expect(publish).toBeInstanceOf(PublishError);
      expect(ffmpeg).toBeInstanceOf(FfmpegNotFoundError);
      for (const err of errors) {
        expect(err).toBeInstanceOf(ClientError);
        expect(isClientError(err)).toBe(true);
        expect(typeof err.code).toBe('string');
        expect(typeof err.retryable).toBe('boolean');
        expect(err.toJSON()).toMatchObject({ name: err.name, message: err.message, code: err.code, retryable: err.retryable });
      }
      expect(errors.map((e) => e.name)).toEqual(['ApiError', 'InputError', 'SignalingError', 'FfmpegNotFoundError', 'PublishError', 'DecoderUnavailableError', 'DecoderFailedError']);
      expect(errors.map((e) => e.code)).toEqual(['http_503', 'invalid_input', 'RAPI-INVALID-TOKEN', 'ffmpeg_not_found', 'source_failed', 'decoder_unavailable', 'decoder_failed']);
      expect(errors[0]).toMatchObject({ status: 503, retryable: true });
      expect(errors[2]).toMatchObject({ retryable: true, rejoin: 'new-ticket' });
      expect(SignalingError.from({ reason: 'FAILURE-SDP-PARSE' }).retryable).toBe(false);
      expect(isClientError(new Error('plain'))).toBe(false);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('isAbortError knows the abort error and nothing else', () => {
    expect(isAbortError(ApiError.from({ operation: 'x', serviceMessage: 'aborted by the caller', code: 'ABORTED', retryable: false }))).toBe(true);
    expect(isAbortError(ApiError.from({ operation: 'x', serviceMessage: 'closed', code: 'closed', retryable: false }))).toBe(false);
    expect(isAbortError(Object.assign(new Error('x'), { name: 'AbortError' }))).toBe(false);
  });
});

describe('public API', () => {
  it('the root exports the clients, session, publisher and errors, and no internals', () => {
    for (const name of ['VisionClient', 'StreamingClient', 'SignalingSession', 'Publisher', 'openVideoSource', 'TokenSource', 'requestToken', 'acquireTokenSource', 'defaultDispatcher', 'ClientError', 'ApiError', 'InputError', 'SignalingError', 'FfmpegNotFoundError', 'PublishError', 'isClientError', 'isAbortError', 'VISION_SCOPES', 'STREAMING_SCOPES', 'ALL_SCOPES']) {
      expect(root).toHaveProperty(name);
    }
    for (const name of ['HttpClient', 'parseErrorBody', 'parseServiceBase', 'backoffDelay', 'acquireDispatcher', 'parseTicket', 'FrameAssembler', 'IvfReader', 'parseVp8Frame', 'ffmpegArgs', 'ffmpegEncoders', 'resolveConnectSettings', 'errorFromClose', 'CLOSE_REASONS', 'sniffImage', 'resolveImage']) {
      expect(root).not.toHaveProperty(name);
    }
  });

  it('the subpaths carry their client plus errors and tokens', () => {
    for (const entry of [vision, streaming] as Array<Record<string, unknown>>) {
      for (const name of ['ClientError', 'ApiError', 'InputError', 'isClientError', 'isAbortError', 'TokenSource', 'requestToken', 'defaultDispatcher']) expect(entry).toHaveProperty(name);
    }
    expect(vision).toHaveProperty('VisionClient');
    expect(streaming).toHaveProperty('StreamingClient');
    expect(vision).not.toHaveProperty('StreamingClient');
    expect(streaming).not.toHaveProperty('SignalingSession');
  });

  it('neither subpath loads werift, the session or the publisher', () => {
    for (const entry of ['vision/index.ts', 'streaming/index.ts']) {
      const { files, packages } = importGraph(join(SHARED, entry));
      expect([...packages].filter((p) => !p.startsWith('node:'))).toEqual(['undici']);
      const loaded = [...files].map((f) => f.slice(SHARED.length + 1));
      expect(loaded.filter((f) => /^(signaling|publish|frames|media|decode|picture|watch)\//.test(f))).toEqual([]);
    }
    // The root does load it: the check above can see werift when it is there.
    expect(importGraph(join(SHARED, 'index.ts')).packages).toContain('werift');
  });

  it('package.json maps each subpath to its compiled index', () => {
    const pkg = JSON.parse(readFileSync(resolve(SHARED, '..', 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    expect(pkg.exports['.']).toEqual({ types: './dist/shared/index.d.ts', default: './dist/shared/index.js' });
    for (const sub of ['vision', 'streaming']) {
      expect(pkg.exports[`./${sub}`]).toEqual({ types: `./dist/shared/${sub}/index.d.ts`, default: `./dist/shared/${sub}/index.js` });
    }
    expect(pkg.exports['./package.json']).toBe('./package.json');
  });
});

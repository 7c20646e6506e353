import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import * as errors from '../../shared/errors';
import { ApiError, ClientError, InputError, isClientError } from '../../shared/errors';
import { PeopleError } from '../../shared/people/errors';
import { CameraFailure } from '../../shared/publish/camera-failure';
import { PartTooLarge } from '../../shared/publish/mjpeg-parts';
import { RtspProtocolError } from '../../shared/publish/rtsp-message';

const ROOT = resolve(__dirname, '..', '..');

type ErrorClass = (new (code: string, message: string, details: Record<string, unknown>) => ClientError) & { brand?: symbol };

/** Every error class the package root and its index modules export, plus the camera source's own (not exported, but users see them as causes). */
function exportedErrorClasses(): Map<string, ErrorClass> {
  const found = new Map<string, ErrorClass>();
  const indexes = [join(ROOT, 'shared', 'index.ts'), ...readdirSync(join(ROOT, 'shared')).map((dir) => join(ROOT, 'shared', dir, 'index.ts')).filter((file) => statSync(file, { throwIfNoEntry: false })?.isFile())];
  for (const file of indexes) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    for (const [name, value] of Object.entries(require(file) as Record<string, unknown>)) {
      if (typeof value === 'function' && (value === Error || value.prototype instanceof Error)) found.set(name, value as ErrorClass);
    }
  }
  for (const cls of [CameraFailure, RtspProtocolError, PartTooLarge]) found.set(cls.name, cls as unknown as ErrorClass);
  return found;
}

/** The fields each class needs besides the shared ones; a class missing here gets only those. */
const OWN_DETAILS: Record<string, Record<string, unknown>> = {
  InputError: { field: 'maxResults', limit: '1 to 10' },
  ApiError: { operation: 'detectFaces', serviceMessage: 'down for maintenance' },
  FfmpegNotFoundError: { tried: ['FFMPEG_PATH: not set'] },
  DecoderUnavailableError: { codec: 'VP8', backend: 'wasm', reason: 'not installed' },
  DecoderFailedError: { codec: 'H264', backend: 'ffmpeg' },
  SignalingError: { closeCode: 4000, rejoin: 'never' },
};

/** Codes the classes whose code is one literal accept. */
const CODES: Record<string, string> = {
  InputError: 'invalid_input',
  FileLockError: 'file_locked',
  FfmpegNotFoundError: 'ffmpeg_not_found',
  DecoderUnavailableError: 'decoder_unavailable',
  DecoderFailedError: 'decoder_failed',
  CameraFailure: 'camera_refused',
  RtspProtocolError: 'rtsp_protocol',
  PartTooLarge: 'part_too_large',
};

describe('every error class takes (code, message, details)', () => {
  const classes = exportedErrorClasses();

  it('finds the error classes of the public entry points', () => {
    for (const name of ['ClientError', 'ApiError', 'InputError', 'SignalingError', 'PublishError', 'FfmpegNotFoundError', 'WatchError', 'VisitorError', 'PeopleError', 'DecoderUnavailableError', 'DecoderFailedError']) {
      expect(classes.has(name)).toBe(true);
    }
  });

  it.each([...classes.keys()])('%s: the code, the message and every detail land on the error', (name) => {
    const Cls = classes.get(name)!;
    // Input is never retryable and got no response: InputError takes only its own fields.
    const details = { ...(name === 'InputError' ? {} : { retryable: true, status: 409 }), ...OWN_DETAILS[name] };
    const code = CODES[name] ?? 'some_code';
    const err = new Cls(code, 'what went wrong', details);
    expect(err).toBeInstanceOf(Cls);
    expect(err).toBeInstanceOf(ClientError);
    expect(isClientError(err)).toBe(true);
    expect(err.name).toBe(name);
    expect(err.code).toBe(code);
    expect(err.message).toBe('what went wrong');
    for (const [key, value] of Object.entries(details)) expect({ [key]: (err as unknown as Record<string, unknown>)[key] }).toEqual({ [key]: value });
    // The brands stay out of what users see.
    expect(Object.getOwnPropertySymbols(err).every((s) => !Object.getOwnPropertyDescriptor(err, s)?.enumerable)).toBe(true);
    expect(JSON.parse(JSON.stringify(err))).toEqual(JSON.parse(JSON.stringify(err.toJSON())));
  });

  it('each class has a brand of its own', () => {
    const brands = [...classes.values()].map((cls) => {
      expect(cls.brand).toBe(Symbol.for(`n8n-nodes-vision-streaming.${cls.name}`));
      return cls.brand;
    });
    expect(new Set(brands).size).toBe(brands.length);
  });

  it('keeps the built messages and the shapes users see', () => {
    const api = ApiError.from({ operation: 'detectFaces', status: 503, serviceMessage: 'down', retryable: true });
    expect(api.toJSON()).toEqual({ name: 'ApiError', message: 'detectFaces failed: HTTP 503: down', operation: 'detectFaces', status: 503, serviceMessage: 'down', code: 'http_503', retryable: true, retryAfterMs: undefined });
    const input = new InputError('invalid_input', 'maxResults must be 1 to 10', { field: 'maxResults', limit: '1 to 10' });
    expect(input.toJSON()).toEqual({ name: 'InputError', message: 'maxResults must be 1 to 10', code: 'invalid_input', retryable: false, field: 'maxResults', limit: '1 to 10' });
    expect(Object.keys(input).sort()).toEqual(['code', 'field', 'limit', 'name', 'retryable', 'status']);
    const refused = new CameraFailure('camera_refused', 'the camera refused the credentials');
    expect(refused.refused).toBe(true);
    expect(new CameraFailure('camera_failed', 'the camera ended the stream').refused).toBe(false);
  });
});

describe('instanceof across two copies of the package', () => {
  let other: { errors: typeof errors; people: { PeopleError: typeof PeopleError } };
  beforeAll(() => {
    // A fresh module registry: the copy a second install of the package would load.
    jest.isolateModules(() => {
      /* eslint-disable @typescript-eslint/no-require-imports */
      other = { errors: require('../../shared/errors') as typeof errors, people: require('../../shared/people/errors') as { PeopleError: typeof PeopleError } };
      /* eslint-enable @typescript-eslint/no-require-imports */
    });
  });

  it('is another copy indeed', () => {
    expect(other.errors.InputError).not.toBe(InputError);
    expect(Object.getPrototypeOf(new other.errors.InputError('invalid_input', 'x', { field: 'f' }))).not.toBe(InputError.prototype);
  });

  it('holds both ways for the same class', () => {
    const theirs = new other.errors.InputError('invalid_input', 'bad', { field: 'image' });
    const ours = new InputError('invalid_input', 'bad', { field: 'image' });
    expect(theirs instanceof InputError).toBe(true);
    expect(theirs instanceof ClientError).toBe(true);
    expect(theirs instanceof Error).toBe(true);
    expect(ours instanceof other.errors.InputError).toBe(true);
    expect(ours instanceof other.errors.ClientError).toBe(true);
    expect(isClientError(theirs)).toBe(true);
    expect(other.errors.isClientError(ours)).toBe(true);
    expect(errors.isAbortError(other.errors.ApiError.from({ operation: 'x', serviceMessage: 'aborted by the caller', code: 'ABORTED', retryable: false }))).toBe(true);
  });

  it('holds for subclasses in other modules, and their parents', () => {
    const theirs = new other.people.PeopleError('people_conflict', 'taken');
    expect(theirs instanceof PeopleError).toBe(true);
    expect(theirs instanceof ClientError).toBe(true);
    expect(new PeopleError('people_conflict', 'taken') instanceof other.errors.ClientError).toBe(true);
  });

  it('does not confuse classes', () => {
    const theirInput = new other.errors.InputError('invalid_input', 'bad', { field: 'image' });
    const theirApi = new other.errors.ApiError('http_500', 'failed', { operation: 'x', serviceMessage: 'boom', retryable: true });
    const theirBase = new other.errors.ClientError('some_code', 'failed');
    expect(theirInput instanceof ApiError).toBe(false);
    expect(theirApi instanceof InputError).toBe(false);
    expect(theirApi instanceof ApiError).toBe(true);
    expect(theirBase instanceof InputError).toBe(false);
    expect(theirBase instanceof ClientError).toBe(true);
    expect(theirInput instanceof PeopleError).toBe(false);
    expect(new ApiError('http_500', 'failed', { operation: 'x', serviceMessage: 'boom', retryable: true }) instanceof other.errors.InputError).toBe(false);
    for (const value of [new Error('plain'), new TypeError('t'), {}, Object.create(null), null, undefined, 'InputError', 42]) {
      expect(value instanceof ClientError).toBe(false);
      expect(isClientError(value)).toBe(false);
    }
  });
});

/** Every class in the package's sources that extends a built-in error directly: file, line and class name. */
function classesExtendingBuiltInErrors(): string[] {
  const builtIns = new Set(Object.getOwnPropertyNames(globalThis).filter((name) => {
    const value = (globalThis as Record<string, unknown>)[name];
    return typeof value === 'function' && (value === Error || (value as { prototype?: unknown }).prototype instanceof Error);
  }));
  const hits: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(file);
      } else if (/\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
        const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
        const visit = (node: ts.Node): void => {
          if ((ts.isClassDeclaration(node) || ts.isClassExpression(node)) && node.heritageClauses) {
            for (const clause of node.heritageClauses) {
              if (clause.token !== ts.SyntaxKind.ExtendsKeyword) continue;
              const base = clause.types[0].expression.getText(source);
              if (builtIns.has(base)) hits.push(`${relative(ROOT, file)}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1} ${node.name?.getText(source) ?? '(anonymous)'} extends ${base}`);
            }
          }
          ts.forEachChild(node, visit);
        };
        visit(source);
      }
    }
  };
  for (const dir of ['shared', 'cli', 'node-red', 'nodes', 'credentials']) walk(join(ROOT, dir));
  return hits;
}

describe('no failure of the package is a plain Error', () => {
  it('only ClientError extends Error directly', () => {
    expect(classesExtendingBuiltInErrors()).toEqual([`${join('shared', 'errors.ts')}:${lineOf('shared/errors.ts', 'export class ClientError extends Error')} ClientError extends Error`]);
  });
});

/** The line of the first occurrence of `text` in a file of the package. */
function lineOf(file: string, text: string): number {
  return readFileSync(join(ROOT, file), 'utf8').split('\n').findIndex((line) => line.includes(text)) + 1;
}

import { InputError, isClientError } from '../shared/errors';
import type { Flag } from './flags';
import { CLI_FLAGS } from './option-flags';

/**
 * Where a core error's `field` is given on the command line: the field's flag. The one table of
 * it for every command; a field not named here is its own flag (`room` is --room). The watcher's
 * options come from their flag table (leftAfterSeconds is --left-after).
 */
const FIELD_FLAGS: Readonly<Record<string, string>> = {
  ...Object.fromEntries(Object.entries(CLI_FLAGS).map(([option, { flag }]) => [option, flag])),
  // people
  person: 'name',
  from: 'name',
  into: 'to',
  images: 'image',
  visitorId: 'visitor',
  store: 'people',
  // the history
  maxAgeDays: 'keep-days',
  maxMediaBytes: 'keep-bytes',
  historyMedia: 'history-media',
  location: 'history',
  media: 'history-media',
  person_id: 'person',
  visitor_id: 'visitor',
  stream_id: 'stream',
  visit_id: 'visit',
  // every command that names a collection, a room, a face
  collectionId: 'collection',
  roomId: 'room',
  faceId: 'face',
  maxResults: 'max-results',
  // publish
  bitRateKbps: 'bit-rate',
  width: 'size',
  height: 'size',
  stallSeconds: 'stall',
  snapshotFps: 'snapshot-fps',
  keyFramePhases: 'key-frame-phases',
};

/** The flag (without --) of `field` among a command's flags; undefined when the command has none for it. */
export function flagOfField(field: string, flags: readonly Flag[]): string | undefined {
  const root = field.split(/[.[]/)[0];
  const name = FIELD_FLAGS[root] ?? root;
  return flags.some((f) => f.name === name) ? name : undefined;
}

/** An error in one line: its message and, for the package's errors, its code. */
export function describe(err: unknown): string {
  if (isClientError(err)) return `${err.message} [${err.code}]`;
  return err instanceof Error ? err.message : String(err);
}

/**
 * An InputError as the command line says it: its message as it is, after the flag its field is
 * given with when the message does not begin with that flag already (a core error names the
 * core's field: `leftAfterSeconds must be ...` becomes `--left-after: leftAfterSeconds must be ...`).
 */
export function inputMessage(err: InputError, flags: readonly Flag[]): string {
  const flag = flagOfField(err.field, flags);
  return flag === undefined || err.message.startsWith(`--${flag}`) ? err.message : `--${flag}: ${err.message}`;
}

/** Says on stderr why a command's options or input were refused (the flag named), and where its help is; the exit code of bad input, 2. */
export function refuseInput(command: string, err: unknown, flags: readonly Flag[], io: { stderr(line: string): void }, mask: (text: string) => string = (t) => t): number {
  io.stderr(`vision-streaming ${command}: ${mask(err instanceof InputError ? inputMessage(err, flags) : describe(err))}`);
  io.stderr(`see: vision-streaming ${command.split(' ')[0]} --help`);
  return 2;
}

/**
 * Says on stderr why a command failed and gives its exit code: bad input (an InputError) exits 2
 * as refuseInput says it; anything else (the service, a file) exits 1. `mask` hides what must not
 * show (a camera password).
 */
export function reportFailure(command: string, err: unknown, flags: readonly Flag[], io: { stderr(line: string): void }, mask: (text: string) => string = (t) => t): number {
  if (err instanceof InputError) return refuseInput(command, err, flags, io, mask);
  io.stderr(`vision-streaming ${command}: ${mask(describe(err))}`);
  return 1;
}

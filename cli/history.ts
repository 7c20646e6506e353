import { InputError } from '../shared/errors';
import type { HistoryOption } from '../shared/history/option';
import { historyTime } from '../shared/history/host-query';
import type { HistoryQuery, HistoryStore, VisitRecord } from '../shared/history/types';
import { FilePeopleStore, peopleKey } from '../shared/people/file-store';
import { describe, reportFailure } from './errors';
import { CREDENTIAL_FLAGS, HELP_FLAG, credentialsOf, helpPage, numberFlag, parseFlags, type Flag, type FlagValues } from './flags';
import { readImageArgument } from './input-files';
import type { CliIo } from './io';

/** --history and the flags that go with it, as watch and people forget take them. */
export const HISTORY_FLAG: Flag = { name: 'history', env: 'VS_HISTORY', value: 'DB|URL', help: 'the history: a SQLite file (made 0600, its folder 0700), or a postgres:// URL' };
export const HISTORY_MEDIA_FLAG: Flag = { name: 'history-media', env: 'VS_HISTORY_MEDIA', value: 'DIR', help: "the history's face crops, snapshots and clips (files 0600 in a 0700 folder); default a folder beside the SQLite file (required with a URL)" };
const KEEP_FLAGS: readonly Flag[] = [
  { name: 'keep-days', env: 'VS_KEEP_DAYS', value: 'N', help: 'with --history: visits older than this go (swept at start and hourly); default 30' },
  { name: 'keep-bytes', env: 'VS_KEEP_BYTES', value: 'SIZE', help: "with --history: the media's total size at most (e.g. 500MB, 2GB; the oldest go first); default 2GB" },
];

/** The history flags of `watch`. */
export const WATCH_HISTORY_FLAGS: readonly Flag[] = [HISTORY_FLAG, HISTORY_MEDIA_FLAG, ...KEEP_FLAGS];

/** The watcher's history option from --history, --history-media, --keep-days and --keep-bytes (undefined without --history). */
export function historyOptionOf(flags: FlagValues): HistoryOption | undefined {
  const location = flags.get('history');
  const keepDays = numberFlag(flags.get('keep-days'), 'keep-days');
  const keepBytes = sizeFlag(flags.get('keep-bytes'), 'keep-bytes');
  const media = flags.get('history-media');
  if (location === undefined) {
    const stray = media !== undefined ? 'history-media' : keepDays !== undefined ? 'keep-days' : keepBytes !== undefined ? 'keep-bytes' : undefined;
    if (stray) throw new InputError('invalid_input', `--${stray} goes with --history`, { field: stray, limit: 'with --history' });
    return undefined;
  }
  return { location, ...(media !== undefined ? { media } : {}), ...(keepDays !== undefined ? { maxAgeDays: keepDays } : {}), ...(keepBytes !== undefined ? { maxMediaBytes: keepBytes } : {}) };
}

/** The watcher's history option with the store --history names opened (undefined without --history): opened first, so a refused database is bad input. */
export async function openWatchHistory(flags: FlagValues): Promise<HistoryOption | undefined> {
  const o = historyOptionOf(flags);
  if (!o) return undefined;
  return { maxAgeDays: o.maxAgeDays, maxMediaBytes: o.maxMediaBytes, store: await openHistoryFlag(flags) };
}

/** Opens the history --history names (an InputError for one that is refused: another user's, a link, world-writable). */
export async function openHistoryFlag(flags: FlagValues): Promise<HistoryStore> {
  const { openHistory } = await import('../shared/history');
  const media = flags.get('history-media');
  return openHistory({ location: flags.required('history'), ...(media !== undefined ? { media } : {}) });
}

const SIZE = /^(\d+(?:\.\d+)?)\s*([kmgt]?i?b?)?$/i;
const UNIT: Readonly<Record<string, number>> = { '': 1, b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** A size (1000, 500MB, 2GB, 1.5G; K/M/G/T are powers of 1024) in bytes; an InputError naming --flag. */
export function sizeFlag(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const m = SIZE.exec(text.trim());
  const unit = m ? UNIT[(m[2] ?? '').toLowerCase().replace(/i?b$/, '') || ''] : undefined;
  const bytes = m && unit !== undefined ? Math.floor(Number(m[1]) * unit) : NaN;
  if (!(bytes > 0) || !Number.isSafeInteger(bytes)) throw new InputError('invalid_input', `--${flag} must be a size such as 500MB or 2GB, got ${JSON.stringify(text.slice(0, 40))}`, { field: flag, limit: 'bytes, or a number with KB, MB, GB or TB' });
  return bytes;
}

/** --since or --until: as every host takes it (a span back from now such as 30m, 12h, 2d, 1w; today; an ISO 8601 date or a time with its zone), as ISO; an InputError naming the flag. */
export function timeFlag(text: string | undefined, flag: 'since' | 'until', now = Date.now()): string | undefined {
  if (text === undefined) return undefined;
  try {
    return historyTime(text, flag, new Date(now));
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    throw new InputError('invalid_input', `--${flag} must be a span back from now (30m, 12h, 2d, 1w), today, or an ISO 8601 date (2026-11-28, 2026-11-28T09:30:00Z), got ${JSON.stringify(text.slice(0, 40))}`, { field: flag, limit: '30m, 12h, 2d, 1w, today or an ISO 8601 date' });
  }
}

/** The actions of `vision-streaming history` besides the search. */
export const ACTIONS = {
  search: 'the visits, newest first, one JSON line each (the default action)',
  delete: 'one visit and its media: --visit ID; prints a receipt',
} as const;

const KINDS = ['person', 'visitor', 'stranger'] as const;

/** The flags of `vision-streaming history`, in the order --help lists them. */
export const FLAGS: readonly Flag[] = [
  { ...HISTORY_FLAG, help: `${HISTORY_FLAG.help} (required)` },
  HISTORY_MEDIA_FLAG,
  { name: 'person', env: '', value: 'NAME|ID', help: 'visits of this person: a name (as the visits recorded it) or a person_id (p_...); with --people, every visit of the person in it, as the stranger they were and under their faces too' },
  { name: 'visitor', env: '', value: 'ID', help: 'visits of this remembered stranger (the visitor_id of an event)' },
  { name: 'stream', env: '', value: 'ID', help: 'visits seen on this stream' },
  { name: 'kind', env: '', value: 'person|visitor|stranger', help: 'visits of this kind' },
  { name: 'since', env: '', value: '2d|ISO', help: 'visits that went on at or after this: a span back from now (30m, 12h, 2d, 1w), today, or an ISO 8601 date' },
  { name: 'until', env: '', value: 'ISO', help: 'visits that began before this (a span back from now, today, or an ISO 8601 date)' },
  { name: 'face', env: '', value: 'FILE', help: "whose visits: the person or visitor this photo's face is (one compare with --collection; needs the credential flags), or a never_seen line" },
  { name: 'threshold', env: '', value: 'N', help: 'with --face: least similarity for the face to be someone (0..1); default 0.7' },
  { name: 'limit', env: '', value: 'N', help: 'visits per page (1..1000); default 50' },
  { name: 'cursor', env: '', value: 'C', help: 'the next page: the "next" of the last line of the page before' },
  { name: 'visit', env: '', value: 'ID', help: 'delete: the visit_id' },
  { name: 'collection', env: 'VS_COLLECTION', value: 'ID', help: 'with --face or --people: the face collection the watch compares with' },
  { name: 'people', env: 'VS_PEOPLE', value: 'FILE', help: 'the people file (as people and watch take it): --face and --person find the person in it (with --collection and the credential flags)' },
  ...CREDENTIAL_FLAGS,
  HELP_FLAG,
];

/** The help text of `vision-streaming history`. */
export function historyHelp(): string {
  return helpPage({
    command: 'history',
    usage: '[search|delete] --history DB|URL [options]',
    about: [
      'The visits watch --history kept: who, where, when, for how long, with their face crop, snapshot and clip.',
      'search (the default) prints one JSON line per visit, newest first: {visit_id, kind, person_id, name, visitor_id,',
      '  face_id, label, room_id, stream_id, stream_label, arrived_at, left_at (null while it goes on), duration_s, best_score,',
      '  quality, events, updated_at, face_path, snapshot_path, clip_path}; then {"next": C} when there are more (--cursor C).',
      'With --face: {"never_seen": true, "score": S} when no one in the collection has that face; who it is goes to stderr.',
      'Exit 2: bad input (the flag is named: a bad date or range, an unknown kind); 1: the history or the service failed.',
      '',
      'Actions:',
      ...Object.entries(ACTIONS).map(([name, help]) => `  ${name.padEnd(15)} ${help}`),
      '',
      'Examples:',
      '  vision-streaming history --history visits.db --since 2d',
      '  vision-streaming history --history visits.db --person Alice --since 2026-11-24 --until 2026-11-25',
      '  vision-streaming history --history visits.db --face door.jpg --collection C --people people.json',
      '  vision-streaming history delete --history visits.db --visit VISIT_ID',
    ],
    flags: FLAGS,
  });
}

/** Runs `vision-streaming history <args>`; resolves with the exit code. */
export async function historyMain(args: readonly string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  const first = args[0];
  if (first === undefined) {
    io.stdout(historyHelp());
    return 2;
  }
  const action = first === 'search' || first === 'delete' ? first : 'search';
  const rest = action === first ? args.slice(1) : args;
  let flags: FlagValues;
  let run: (store: HistoryStore, signal: AbortSignal) => Promise<void>;
  try {
    flags = parseFlags(rest, FLAGS, env);
    if (flags.on('help')) {
      io.stdout(historyHelp());
      return 0;
    }
    run = action === 'delete' ? deleteOf(flags, io) : await searchOf(flags, env, io);
  } catch (err) {
    return reportFailure(`history ${action}`, err, FLAGS, io);
  }
  let store: HistoryStore;
  try {
    store = await openHistoryFlag(flags);
  } catch (err) {
    return reportFailure(`history ${action}`, err, FLAGS, io);
  }
  const abort = new AbortController();
  void io.interrupted.then(() => abort.abort());
  try {
    await run(store, abort.signal);
    return 0;
  } catch (err) {
    return reportFailure(`history ${action}`, err, FLAGS, io);
  } finally {
    await store.close().catch((err: unknown) => io.stderr(`vision-streaming history: closing the history: ${describe(err)}`));
  }
}

function deleteOf(flags: FlagValues, io: CliIo): (store: HistoryStore) => Promise<void> {
  const visitId = flags.required('visit');
  for (const stray of ['person', 'visitor', 'stream', 'kind', 'since', 'until', 'face', 'limit', 'cursor']) {
    if (flags.get(stray) !== undefined) throw new InputError('invalid_input', `--${stray} is a flag of history search, not delete`, { field: stray, limit: 'history search' });
  }
  return async (store) => {
    const receipt = await store.deleteVisit(visitId);
    io.stdout(JSON.stringify({ visit_id: visitId, ...receipt }));
  };
}

/** Checks every flag (and reads the photo and the people file) before the history is opened. */
async function searchOf(flags: FlagValues, env: NodeJS.ProcessEnv, io: CliIo): Promise<(store: HistoryStore, signal: AbortSignal) => Promise<void>> {
  if (flags.get('visit') !== undefined) throw new InputError('invalid_input', '--visit is a flag of history delete', { field: 'visit', limit: 'history delete' });
  const kind = flags.get('kind');
  if (kind !== undefined && !(KINDS as readonly string[]).includes(kind)) throw new InputError('invalid_input', `--kind takes ${KINDS.join(', ')}, got ${JSON.stringify(kind.slice(0, 20))}`, { field: 'kind', limit: KINDS.join(' | ') });
  const since = timeFlag(flags.get('since'), 'since');
  const until = timeFlag(flags.get('until'), 'until');
  if (since !== undefined && until !== undefined && !(Date.parse(since) < Date.parse(until))) throw new InputError('invalid_input', `--until must be after --since (${since} .. ${until} is empty)`, { field: 'until', limit: 'after --since' });
  const limit = numberFlag(flags.get('limit'), 'limit');
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 1000)) throw new InputError('invalid_input', '--limit must be a whole number in 1..1000', { field: 'limit', limit: '1..1000' });
  const threshold = numberFlag(flags.get('threshold'), 'threshold');
  if (threshold !== undefined && !(threshold >= 0 && threshold <= 1)) throw new InputError('invalid_input', '--threshold must be a number in 0..1', { field: 'threshold', limit: '0..1' });
  const base: HistoryQuery = {
    ...(flags.get('stream') !== undefined ? { stream_id: flags.get('stream') } : {}),
    ...(kind !== undefined ? { kind: kind as HistoryQuery['kind'] } : {}),
    ...(since !== undefined ? { since } : {}),
    ...(until !== undefined ? { until } : {}),
    ...(limit !== undefined ? { limit } : {}),
    ...(flags.get('cursor') !== undefined ? { cursor: flags.get('cursor') } : {}),
  };
  const person = flags.get('person');
  const visitor = flags.get('visitor');
  const facePhoto = flags.get('face');
  if ([person, visitor, facePhoto].filter((v) => v !== undefined).length > 1) throw new InputError('invalid_input', 'give one of --person, --visitor and --face', { field: person !== undefined ? 'person' : 'visitor', limit: 'one of them' });
  const peopleFile = flags.get('people');
  // With the people file, a person (by name or id) is found in it: every visit of theirs, the ones
  // they made as a stranger and under their faces alone too.
  const needsPeople = peopleFile !== undefined && (facePhoto !== undefined || person !== undefined);
  let people: FilePeopleStore | undefined;
  let credentials: ReturnType<typeof credentialsOf> | undefined;
  let collectionId: string | undefined;
  if (facePhoto !== undefined || needsPeople) {
    credentials = credentialsOf(flags, env);
    collectionId = flags.required('collection');
  }
  if (needsPeople) {
    people = new FilePeopleStore(peopleFile, { collectionId: collectionId!, key: peopleKey(credentials!) });
    // A file that is not to be trusted is bad input, refused before anything is sent.
    await people.load();
  }
  const print = (store: HistoryStore, visits: readonly VisitRecord[], next: string | undefined): void => {
    for (const v of visits) io.stdout(JSON.stringify(visitLine(store, v)));
    if (next) io.stdout(JSON.stringify({ next }));
  };
  if (facePhoto !== undefined) {
    const image = await readImageArgument(facePhoto, '--face', 'face');
    return async (store, signal) => {
      const [{ acquireConnection }, { searchByFace }] = await Promise.all([import('../shared/connection'), import('../shared/history/face-search')]);
      const lease = acquireConnection({ ...credentials!, owner: 'the command' });
      try {
        const { who, page } = await searchByFace({ vision: lease.vision(), collectionId: collectionId!, ...(people ? { people } : {}), history: store, image, ...(threshold !== undefined ? { threshold } : {}), query: base, signal });
        if (who.kind === 'never_seen') {
          io.stdout(JSON.stringify({ never_seen: true, score: who.score }));
          io.stderr(`never seen: no face of the collection is this one (best score ${who.score})`);
          return;
        }
        io.stderr(who.kind === 'person' ? `the face is ${who.name} (${who.person_id}, score ${who.score})` : `the face is the visitor ${who.visitor_id} (score ${who.score})`);
        print(store, page.visits, page.next);
      } finally {
        await lease.release();
      }
    };
  }
  let who: Partial<HistoryQuery> = {};
  if (visitor !== undefined) who = { visitor_id: visitor };
  else if (person !== undefined && people) {
    const { personSearchQuery } = await import('../shared/history/person-search');
    const ref = isPersonId(person) ? { person_id: person } : { name: person };
    who = await personSearchQuery(ref, people, collectionId!);
    // A person_id the file no longer has (forgotten) is searched as the visits carry it; a name must be in it.
    if (who.who === undefined && ref.person_id === undefined) throw new InputError('invalid_input', `--person: no person is named ${JSON.stringify(person.slice(0, 100))} in ${peopleFile}`, { field: 'person', limit: 'a name of the people file' });
  } else if (person !== undefined && isPersonId(person)) who = { person_id: person };
  else if (person !== undefined) who = { name: person };
  const query: HistoryQuery = { ...base, ...who };
  return async (store) => {
    const page = await store.search(query);
    print(store, page.visits, page.next);
  };
}

/** A visit as a line: its fields, its media as paths (null when it has none) in place of their records. */
function visitLine(store: HistoryStore, v: VisitRecord): Record<string, unknown> {
  const { face, snapshot, clip, ...rest } = v;
  const pathOf = (ref: VisitRecord['face']): string | null => (ref ? store.mediaPath(ref) : null);
  return { ...rest, face_path: pathOf(face), snapshot_path: pathOf(snapshot), clip_path: pathOf(clip) };
}

function isPersonId(text: string): boolean {
  return /^p_[0-9a-f-]{36}$/i.test(text);
}

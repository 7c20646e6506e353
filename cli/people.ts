import type { ConnectionLease } from '../shared/connection';
import { InputError } from '../shared/errors';
import type { ImageInput } from '../shared/image';
import type { PeopleDirectory, PersonRef } from '../shared/people';
import { FilePeopleStore, peopleKey } from '../shared/people/file-store';
import { CREDENTIAL_FLAGS, HELP_FLAG, credentialsOf, helpPage, parseFlags, type Flag, type FlagValues } from './flags';
import { describe, reportFailure } from './errors';
import { readImageArgument, readLabelsFile } from './input-files';
import type { CliIo } from './io';
import { VisitorFile } from './visitor-file';
import { HISTORY_FLAG, HISTORY_MEDIA_FLAG, openHistoryFlag } from './history';
import type { HistoryStore } from '../shared/history/types';

/** The subcommands of `vision-streaming people`, with their one-line help. */
export const ACTIONS = {
  list: 'the people, with face and not-face counts and the room left in the collection (1000 faces)',
  add: 'a new person: --name with one or more --image, or a remembered stranger with --visitor',
  'add-face': 'one more face of a person: --image, or a remembered stranger with --visitor',
  rename: 'a person gets the name --to',
  merge: 'a person merges into the person named --to (their faces and not-faces move)',
  not: 'not this person: the face in --image becomes a not-face of the person',
  'remove-face': 'removes the face --face from its person and from the collection',
  forget: 'removes every face and not-face of a person from the collection, and the person (with --history, their visits and media too); prints a receipt',
  'import-labels': 'makes people of a labels file ({"face_id": "Name"}): faces with one label become one person',
  check: 'lists faces of the collection that no person, not-face or visitor (--visitors) records; --remove takes them out',
} as const;

type Action = keyof typeof ACTIONS;

/** The flags of `vision-streaming people`, in the order --help lists them. */
export const FLAGS: readonly Flag[] = [
  ...CREDENTIAL_FLAGS,
  { name: 'collection', env: 'VS_COLLECTION', value: 'ID', help: 'the face collection the people belong to (required)' },
  { name: 'people', env: 'VS_PEOPLE', value: 'FILE', help: 'the people file (required; made on the first change, 0600, sealed with a key derived from the client secret); watch --people reads it' },
  { name: 'visitors', env: 'VS_VISITORS', value: 'FILE', help: "the watch's visitors file: a stranger named (--visitor) or forgotten leaves it too" },
  { name: 'name', env: '', value: 'NAME', help: 'the person, by name (1..100 characters, unique case-insensitively)' },
  { name: 'person', env: '', value: 'ID', help: 'the person, by person_id (instead of --name)' },
  { name: 'image', env: '', value: 'FILE', multiple: true, help: 'a photo (JPEG or PNG; a file, or an http(s) URL); repeat for several' },
  { name: 'visitor', env: '', value: 'ID', help: 'a remembered stranger (the visitor_id of an event): their face moves into the person' },
  { name: 'to', env: '', value: 'NAME', help: 'rename: the new name; merge: the person merged into' },
  { name: 'face', env: '', value: 'ID', help: 'remove-face: the face_id' },
  { name: 'labels', env: '', value: 'FILE', help: 'import-labels: a JSON file {"face_id": "Name", ...} (as watch --labels takes)' },
  { ...HISTORY_FLAG, help: "forget: the watch's history (as watch --history takes it): the person's visits, face crops, snapshots and clips go too" },
  HISTORY_MEDIA_FLAG,
  { name: 'remove', env: '', help: "check: remove the faces nothing records from the collection (give --visitors, or the watch's visitors count as such)" },
  HELP_FLAG,
];

/** The help text of `vision-streaming people`. */
export function peopleHelp(): string {
  return helpPage({
    command: 'people',
    usage: 'ACTION [options]',
    about: [
      'Keeps the people of a face collection: a person is a name with several faces (and faces marked',
      '"not this person"). watch --people FILE names its events after them. Prints one JSON object on stdout.',
      `Exit 2: bad input (the flag is named); 1: the service or the file failed; ${PHOTOS_REFUSED}: add made the person but`,
      `refused some photos (the answer says which and why); ${INTERRUPTED}: stopped by Ctrl-C or SIGTERM.`,
      '',
      'Actions:',
      ...Object.entries(ACTIONS).map(([name, help]) => `  ${name.padEnd(15)} ${help}`),
      '',
      'Examples:',
      '  vision-streaming people add --collection C --people people.json --name Alice --image a1.jpg --image a2.jpg',
      '  vision-streaming people add --collection C --people people.json --name Courier --visitor VISITOR_ID',
      '  vision-streaming people not --collection C --people people.json --name Alice --image wrong-face.jpg',
      '  vision-streaming people forget --collection C --people people.json --name Alice --history visits.db',
    ],
    flags: FLAGS,
  });
}

/** Exit code of `people add` when the person was made but some of the photos were refused. */
export const PHOTOS_REFUSED = 4;
/** Exit code when Ctrl-C or SIGTERM stopped the command, whatever it was waiting on. */
export const INTERRUPTED = 130;
const STOPPED = Symbol('stopped');

/** Runs `vision-streaming people <args>`; resolves with the exit code. */
export async function peopleMain(args: readonly string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  // Whatever it waits on (a file, the lock of another writer, the service), a stop answers at once:
  // the work left running is dropped with the process.
  const stop = io.interrupted.then((): typeof STOPPED => STOPPED);
  const code = await Promise.race([run(args, env, io), stop]);
  if (code !== STOPPED) return code;
  io.stderr(`vision-streaming people ${String(args[0] ?? '').slice(0, 40)}: stopped before it finished; run list (or check) to see where it got`);
  return INTERRUPTED;
}

async function run(args: readonly string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  const [action, ...rest] = args;
  if (action === undefined || action === '--help' || action === '-h') {
    io.stdout(peopleHelp());
    return action === undefined ? 2 : 0;
  }
  if (!(action in ACTIONS)) {
    io.stderr(`vision-streaming people: unknown action "${action.slice(0, 40)}"; actions: ${Object.keys(ACTIONS).join(', ')}`);
    return 2;
  }
  let flags: FlagValues;
  let prepared: Prepared;
  try {
    flags = parseFlags(rest, FLAGS, env);
    if (flags.on('help')) {
      io.stdout(peopleHelp());
      return 0;
    }
    prepared = await prepare(action as Action, flags, env);
  } catch (err) {
    return refused(err, io);
  }
  const { lease, directory } = await open(prepared);
  try {
    const result = await prepared.operation(directory);
    io.stdout(JSON.stringify(result));
    return someRefused(result) ? PHOTOS_REFUSED : 0;
  } catch (err) {
    if (err instanceof InputError) return refused(err, io);
    io.stderr(`vision-streaming people ${action}: ${describe(err)}`);
    return 1;
  } finally {
    await lease.release();
    await prepared.history?.close().catch((err: unknown) => io.stderr(`vision-streaming people ${action}: closing the history: ${describe(err)}`));
  }
}

/** A command checked and ready: what to open, and the one operation to run. */
interface Prepared {
  credentials: ReturnType<typeof credentialsOf>;
  collectionId: string;
  store: FilePeopleStore;
  visitors?: VisitorFile;
  /** forget --history: the history the person's visits are erased from (opened last, closed at the end). */
  history?: HistoryStore;
  operation: (d: PeopleDirectory) => Promise<unknown>;
}

/** Checks every flag and reads every file before anything is sent. */
async function prepare(action: Action, flags: FlagValues, env: NodeJS.ProcessEnv): Promise<Prepared> {
  const credentials = credentialsOf(flags, env);
  const collectionId = flags.required('collection');
  const store = new FilePeopleStore(flags.required('people'), { collectionId, key: peopleKey(credentials) });
  // A file that is not to be trusted is bad input, refused before anything is sent.
  await store.load();
  const visitorsFile = flags.get('visitors');
  let visitors: VisitorFile | undefined;
  if (visitorsFile !== undefined) {
    visitors = new VisitorFile(visitorsFile, credentials);
    await visitors.check();
  }
  const person = (): PersonRef => {
    const name = flags.get('name');
    const id = flags.get('person');
    if (name !== undefined && id !== undefined) throw new InputError('invalid_input', 'give --name or --person, not both', { field: 'name', limit: 'one of them' });
    if (id !== undefined) return { person_id: id };
    if (name === undefined) throw new InputError('invalid_input', `people ${action} needs the person: --name NAME or --person ID`, { field: 'name', limit: 'a person' });
    return { name };
  };
  const images = await Promise.all(flags.all('image').map((value) => readImageArgument(value, '--image')));
  const visitorId = flags.get('visitor');
  const oneFace = (): { image?: ImageInput; visitorId?: string } => {
    if (images.length > 1) throw new InputError('invalid_input', `people ${action} takes one --image`, { field: 'image', limit: 'one photo' });
    if ((images.length === 1) === (visitorId !== undefined)) throw new InputError('invalid_input', `people ${action} needs --image FILE or --visitor ID (one of them)`, { field: 'image', limit: 'a photo or a visitor' });
    return images.length === 1 ? { image: images[0] } : { visitorId };
  };
  if (action !== 'check' && flags.on('remove')) throw new InputError('invalid_input', '--remove is a flag of people check', { field: 'remove', limit: 'people check' });
  const base = { credentials, collectionId, store, visitors };
  switch (action) {
    case 'list':
      return { ...base, operation: (d) => d.list() };
    case 'add': {
      const name = flags.required('name');
      if (images.length === 0 && visitorId === undefined) throw new InputError('invalid_input', 'people add needs --image FILE (repeat for several) or --visitor ID', { field: 'image', limit: 'a photo or a visitor' });
      return { ...base, operation: (d) => d.addPerson({ name, ...(images.length ? { images } : {}), ...(visitorId !== undefined ? { visitorId } : {}) }) };
    }
    case 'add-face': {
      const ref = person();
      const face = oneFace();
      return { ...base, operation: (d) => d.addFace({ person: ref, ...face }) };
    }
    case 'rename': {
      const ref = person();
      const to = flags.required('to');
      return { ...base, operation: (d) => d.rename({ person: ref, to }) };
    }
    case 'merge': {
      const ref = person();
      const to = flags.required('to');
      return { ...base, operation: (d) => d.merge({ from: ref, into: { name: to } }) };
    }
    case 'not': {
      const ref = person();
      if (images.length !== 1) throw new InputError('invalid_input', 'people not needs one --image FILE: the face that is not this person', { field: 'image', limit: 'one photo' });
      return { ...base, operation: (d) => d.notThisPerson({ person: ref, image: images[0] }) };
    }
    case 'remove-face': {
      const faceId = flags.required('face');
      return { ...base, operation: (d) => d.removeFace({ faceId }) };
    }
    case 'forget': {
      const ref = person();
      const history = flags.get('history') !== undefined ? await openHistoryFlag(flags) : undefined;
      return { ...base, ...(history ? { history } : {}), operation: (d) => d.forget({ person: ref }) };
    }
    case 'import-labels': {
      const labels = await readLabelsFile(flags.required('labels'));
      return { ...base, operation: (d) => d.importLabels(labels) };
    }
    case 'check': {
      const remove = flags.on('remove');
      return { ...base, operation: (d) => d.check({ remove }) };
    }
  }
}

/** Whether an answer of add lists a photo that was refused. */
function someRefused(result: unknown): boolean {
  const results = (result as { results?: unknown } | null)?.results;
  return Array.isArray(results) && results.some((r) => (r as { status?: unknown }).status === 'refused');
}

async function open(run: Prepared): Promise<{ lease: ConnectionLease; directory: PeopleDirectory }> {
  // Loaded only now, so that --help and a bad flag answer without loading HTTP and the image code.
  const [{ acquireConnection }, { PeopleDirectory }] = await Promise.all([import('../shared/connection'), import('../shared/people/directory')]);
  const lease = acquireConnection({ ...run.credentials, owner: 'the command' });
  const directory = new PeopleDirectory({ collectionId: run.collectionId, store: run.store, vision: lease.vision(), ...(run.visitors ? { visitors: run.visitors } : {}), ...(run.history ? { history: run.history } : {}) });
  return { lease, directory };
}

/** Bad input: exit 2 with the flag named; anything else exit 1. */
function refused(err: unknown, io: CliIo): number {
  return reportFailure('people', err, FLAGS, io);
}

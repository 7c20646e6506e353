import { InputError } from '../shared/errors';
import type { Location } from '../shared/vision/types';
import type { Flag } from './flags';
import { numberFlag } from './flags';
import { readImageArgument } from './input-files';
import { operationCommand } from './operation-command';

// The Visual Recognition API's operations from the shell, one core function each (VisionApi's
// methods, as the n8n and Node-RED nodes call them). The answers keep the service's names
// (snake_case, as the spec writes its bodies and as watch and people print).

const IMAGE_HELP = 'IMAGE is a JPEG or PNG file, or an http(s) URL the service fetches itself.';

const COLLECTION: Flag = { name: 'collection', env: 'VS_COLLECTION', value: 'ID', help: 'the face collection' };
const ID_ONLY: Flag = { name: 'id-only', env: '', help: 'create: print the new id alone, not JSON (for a shell variable)' };

/** The two kinds of detection: the core's detectFaces and detectHumans (heads, also from behind). */
const KINDS = ['faces', 'humans'] as const;

/** `vision-streaming detect IMAGE`: faces (with where they look) or heads. */
export const detectCommand = operationCommand({
  name: 'detect',
  usage: 'IMAGE [--kind faces|humans] [options]',
  about: ['Finds the faces in an image, each with where it looks (--kind faces, the default), or the heads of people,', 'also seen from behind (--kind humans; heads is the same).', IMAGE_HELP],
  flags: [{ name: 'kind', env: 'VS_KIND', value: 'faces|humans', help: 'faces (default): {"faces": [{direction, location}]}; humans (or heads): {"humans": [{score, location}]}' }],
  operations: {
    '': {
      summary: 'faces or heads in an image',
      args: ['IMAGE'],
      uses: ['kind'],
      async prepare({ flags, args }) {
        const given = (flags.get('kind') ?? 'faces').toLowerCase();
        const kind = given === 'heads' ? 'humans' : given;
        if (!(KINDS as readonly string[]).includes(kind)) throw new InputError('invalid_input', `--kind takes faces or humans (heads), got ${JSON.stringify(given.slice(0, 20))}`, { field: 'kind', limit: 'faces | humans' });
        const image = await readImageArgument(args[0], 'IMAGE', 'image');
        if (kind === 'humans') return async (lease, signal) => ({ humans: await lease.vision().detectHumans(image, { signal }) });
        return async (lease, signal) => ({ faces: await lease.vision().detectFaces(image, { signal }) });
      },
    },
  },
  examples: ['vision-streaming detect photo.jpg', 'vision-streaming detect https://example.com/door.jpg --kind humans'],
});

/** `vision-streaming compare IMAGE IMAGE` (two faces) or `compare IMAGE --collection ID` (a face and a collection). */
export const compareCommand = operationCommand({
  name: 'compare',
  usage: 'IMAGE IMAGE | IMAGE --collection ID [--max-results N] [options]',
  about: [
    'Compares the most confident face of the first IMAGE with that of the second:',
    '  {"score", "source": {location}, "target": {location}}  (score 0 to 1, higher is more alike)',
    'or, with --collection, with the faces of a collection, most similar first:',
    '  {"source": {location}, "target": {"collection_id", "faces": [{face_id, score}]}}',
    IMAGE_HELP,
    'Faces must be 120 to 280 px on each side.',
  ],
  flags: [
    // No variable: VS_COLLECTION, set for the other commands of a script, must not turn IMAGE IMAGE into a collection search.
    { ...COLLECTION, env: '', help: 'compare the face of IMAGE with the faces of this collection (instead of a second IMAGE)' },
    { name: 'max-results', env: '', value: 'N', help: 'with --collection: how many of the most similar faces (1..1000; the service answers 10 without it)' },
  ],
  operations: {
    '': {
      summary: 'two faces, or a face and a collection',
      args: ['IMAGE', 'IMAGE'],
      optionalArgs: 1,
      uses: ['collection', 'max-results'],
      async prepare({ flags, args }) {
        const collectionId = flags.get('collection');
        const maxResults = numberFlag(flags.get('max-results'), 'max-results');
        if (collectionId === undefined) {
          if (maxResults !== undefined) throw new InputError('invalid_input', '--max-results goes with --collection', { field: 'max-results', limit: 'with --collection' });
          if (args.length < 2) throw new InputError('invalid_input', 'compare takes two images (IMAGE IMAGE), or one with --collection ID', { field: 'IMAGE', limit: 'IMAGE IMAGE' });
          const [source, target] = await Promise.all([readImageArgument(args[0], 'IMAGE', 'source'), readImageArgument(args[1], 'IMAGE', 'target')]);
          return async (lease, signal) => lease.vision().compareFaces(source, target, { signal });
        }
        if (args.length > 1) throw new InputError('invalid_input', 'with --collection, compare takes one IMAGE', { field: 'collection', limit: 'one IMAGE' });
        const image = await readImageArgument(args[0], 'IMAGE', 'image');
        return async (lease, signal) => {
          const r = await lease.vision().compareWithCollection(collectionId, image, { signal, ...(maxResults !== undefined ? { maxResults } : {}) });
          return { source: r.source, target: { collection_id: r.target.collectionId, faces: r.target.faces.map((f) => ({ face_id: f.faceId, score: f.score })) } };
        };
      },
    },
  },
  examples: ['vision-streaming compare alice-1.jpg alice-2.jpg', 'vision-streaming compare visitor.jpg --collection COLLECTION_ID --max-results 3'],
});

/** `vision-streaming collections ACTION`: face collections and their faces. */
export const collectionsCommand = operationCommand({
  name: 'collections',
  usage: 'ACTION [IMAGE] [options]',
  about: [
    'Face collections and their faces: what watch --collection compares with and people keeps.',
    IMAGE_HELP,
    "The face added is the image's most confident one, 120 to 280 px on each side.",
  ],
  flags: [
    { ...COLLECTION, help: 'the face collection (delete, faces, add-face, remove-face)' },
    { name: 'face', env: '', value: 'ID', help: 'remove-face: the face_id' },
    ID_ONLY,
  ],
  operations: {
    list: {
      summary: 'the collections of this client: {"face_collections": [{collection_id}]}',
      async prepare() {
        return async (lease, signal) => ({ face_collections: (await lease.vision().listCollections({ signal })).map((c) => ({ collection_id: c.collectionId })) });
      },
    },
    create: {
      summary: 'a new, empty collection: {"collection_id"} (with --id-only the id alone)',
      uses: ['id-only'],
      async prepare({ flags }) {
        const idOnly = flags.on('id-only');
        return async (lease, signal) => {
          const { collectionId } = await lease.vision().createCollection({ signal });
          return idOnly ? collectionId : { collection_id: collectionId };
        };
      },
    },
    delete: {
      summary: 'deletes the collection --collection and every face in it',
      uses: ['collection'],
      async prepare({ flags }) {
        const id = flags.required('collection');
        return async (lease, signal) => {
          await lease.vision().deleteCollection(id, { signal });
          return { deleted: true, collection_id: id };
        };
      },
    },
    faces: {
      summary: 'the faces of --collection: {"collection_id", "faces": [{face_id}]}',
      uses: ['collection'],
      async prepare({ flags }) {
        const id = flags.required('collection');
        return async (lease, signal) => ({ collection_id: id, faces: (await lease.vision().listFaces(id, { signal })).map((f) => ({ face_id: f.faceId })) });
      },
    },
    'add-face': {
      summary: 'adds the face of IMAGE to --collection: {"collection_id", "face_id", "location"}',
      args: ['IMAGE'],
      uses: ['collection'],
      async prepare({ flags, args }) {
        const id = flags.required('collection');
        const image = await readImageArgument(args[0], 'IMAGE', 'image');
        return async (lease, signal) => {
          const added = await lease.vision().addFace(id, image, { signal });
          return { collection_id: id, face_id: added.faceId, location: added.location satisfies Location };
        };
      },
    },
    'remove-face': {
      summary: 'removes the face --face from --collection',
      uses: ['collection', 'face'],
      async prepare({ flags }) {
        const id = flags.required('collection');
        const faceId = flags.required('face');
        return async (lease, signal) => {
          await lease.vision().removeFace(id, faceId, { signal });
          return { removed: true, collection_id: id, face_id: faceId };
        };
      },
    },
  },
  examples: [
    'vision-streaming collections create',
    'vision-streaming collections add-face alice.jpg --collection COLLECTION_ID',
    'vision-streaming collections faces --collection COLLECTION_ID',
    'vision-streaming collections remove-face --collection COLLECTION_ID --face FACE_ID',
  ],
});

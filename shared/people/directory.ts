import { randomUUID } from 'node:crypto';
import { ClientError, InputError } from '../errors';
import type { ImageInput } from '../image';
import type { VisionApi } from '../vision';
import { dropStoredVisitors, storedVisitors, type VisitorStore } from '../watch/visitors';
import { HistoryError, type HistoryErrorCode } from '../history/errors';
import type { EraseReceipt, EraseTarget, HistoryStore } from '../history/types';
import { checkName, FACE_ID, nameKey, readPeople, sealPeople } from './document';
import { PeopleError } from './errors';
import { preparePhoto } from './photo';
import type {
  AddFaceInput,
  AddFaceResult,
  AddPersonInput,
  AddPersonResult,
  CheckOptions,
  CheckResult,
  FaceSource,
  ForgetReceipt,
  ImportResult,
  MergeResult,
  PeopleDocument,
  PeopleList,
  PeopleStore,
  Person,
  PersonFace,
  PersonRef,
  PhotoResult,
  RemoveFaceResult,
} from './types';

/** Faces a collection holds at most (the service's limit), shared by people, not-faces and visitors. */
export const COLLECTION_CAPACITY = 1000;
/** Most photos one call takes. */
const MAX_IMAGES = 20;
/** Rounds of removal one forget makes when other operations keep adding faces to the person. */
const MAX_FORGET_ROUNDS = 5;

/** What a PeopleDirectory works on. */
export interface PeopleDirectoryOptions {
  collectionId: string;
  store: PeopleStore;
  vision: VisionApi;
  /** The watcher's remembered visitors: a visitor who turns out to be a person moves out of it. */
  visitors?: VisitorStore;
  /** The history the watchers keep: forget erases the person's visits and their media from it too. */
  history?: HistoryStore;
}

/**
 * The people of a face collection: named persons, each over several faces, kept in a store and
 * in the collection together. Bad input is refused (InputError naming the field) before anything
 * is sent; a failed service call leaves no entry behind, and the store is changed only through its
 * atomic update, so two directories on one store lose nothing.
 */
export class PeopleDirectory {
  readonly #collectionId: string;
  readonly #store: PeopleStore;
  readonly #vision: VisionApi;
  readonly #visitors?: VisitorStore;
  readonly #history?: HistoryStore;

  /** Checks the options; nothing is contacted before the first operation. */
  constructor(o: PeopleDirectoryOptions) {
    if (!o || typeof o !== 'object') throw new InputError('invalid_input', 'PeopleDirectory needs an options object', { field: 'options', limit: 'an object' });
    if (typeof o.collectionId !== 'string' || o.collectionId.trim() === '' || o.collectionId.length > 256) throw new InputError('invalid_input', 'collectionId must be a non-empty id', { field: 'collectionId', limit: '1 to 256 characters' });
    if (!o.store || typeof o.store.load !== 'function' || typeof o.store.update !== 'function') throw new InputError('invalid_input', 'store must have load() and update()', { field: 'store', limit: '{ load(), update(change) }' });
    if (!o.vision || typeof o.vision.addFace !== 'function') throw new InputError('invalid_input', 'vision must be a vision client (VisionClient or VisionApi)', { field: 'vision', limit: 'a vision client' });
    if (o.visitors !== undefined && (typeof o.visitors.load !== 'function' || typeof o.visitors.save !== 'function')) throw new InputError('invalid_input', 'visitors must have load() and save()', { field: 'visitors', limit: '{ load(), save(document) }' });
    this.#collectionId = o.collectionId;
    this.#store = o.store;
    this.#vision = o.vision;
    if (o.history !== undefined && (typeof o.history?.erase !== 'function' || typeof o.history.search !== 'function')) throw new InputError('invalid_input', 'history must be a history store (openHistory gives one)', { field: 'history', limit: 'a history store' });
    this.#visitors = o.visitors;
    this.#history = o.history;
  }

  /** The people, and how full the collection is (one list-faces call). */
  async list(): Promise<PeopleList> {
    const [doc, inCollection] = await Promise.all([this.#read(), this.#vision.listFaces(this.#collectionId)]);
    return {
      collection_id: this.#collectionId,
      people: doc.people.map((p) => ({
        person_id: p.person_id,
        name: p.name,
        faces: p.faces.length,
        not_faces: p.not_faces.length,
        face_ids: p.faces.map((f) => f.face_id),
        added_at: p.faces.map((f) => f.added_at).sort()[0] ?? null,
      })),
      faces_in_collection: inCollection.length,
      capacity: COLLECTION_CAPACITY,
      room_left: Math.max(0, COLLECTION_CAPACITY - inCollection.length),
    };
  }

  /** A new person from photos (each enrolled, or refused with the reason) and/or a remembered visitor. */
  async addPerson(input: AddPersonInput): Promise<AddPersonResult> {
    if (!input || typeof input !== 'object') throw new InputError('invalid_input', 'addPerson needs { name, images?, visitorId? }', { field: 'person', limit: 'an object' });
    const name = checkName(input.name, 'name');
    const images = imageList(input.images);
    const visitorId = input.visitorId === undefined ? undefined : faceIdOf(input.visitorId, 'visitorId');
    const doc = await this.#read();
    nameFree(doc, name, 'name');
    if (visitorId) await this.#checkVisitor(doc, visitorId);
    const { added, results } = await this.#enrol(images, 'images', 'photo');
    if (images.length > 0 && added.length === 0 && !visitorId) {
      const why = results.map((r) => (r.status === 'refused' ? `photo ${r.index + 1}: ${r.reason}` : '')).join('; ');
      throw new InputError('invalid_input', `no photo of ${name} could be added (${why})`, { field: 'images', limit: 'photos with one face of 120 px or more' });
    }
    const faces = [...added, ...(visitorId ? [faceOf(visitorId, 'visitor')] : [])];
    const person: Person = { person_id: `p_${randomUUID()}`, name, faces, not_faces: [] };
    await this.#change(added, (next) => {
      nameFree(next, name, 'name');
      for (const f of faces) faceFree(next, f.face_id, visitorId === f.face_id ? 'visitorId' : 'images');
      next.people.push(person);
    });
    if (visitorId) await dropStoredVisitors(this.#visitors!, this.#collectionId, [visitorId]);
    return { person, results };
  }

  /** One more face of a person: a photo, or a remembered visitor's face (which moves into the person). */
  async addFace(input: AddFaceInput): Promise<AddFaceResult> {
    if (!input || typeof input !== 'object') throw new InputError('invalid_input', 'addFace needs { person, image } or { person, visitorId }', { field: 'person', limit: 'an object' });
    if ((input.image === undefined) === (input.visitorId === undefined)) throw new InputError('invalid_input', 'addFace needs either image or visitorId (one of them)', { field: 'image', limit: 'image or visitorId' });
    const from = sourceOf(input.from, input.visitorId === undefined ? 'photo' : 'visitor');
    const doc = await this.#read();
    const target = find(doc, input.person, 'person');
    if (input.visitorId !== undefined) {
      const visitorId = faceIdOf(input.visitorId, 'visitorId');
      await this.#checkVisitor(doc, visitorId);
      const face = faceOf(visitorId, 'visitor');
      const person = await this.#change([], (next) => {
        faceFree(next, visitorId, 'visitorId');
        const p = find(next, { person_id: target.person_id }, 'person');
        p.faces.push(face);
        return p;
      });
      await dropStoredVisitors(this.#visitors!, this.#collectionId, [visitorId]);
      return { person, result: { index: 0, status: 'added', face_id: visitorId, quality: noQuality() } };
    }
    return this.#addPhoto(target, input.image!, from, 'faces');
  }

  /** Renames a person; a name another person has is refused (merge them instead). */
  async rename(input: { person: PersonRef; to: string }): Promise<Person> {
    if (!input || typeof input !== 'object') throw new InputError('invalid_input', 'rename needs { person, to }', { field: 'person', limit: 'an object' });
    const to = checkName(input.to, 'to');
    const doc = await this.#read();
    const target = find(doc, input.person, 'person');
    const rename = (d: PeopleDocument): Person => {
      const p = find(d, { person_id: target.person_id }, 'person');
      const other = d.people.find((q) => q !== p && nameKey(q.name) === nameKey(to));
      if (other) throw new InputError('invalid_input', `"${to}" is the name of another person (${other.person_id}): to make them one, merge them (merge({ from, into }))`, { field: 'to', limit: 'a name no other person has' });
      p.name = to;
      return p;
    };
    rename(doc);
    return this.#change([], rename);
  }

  /** Makes two people one: `from`'s faces and not-faces move into `into`, and `from` is gone. */
  async merge(input: { from: PersonRef; into: PersonRef }): Promise<MergeResult> {
    if (!input || typeof input !== 'object') throw new InputError('invalid_input', 'merge needs { from, into }', { field: 'from', limit: 'an object' });
    const doc = await this.#read();
    const from = find(doc, input.from, 'from');
    const into = find(doc, input.into, 'into');
    if (from.person_id === into.person_id) throw new InputError('invalid_input', `from and into are the same person (${from.name})`, { field: 'into', limit: 'two different people' });
    const merge = (d: PeopleDocument): Person => {
      const a = find(d, { person_id: from.person_id }, 'from');
      const b = find(d, { person_id: into.person_id }, 'into');
      const clash = [...a.faces, ...b.faces].find((f) => [...a.not_faces, ...b.not_faces].some((n) => n.face_id === f.face_id));
      if (clash) throw new InputError('invalid_input', `face ${clash.face_id} of one of them is marked as not the other: remove it first (removeFace)`, { field: 'from', limit: 'no face that is marked as not the other' });
      b.faces.push(...a.faces);
      b.not_faces.push(...a.not_faces);
      d.people = d.people.filter((p) => p !== a);
      return b;
    };
    merge(structuredClone(doc));
    const person = await this.#change([], merge);
    return { person, merged: { person_id: from.person_id, name: from.name } };
  }

  /**
   * A face of someone taken for this person (an event's face, by default): enrolled as a not-face,
   * so a face more like it than like the person is not taken for them again.
   */
  async notThisPerson(input: { person: PersonRef; image: ImageInput; from?: FaceSource }): Promise<AddFaceResult> {
    if (!input || typeof input !== 'object') throw new InputError('invalid_input', 'notThisPerson needs { person, image }', { field: 'person', limit: 'an object' });
    if (input.image === undefined) throw new InputError('invalid_input', 'notThisPerson needs the image of the face that is not this person', { field: 'image', limit: 'an image' });
    const from = sourceOf(input.from, 'event');
    const doc = await this.#read();
    return this.#addPhoto(find(doc, input.person, 'person'), input.image, from, 'not_faces');
  }

  /** Removes one face (or not-face) of a person from the collection and the directory. */
  async removeFace(input: { faceId: string }): Promise<RemoveFaceResult> {
    if (!input || typeof input !== 'object') throw new InputError('invalid_input', 'removeFace needs { faceId }', { field: 'faceId', limit: 'an object' });
    const faceId = faceIdOf(input.faceId, 'faceId');
    const doc = await this.#read();
    const owner = doc.people.find((p) => [...p.faces, ...p.not_faces].some((f) => f.face_id === faceId));
    if (!owner) throw new InputError('invalid_input', `face ${faceId} belongs to no person of the directory`, { field: 'faceId', limit: 'a face of a person' });
    const removed = owner.faces.some((f) => f.face_id === faceId) ? 'face' : 'not_face';
    await this.#removeFromCollection(faceId);
    await this.#change([], (d) => {
      for (const p of d.people) [p.faces, p.not_faces] = [p.faces.filter((f) => f.face_id !== faceId), p.not_faces.filter((f) => f.face_id !== faceId)];
    });
    return { person_id: owner.person_id, name: owner.name, face_id: faceId, removed };
  }

  /**
   * Forgets a person. With a history, their visits are erased first: a failure there stops forget
   * before anything has left the collection (a HistoryError; forget again). Then their faces and
   * not-faces leave the collection, then the entry (and visitor records of their faces) go. The
   * entry goes only when every face it holds *then* (in the store's atomic update) has left the
   * collection: a face another operation added meanwhile is removed in one more round, and an
   * operation that adds after the entry went finds nobody and takes its face back out, so a race
   * never leaves a face the directory does not know. Last, the history is erased again, of the
   * visits written while the faces left; a failure of that erase is the receipt's `history_error`.
   * A failure part-way keeps the person with what is `left`; forgetting again finishes. Forgetting
   * someone not (or no longer) here is not an error.
   */
  async forget(input: { person: PersonRef }): Promise<ForgetReceipt> {
    if (!input || typeof input !== 'object') throw new InputError('invalid_input', 'forget needs { person }', { field: 'person', limit: 'an object' });
    checkRef(input.person, 'person');
    const doc = await this.#read();
    const forgotten_at = new Date().toISOString();
    const target = lookup(doc, input.person);
    if (!target) {
      const ref = input.person as Partial<{ person_id: string; name: string }>;
      // A forget whose last history erase failed finishes here: what the history still keeps under the person goes.
      const erased = this.#history ? await this.#eraseForgotten(ref) : undefined;
      return { person_id: ref.person_id ?? '', name: ref.name?.trim() ?? '', removed_faces: [], removed_not_faces: [], removed_visitors: [], ...erased, forgotten_at, already_forgotten: true };
    }
    const kind = new Map<string, 'face' | 'not_face'>();
    const facesOf = (p: Person): string[] => {
      for (const f of p.faces) kind.set(f.face_id, 'face');
      for (const f of p.not_faces) kind.set(f.face_id, 'not_face');
      return [...p.faces, ...p.not_faces].map((f) => f.face_id);
    };
    let pending = facesOf(target);
    // Their visits as the person, as the strangers they were (a visitor's id is the face id it became
    // in the person) and under their faces alone (a watcher without people): every face they hold, not
    // their not-faces (someone else's).
    const whose = (visitors: readonly string[] = []): EraseTarget => {
      const faces = [...kind].filter(([, k]) => k === 'face').map(([id]) => id);
      return { person_id: target.person_id, visitor_ids: [...new Set([...faces, ...visitors])], face_ids: faces };
    };
    // The history first, while the faces are still there: if it fails, nothing is gone yet.
    const erased: EraseReceipt | undefined = this.#history ? await this.#history.erase(whose()).catch((err: unknown) => Promise.reject(historyStopped(err, target))) : undefined;
    const removed = new Set<string>();
    const left: string[] = [];
    for (let round = 1; ; round++) {
      for (const faceId of pending) {
        try {
          await this.#removeFromCollection(faceId);
          removed.add(faceId);
        } catch {
          left.push(faceId);
        }
      }
      const added = await this.#change([], (d) => {
        // Faces that left the collection leave every entry (one merged into another person meanwhile too).
        for (const p of d.people) [p.faces, p.not_faces] = [p.faces.filter((f) => !removed.has(f.face_id)), p.not_faces.filter((f) => !removed.has(f.face_id))];
        const p = d.people.find((q) => q.person_id === target.person_id);
        if (!p) return [];
        const rest = facesOf(p);
        if (rest.length === 0) d.people = d.people.filter((q) => q !== p);
        return rest.filter((id) => !left.includes(id));
      });
      if (added.length === 0 || left.length > 0) break;
      // Bounded: a person who keeps getting faces is left with them, said in the receipt.
      if (round === MAX_FORGET_ROUNDS) {
        left.push(...added);
        break;
      }
      pending = added;
    }
    const removedFaces = [...removed].filter((id) => kind.get(id) === 'face');
    const removedVisitors = this.#visitors ? await dropStoredVisitors(this.#visitors, this.#collectionId, removedFaces).catch(() => []) : [];
    // Again: a watcher may have written visits of theirs while the faces were leaving (and a face
    // added meanwhile has its own). The faces are gone now, so a failure is told, not thrown.
    let historyError: ForgetReceipt['history_error'];
    if (this.#history && erased) {
      try {
        const again = await this.#history.erase(whose(removedVisitors));
        erased.removed_visits += again.removed_visits;
        erased.removed_media += again.removed_media;
      } catch (err) {
        historyError = { code: errorCode(err), message: `the history erase after the faces left failed: ${errorMessage(err)}; visits written while forget ran may remain: forget again by person_id ${target.person_id}` };
      }
    }
    const receipt: ForgetReceipt = {
      person_id: target.person_id,
      name: target.name,
      removed_faces: removedFaces,
      removed_not_faces: [...removed].filter((id) => kind.get(id) === 'not_face'),
      removed_visitors: removedVisitors,
      ...(erased ? { removed_visits: erased.removed_visits, removed_media: erased.removed_media } : {}),
      forgotten_at,
    };
    if (historyError) receipt.history_error = historyError;
    if (left.length > 0) receipt.left = left;
    return receipt;
  }

  /** The history of someone the directory no longer has: by person_id, or the person_ids the history keeps under that name. */
  async #eraseForgotten(ref: Partial<{ person_id: string; name: string }>): Promise<EraseReceipt> {
    const history = this.#history!;
    const ids = new Set<string>();
    if (ref.person_id) ids.add(ref.person_id);
    else if (ref.name) {
      // Bounded: a name's visits are read a page at a time, at most 20 pages of 1000.
      let cursor: string | undefined;
      for (let page = 0; page < 20; page++) {
        const found = await history.search({ name: ref.name.trim(), kind: 'person', limit: 1000, ...(cursor ? { cursor } : {}) });
        for (const v of found.visits) if (v.person_id) ids.add(v.person_id);
        cursor = found.next;
        if (!cursor) break;
      }
    }
    const total: EraseReceipt = { removed_visits: 0, removed_media: 0 };
    for (const person_id of ids) {
      const r = await history.erase({ person_id });
      total.removed_visits += r.removed_visits;
      total.removed_media += r.removed_media;
    }
    return total;
  }

  /**
   * Faces of the collection that no person, not-face or remembered visitor records (orphans: left
   * by a process that died between the service and the store, or added by hand), and with `remove`
   * takes them out of the collection. Visitors count from the directory's visitor store and from
   * `visitorFaceIds` (a host's other visitor stores). A face an operation is adding at that very
   * moment is not recorded yet either: the store and visitors are read again just before removing.
   */
  async check(options: CheckOptions = {}): Promise<CheckResult> {
    if (!options || typeof options !== 'object') throw new InputError('invalid_input', 'check takes { remove?, visitorFaceIds? }', { field: 'options', limit: 'an object' });
    if (options.remove !== undefined && typeof options.remove !== 'boolean') throw new InputError('invalid_input', 'remove must be true or false', { field: 'remove', limit: 'a boolean' });
    const given = new Set<string>();
    if (options.visitorFaceIds !== undefined) {
      if (typeof options.visitorFaceIds !== 'object' || options.visitorFaceIds === null || typeof (options.visitorFaceIds as Iterable<string>)[Symbol.iterator] !== 'function') {
        throw new InputError('invalid_input', 'visitorFaceIds must be a list of face ids', { field: 'visitorFaceIds', limit: 'an iterable of face ids' });
      }
      for (const id of options.visitorFaceIds) given.add(faceIdOf(id, 'visitorFaceIds'));
    }
    const inCollection = (await this.#vision.listFaces(this.#collectionId)).map((f) => f.faceId);
    const unknown = async (ids: readonly string[]): Promise<string[]> => {
      const known = await this.#known(given);
      return ids.filter((id) => !known.has(id));
    };
    const orphans = await unknown(inCollection);
    const removed: string[] = [];
    const left: string[] = [];
    if (options.remove && orphans.length > 0) {
      for (const faceId of await unknown(orphans)) {
        try {
          await this.#removeFromCollection(faceId);
          removed.push(faceId);
        } catch {
          left.push(faceId);
        }
      }
    }
    const result: CheckResult = { collection_id: this.#collectionId, faces_in_collection: inCollection.length, orphans: orphans.map((face_id) => ({ face_id })), removed };
    if (left.length > 0) result.left = left;
    return result;
  }

  /** Every face the directory and the visitor stores record. */
  async #known(visitorFaceIds: ReadonlySet<string>): Promise<Set<string>> {
    const doc = await this.#read();
    const known = new Set(visitorFaceIds);
    for (const p of doc.people) for (const f of [...p.faces, ...p.not_faces]) known.add(f.face_id);
    if (this.#visitors) for (const v of await storedVisitors(this.#visitors, this.#collectionId)) known.add(v.visitorId);
    return known;
  }

  /** Makes people of `labels` (face_id -> name): faces with the same name become one person (an existing person of that name gets them). */
  async importLabels(labels: ReadonlyMap<string, string> | Readonly<Record<string, string>>): Promise<ImportResult> {
    if (!labels || typeof labels !== 'object') throw new InputError('invalid_input', 'labels must be a map of face_id -> name', { field: 'labels', limit: 'face_id -> name' });
    const entries = labels instanceof Map ? [...(labels as ReadonlyMap<string, string>)] : Object.entries(labels);
    const byName = new Map<string, { name: string; faces: string[] }>();
    for (const [faceId, name] of entries) {
      const id = faceIdOf(faceId, 'labels');
      const clean = checkName(name, `labels.${id}`.slice(0, 80));
      const g = byName.get(nameKey(clean)) ?? { name: clean, faces: [] };
      if (!g.faces.includes(id)) g.faces.push(id);
      byName.set(nameKey(clean), g);
    }
    const doc = await this.#read();
    const plan = (d: PeopleDocument): ImportResult => {
      const out: ImportResult = { people: [] };
      for (const g of byName.values()) {
        let p = d.people.find((q) => nameKey(q.name) === nameKey(g.name));
        const created = !p;
        const fresh = g.faces.filter((id) => !p?.faces.some((f) => f.face_id === id));
        for (const id of fresh) faceFree(d, id, `labels.${id}`.slice(0, 80));
        if (!p) d.people.push((p = { person_id: `p_${randomUUID()}`, name: g.name, faces: [], not_faces: [] }));
        p.faces.push(...fresh.map((id) => faceOf(id, 'labels')));
        out.people.push({ person_id: p.person_id, name: p.name, created, added_faces: fresh });
      }
      return out;
    };
    plan(structuredClone(doc));
    const inCollection = new Set((await this.#vision.listFaces(this.#collectionId)).map((f) => f.faceId));
    for (const g of byName.values()) {
      const missing = g.faces.find((id) => !inCollection.has(id));
      if (missing) throw new InputError('invalid_input', `face ${missing} is not in collection ${this.#collectionId.slice(0, 80)}`, { field: `labels.${missing}`.slice(0, 80), limit: 'a face of the collection' });
    }
    return this.#change([], plan);
  }

  async #addPhoto(target: Person, image: ImageInput, from: FaceSource, list: 'faces' | 'not_faces'): Promise<AddFaceResult> {
    const { added, results } = await this.#enrol([image], 'image', from);
    const result = results[0];
    if (result.status === 'refused') throw new InputError('invalid_input', `the photo could not be added: ${result.reason}`, { field: 'image', limit: 'a photo with one face of 120 px or more' });
    const person = await this.#change(added, (d) => {
      const p = find(d, { person_id: target.person_id }, 'person');
      p[list].push(...added);
      return p;
    });
    return { person, result };
  }

  /** Prepares and adds each photo; refused photos are reported, a failed call removes what was added and throws. */
  async #enrol(images: readonly ImageInput[], field: string, from: FaceSource): Promise<{ added: PersonFace[]; results: PhotoResult[] }> {
    const added: PersonFace[] = [];
    const results: PhotoResult[] = [];
    try {
      for (const [index, image] of images.entries()) {
        const photo = await preparePhoto(this.#vision, image, images.length === 1 && field === 'image' ? field : `${field}[${index}]`);
        if (!photo.ok) {
          results.push({ index, status: 'refused', reason: photo.reason, code: photo.code });
          continue;
        }
        let faceId: string;
        try {
          faceId = (await this.#vision.addFace(this.#collectionId, photo.image)).faceId;
        } catch (err) {
          const e = err as { status?: number; code?: string };
          if (e.code === 'face_limit_exceeded') throw await this.#fullError();
          if (err instanceof ClientError && e.status === 400) {
            results.push({ index, status: 'refused', reason: `the service refused the face: ${err.message}`, code: err.code });
            continue;
          }
          throw err;
        }
        added.push(faceOf(faceId, from));
        results.push({ index, status: 'added', face_id: faceId, quality: photo.quality, ...(photo.warning ? { warning: photo.warning } : {}) });
      }
    } catch (err) {
      await this.#undo(added);
      throw err;
    }
    return { added, results };
  }

  /** Applies a change through the store; when it fails, the faces just added leave the collection again. */
  async #change<T>(added: readonly PersonFace[], change: (doc: PeopleDocument) => T): Promise<T> {
    let out!: T;
    try {
      await this.#store.update((raw) => {
        const doc = readPeople(raw, this.#collectionId, this.#store);
        out = change(doc);
        return sealPeople(doc, this.#store.key);
      });
    } catch (err) {
      await this.#undo(added);
      if (err instanceof ClientError) throw err;
      throw new PeopleError('people_store_failed', `the people store could not be written${reasonOf(err)}`);
    }
    return out;
  }

  async #undo(added: readonly PersonFace[]): Promise<void> {
    for (const f of added) await this.#removeFromCollection(f.face_id).catch(() => undefined);
  }

  async #removeFromCollection(faceId: string): Promise<void> {
    try {
      await this.#vision.removeFace(this.#collectionId, faceId);
    } catch (err) {
      // Already gone (removed by hand): what was wanted all the same.
      if ((err as { status?: number }).status !== 404) throw err;
    }
  }

  async #read(): Promise<PeopleDocument> {
    let raw: unknown;
    try {
      raw = await this.#store.load();
    } catch (err) {
      // The package's own refusals (a file not trusted, of another collection) already say what and where.
      if (err instanceof ClientError) throw err;
      throw new PeopleError('people_store_failed', `the people store could not be read${reasonOf(err)}`);
    }
    return readPeople(raw, this.#collectionId, this.#store);
  }

  async #checkVisitor(doc: PeopleDocument, visitorId: string): Promise<void> {
    faceFree(doc, visitorId, 'visitorId');
    if (!this.#visitors) throw new InputError('invalid_input', 'a visitor can be moved into a person only with the visitor store (the visitors option)', { field: 'visitorId', limit: 'a remembered visitor' });
    const known = await storedVisitors(this.#visitors, this.#collectionId);
    if (!known.some((v) => v.visitorId === visitorId)) throw new InputError('invalid_input', `visitor ${visitorId} is not in the visitor store`, { field: 'visitorId', limit: 'a remembered visitor' });
  }

  /** The collection is full: what fills it, counted. */
  async #fullError(): Promise<PeopleError> {
    const doc = await this.#read().catch(() => undefined);
    const faces = doc?.people.reduce((n, p) => n + p.faces.length, 0) ?? 0;
    const notFaces = doc?.people.reduce((n, p) => n + p.not_faces.length, 0) ?? 0;
    const visitors = this.#visitors ? (await storedVisitors(this.#visitors, this.#collectionId).catch(() => [])).length : 0;
    const total = (await this.#vision.listFaces(this.#collectionId).catch(() => undefined))?.length ?? COLLECTION_CAPACITY;
    const other = Math.max(0, total - faces - notFaces - visitors);
    return new PeopleError(
      'people_collection_full',
      `the face collection is full (the limit is ${COLLECTION_CAPACITY} faces): people's faces ${faces}, not-faces ${notFaces}, remembered visitors ${visitors}, other faces ${other}. Forget someone or remove faces to make room`,
      { status: 400 },
    );
  }
}

function imageList(v: unknown): ImageInput[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw new InputError('invalid_input', 'images must be a list of images', { field: 'images', limit: 'a list of images' });
  if (v.length > MAX_IMAGES) throw new InputError('invalid_input', `images lists ${v.length} photos; one call takes at most ${MAX_IMAGES}`, { field: 'images', limit: `at most ${MAX_IMAGES} images` });
  return v as ImageInput[];
}

function faceIdOf(v: unknown, field: string): string {
  if (typeof v !== 'string' || !FACE_ID.test(v)) throw new InputError('invalid_input', `${field} must be a face id of the collection`, { field, limit: 'a face id (letters, digits, . _ : -; at most 200)' });
  return v;
}

function sourceOf(v: unknown, fallback: FaceSource): FaceSource {
  if (v === undefined) return fallback;
  if (v !== 'photo' && v !== 'event' && v !== 'visitor' && v !== 'labels') throw new InputError('invalid_input', 'from must be photo, event, visitor or labels', { field: 'from', limit: "'photo' | 'event' | 'visitor' | 'labels'" });
  return v;
}

function faceOf(faceId: string, from: FaceSource): PersonFace {
  return { face_id: faceId, added_at: new Date().toISOString(), from };
}

function noQuality(): Extract<PhotoResult, { status: 'added' }>['quality'] {
  return { face_px: 0, sharpness: 0, brightness: 0, greyscale: false, direction: null };
}

function checkRef(ref: unknown, field: string): void {
  const r = ref as Partial<{ person_id: unknown; name: unknown }> | undefined;
  if (!r || typeof r !== 'object' || (r.person_id === undefined) === (r.name === undefined)) throw new InputError('invalid_input', `${field} must be { person_id } or { name }`, { field, limit: '{ person_id } or { name }' });
  if (r.person_id !== undefined && typeof r.person_id !== 'string') throw new InputError('invalid_input', `${field}.person_id must be a string`, { field, limit: 'a person id' });
  if (r.name !== undefined) checkName(r.name, field);
}

function lookup(doc: PeopleDocument, ref: PersonRef): Person | undefined {
  if ('person_id' in ref && ref.person_id !== undefined) return doc.people.find((p) => p.person_id === ref.person_id);
  const key = nameKey((ref as { name: string }).name.trim());
  return doc.people.find((p) => nameKey(p.name) === key);
}

/** The person a ref names; an InputError naming `field` when there is none. */
function find(doc: PeopleDocument, ref: PersonRef, field: string): Person {
  checkRef(ref, field);
  const p = lookup(doc, ref);
  if (!p) {
    const what = 'person_id' in ref && ref.person_id !== undefined ? `id ${ref.person_id.slice(0, 80)}` : `name "${(ref as { name: string }).name.trim()}"`;
    throw new InputError('invalid_input', `no person with ${what} in the directory`, { field, limit: 'a person of the directory' });
  }
  return p;
}

function nameFree(doc: PeopleDocument, name: string, field: string): void {
  const other = doc.people.find((p) => nameKey(p.name) === nameKey(name));
  if (other) throw new InputError('invalid_input', `a person named "${other.name}" exists already (${other.person_id}): add the photos to them (addFace), or choose another name`, { field, limit: 'a name no other person has' });
}

function faceFree(doc: PeopleDocument, faceId: string, field: string): void {
  const owner = doc.people.find((p) => [...p.faces, ...p.not_faces].some((f) => f.face_id === faceId));
  if (owner) throw new InputError('invalid_input', `face ${faceId} belongs to ${owner.name} (${owner.person_id}) already: a face belongs to one person at most`, { field, limit: 'a face of no person' });
}

function reasonOf(err: unknown): string {
  const e = err as { code?: unknown };
  const why = typeof e?.code === 'string' ? e.code : err instanceof Error ? err.name : 'error';
  return ` (${why.slice(0, 120)})`;
}

/** The error of a forget the history's first erase stopped (nothing has left the collection): the store's code, and what to do. */
function historyStopped(err: unknown, person: Person): Error {
  const code: HistoryErrorCode = err instanceof HistoryError ? err.code : 'history_failed';
  const retryable = err instanceof ClientError ? err.retryable : false;
  return new HistoryError(code, `forget of ${person.name} stopped before anything was removed: erasing their visits from the history failed (${errorMessage(err)}); forget again once the history can be written`, { retryable });
}

function errorCode(err: unknown): string {
  return err instanceof ClientError ? err.code : 'history_failed';
}

function errorMessage(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 300);
}

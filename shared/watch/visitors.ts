import { ClientError } from '../errors';
import { sealHolds, sealText } from '../util/seal';
import type { VisionClient } from '../vision';
import { VisitorError, type VisitorErrorCode } from './visitor-errors';

/** A stranger the watcher enrolled in the collection, so that coming back gives the same id. */
export interface VisitorRecord {
  /** The face_id of the enrolled crop: the visitor's id. */
  visitorId: string;
  /** ISO 8601 times of the first and the latest sighting. */
  firstSeen: string;
  lastSeen: string;
  visits: number;
}

/** What a store keeps: the watcher's own record of the faces it enrolled, for one collection. */
export interface VisitorDocument {
  kind: 'vision-streaming-visitors';
  version: 1;
  collectionId: string;
  visitors: VisitorRecord[];
  /** HMAC-SHA256 (hex) of the collection and the entries under the store's key, when the store has one. */
  seal?: string;
}

/**
 * Where a host keeps the visitors between runs: n8n's workflow static data, Node-RED's node
 * context, a file for the command line, memory by default. load() gives what save() was last
 * given (undefined when nothing was saved); either may throw, which the watcher reports and survives.
 */
export interface VisitorStore {
  /** How errors name the store (a file's path, "workflow static data"); default "the visitor store". */
  readonly name?: string;
  /**
   * A secret of the host's, kept outside the document (e.g. derived from the client secret): the
   * book seals what it saves with it and refuses a document whose seal does not match.
   */
  readonly key?: Uint8Array;
  load(): Promise<unknown> | unknown;
  save(document: VisitorDocument): Promise<void> | void;
}

/** Keeps the document in memory: visitors are forgotten with the process. */
export class MemoryVisitorStore implements VisitorStore {
  #document?: VisitorDocument;

  load(): VisitorDocument | undefined {
    return this.#document && structuredClone(this.#document);
  }

  save(document: VisitorDocument): void {
    this.#document = structuredClone(document);
  }
}

/** Settings of the visitor book. */
export interface VisitorOptions {
  collectionId: string;
  retentionMs: number;
  max: number;
  /** Face ids named in `labels`: people of the collection, never removed by the book. */
  labels?: ReadonlySet<string> | ReadonlyMap<string, string>;
  /** True for a face of a person of the people directory: not a visitor (dropped from the book, never removed from the collection). */
  isPerson?: (faceId: string) => boolean;
}

/** What a face id of the service looks like (UUID-like; no path or control characters, not overly long). */
const FACE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;
/** How far in the future a sighting may lie (clock skew between runs) before the store is doubted. */
const FUTURE_SLACK_MS = 86_400_000;

const DAY_MS = 86_400_000;

/**
 * The strangers a watcher remembers: enrols a new stranger's face in the collection, counts the
 * visits of those who come back, removes those not seen for the retention time and, past the cap,
 * the one seen least recently. Every failure is handed to `failed` (the watcher's error event) and
 * the book goes on, or stops enrolling.
 */
export class VisitorBook {
  readonly #o: VisitorOptions;
  readonly #vision: VisionClient;
  readonly #store: VisitorStore;
  readonly #failed: (error: VisitorError) => void;
  readonly #visitors = new Map<string, VisitorRecord>();
  /** False once the store could not be read (nothing is remembered then) or the collection is full. */
  #enrolling = true;
  #saving: Promise<void> = Promise.resolve();

  constructor(o: VisitorOptions, vision: VisionClient, store: VisitorStore, failed: (error: VisitorError) => void) {
    this.#o = o;
    this.#vision = vision;
    this.#store = store;
    this.#failed = failed;
  }

  /**
   * Reads the store. A store is trusted state: its entries are removed from the collection later, so
   * one that cannot be read, holds something else, belongs to another collection or has an entry
   * the book cannot vouch for is refused as a whole (an error naming it) and remembering is off.
   */
  async open(now: number): Promise<void> {
    let doc: unknown;
    try {
      doc = await this.#store.load();
    } catch (err) {
      return this.#stopRemembering(`${this.#storeName} could not be read`, err);
    }
    if (doc === undefined || doc === null) return;
    if (!isDocument(doc)) return this.#stopRemembering(`${this.#storeName} holds something that is not a visitor list of this package`);
    if (doc.collectionId !== this.#o.collectionId) {
      return this.#stopRemembering(`${this.#storeName} belongs to another face collection, not to ${this.#o.collectionId.slice(0, 80)}; its faces are left alone`, undefined, 'visitor_store_mismatch');
    }
    if (this.#store.key && !sealMatches(doc, this.#store.key)) {
      return this.#stopRemembering(`${this.#storeName} was not written by a watcher with these credentials (its seal does not match); no face of it is removed. Remove it to start afresh`, undefined, 'visitor_store_untrusted');
    }
    const doubt = doubtful(doc.visitors, now);
    if (doubt) return this.#stopRemembering(`${this.#storeName} has an entry this watcher cannot vouch for (${doubt}); no face of it is removed`, undefined, 'visitor_store_untrusted');
    // A visitor since named in labels is a person of the collection now: forgotten as a visitor, never removed.
    for (const v of doc.visitors) if (!this.#labelled(v.visitorId)) this.#visitors.set(v.visitorId, v);
    if (this.#visitors.size !== doc.visitors.length) this.#save();
    await this.expire(now);
  }

  /** True when a face of the collection is one of the remembered strangers. */
  has(faceId: string): boolean {
    return this.#visitors.has(faceId);
  }

  /** Forgets a visitor without removing the face from the collection: it belongs to a person now. */
  drop(visitorId: string): void {
    if (this.#visitors.delete(visitorId)) this.#save();
  }

  /** Lets go of the visitors whose faces belong to a person now (the people changed); their faces stay. */
  dropPeople(): void {
    const people = [...this.#visitors.keys()].filter((id) => this.#o.isPerson?.(id));
    for (const id of people) this.#visitors.delete(id);
    if (people.length > 0) this.#save();
  }

  /** Whether new strangers are enrolled (off after a store or collection failure). */
  get enrolling(): boolean {
    return this.#enrolling;
  }

  /** Number of visitors remembered. */
  get size(): number {
    return this.#visitors.size;
  }

  /** Enrols a new stranger's face crop; undefined when it could not be (the error is reported). */
  async enrol(face: Buffer, now: number): Promise<VisitorRecord | undefined> {
    if (!this.#enrolling) return undefined;
    if (this.#visitors.size >= this.#o.max) await this.#evictOldest();
    let faceId: string;
    try {
      faceId = (await this.#vision.addFace(this.#o.collectionId, face)).faceId;
    } catch (err) {
      if ((err as { code?: string }).code === 'face_limit_exceeded') {
        this.#enrolling = false;
        this.#failed(new VisitorError('visitors_collection_full', 'the face collection is full (1000 faces): new visitors are not remembered until faces are removed', { status: 400 }));
      } else this.#failed(asError(err, 'visitor_enrol_failed'));
      return undefined;
    }
    const at = new Date(now).toISOString();
    const record: VisitorRecord = { visitorId: faceId, firstSeen: at, lastSeen: at, visits: 1 };
    this.#visitors.set(faceId, record);
    this.#save();
    return { ...record };
  }

  /** A remembered stranger is back for a new visit: counted. */
  visit(visitorId: string, now: number): VisitorRecord | undefined {
    const record = this.#visitors.get(visitorId);
    if (!record) return undefined;
    record.visits += 1;
    record.lastSeen = new Date(now).toISOString();
    this.#save();
    return { ...record };
  }

  /** A remembered stranger is in view: not to be expired yet (saved with the next change). */
  seen(visitorId: string, now: number): void {
    const record = this.#visitors.get(visitorId);
    if (record) record.lastSeen = new Date(now).toISOString();
  }

  /** Removes from the collection the visitors not seen for the retention time. */
  async expire(now: number): Promise<void> {
    const old = [...this.#visitors.values()].filter((v) => now - Date.parse(v.lastSeen) > this.#o.retentionMs);
    for (const v of old) await this.#remove(v.visitorId);
    if (old.length > 0) this.#save();
  }

  /** Resolves once the last save has been handed to the store. */
  flush(): Promise<void> {
    return this.#saving;
  }

  async #evictOldest(): Promise<void> {
    const oldest = [...this.#visitors.values()].sort((a, b) => a.lastSeen.localeCompare(b.lastSeen))[0];
    if (oldest) await this.#remove(oldest.visitorId);
  }

  async #remove(visitorId: string): Promise<void> {
    // Belt and braces: a face named in labels is a person, whatever the book holds.
    if (this.#labelled(visitorId)) {
      this.#visitors.delete(visitorId);
      return;
    }
    try {
      await this.#vision.removeFace(this.#o.collectionId, visitorId);
    } catch (err) {
      // Already gone (removed by hand): forgotten all the same. Anything else: tried again next time.
      if ((err as { status?: number }).status !== 404) {
        this.#failed(asError(err, 'visitor_remove_failed'));
        return;
      }
    }
    this.#visitors.delete(visitorId);
  }

  #save(): void {
    const doc: VisitorDocument = { kind: 'vision-streaming-visitors', version: 1, collectionId: this.#o.collectionId, visitors: [...this.#visitors.values()].map((v) => ({ ...v })) };
    if (this.#store.key) doc.seal = sealOf(doc, this.#store.key);
    this.#saving = this.#saving.then(async () => {
      try {
        await this.#store.save(doc);
      } catch (err) {
        this.#failed(asError(err, 'visitor_store_failed', 'the visitor store could not be written'));
      }
    });
  }

  #stopRemembering(message: string, cause?: unknown, code: VisitorErrorCode = 'visitor_store_failed'): void {
    this.#enrolling = false;
    this.#failed(new VisitorError(code, `${message}${reasonOf(cause)}: new visitors are not remembered in this run`));
  }

  get #storeName(): string {
    const name = typeof this.#store.name === 'string' && this.#store.name !== '' ? this.#store.name.slice(0, 200) : undefined;
    return name ? `the visitor store ${name}` : 'the visitor store';
  }

  #labelled(faceId: string): boolean {
    return (this.#o.labels?.has(faceId) ?? false) || (this.#o.isPerson?.(faceId) ?? false);
  }
}

/**
 * The visitors a store lists for a collection (its document checked as the book checks it); an
 * error naming the store when it holds another collection's or a document with a broken seal.
 */
export async function storedVisitors(store: VisitorStore, collectionId: string): Promise<VisitorRecord[]> {
  return (await readVisitors(store, collectionId))?.visitors ?? [];
}

/**
 * Takes visitors out of a store without removing their faces from the collection (they belong to
 * a person now); the ids it did take out. The document is saved again, sealed when the store has a key.
 */
export async function dropStoredVisitors(store: VisitorStore, collectionId: string, ids: readonly string[]): Promise<string[]> {
  const doc = await readVisitors(store, collectionId);
  if (!doc) return [];
  const gone = new Set(ids);
  const kept = doc.visitors.filter((v) => !gone.has(v.visitorId));
  if (kept.length === doc.visitors.length) return [];
  const next: VisitorDocument = { kind: 'vision-streaming-visitors', version: 1, collectionId, visitors: kept };
  if (store.key) next.seal = sealOf(next, store.key);
  await store.save(next);
  return doc.visitors.filter((v) => gone.has(v.visitorId)).map((v) => v.visitorId);
}

async function readVisitors(store: VisitorStore, collectionId: string): Promise<VisitorDocument | undefined> {
  const name = typeof store.name === 'string' && store.name !== '' ? `the visitor store ${store.name.slice(0, 200)}` : 'the visitor store';
  const doc = await store.load();
  if (doc === undefined || doc === null) return undefined;
  if (!isDocument(doc)) throw new VisitorError('visitor_store_failed', `${name} holds something that is not a visitor list of this package`);
  if (doc.collectionId !== collectionId) throw new VisitorError('visitor_store_mismatch', `${name} belongs to another face collection, not to ${collectionId.slice(0, 80)}`);
  if (store.key && !sealMatches(doc, store.key)) throw new VisitorError('visitor_store_untrusted', `${name} was not written with these credentials (its seal does not match)`);
  return doc;
}

/** Days to milliseconds, for the retention option. */
export function daysToMs(days: number): number {
  return days * DAY_MS;
}

function isDocument(doc: unknown): doc is VisitorDocument {
  const d = doc as Partial<VisitorDocument>;
  return (
    typeof d === 'object' &&
    d !== null &&
    d.kind === 'vision-streaming-visitors' &&
    d.version === 1 &&
    typeof d.collectionId === 'string' &&
    Array.isArray(d.visitors) &&
    d.visitors.every((v) => typeof v?.visitorId === 'string' && typeof v.firstSeen === 'string' && typeof v.lastSeen === 'string' && typeof v.visits === 'number')
  );
}

/** The seal of a document: its collection and entries, in a fixed order, under the key. */
export function sealOf(doc: Pick<VisitorDocument, 'collectionId' | 'visitors'>, key: Uint8Array): string {
  return sealText(sealContent(doc), key);
}

function sealMatches(doc: VisitorDocument, key: Uint8Array): boolean {
  return sealHolds(doc.seal, sealContent(doc), key);
}

function sealContent(doc: Pick<VisitorDocument, 'collectionId' | 'visitors'>): string {
  return JSON.stringify([doc.collectionId, doc.visitors.map((v) => [v.visitorId, v.firstSeen, v.lastSeen, v.visits])]);
}

/**
 * Why a store's entries cannot be vouched for (undefined when they can): each must be one face id
 * the book enrolled once, with real times of sighting in order and not ahead of now, and a count.
 * Never quotes a value of the store.
 */
function doubtful(visitors: readonly VisitorRecord[], now: number): string | undefined {
  const ids = new Set<string>();
  for (const [i, v] of visitors.entries()) {
    const first = Date.parse(v.firstSeen);
    const last = Date.parse(v.lastSeen);
    const at = `entry ${i + 1}`;
    if (!FACE_ID.test(v.visitorId)) return `${at}: not a face id`;
    if (ids.has(v.visitorId)) return `${at}: a face listed twice`;
    if (!Number.isFinite(first) || !Number.isFinite(last)) return `${at}: a time that is not a date`;
    if (first > last) return `${at}: times out of order`;
    if (last > now + FUTURE_SLACK_MS) return `${at}: a time in the future`;
    if (!Number.isInteger(v.visits) || v.visits < 1) return `${at}: a visit count that is not a positive whole number`;
    ids.add(v.visitorId);
  }
  return undefined;
}

/** A failure of the visitor book under its own code, keeping an API error's status. */
function asError(err: unknown, code: VisitorErrorCode, message?: string): VisitorError {
  const text = message ?? code.replace(/_/g, ' ');
  if (err instanceof ClientError) return new VisitorError(code, `${text}: ${err.message}`, { status: err.status, retryable: err.retryable });
  return new VisitorError(code, `${text}${reasonOf(err)}`);
}

/** A store's failure in a few words: its error code (ENOENT, EACCES, ...) or kind, never a value it held (a parser's message quotes the text). */
function reasonOf(err: unknown): string {
  if (err === undefined) return '';
  const e = err as { code?: unknown; message?: unknown };
  // A package error's message is written to be shown; a system error's may quote a path or a value.
  const why = err instanceof ClientError ? err.message : typeof e.code === 'string' ? e.code : err instanceof Error ? err.name : 'error';
  return ` (${why.slice(0, 120)})`;
}

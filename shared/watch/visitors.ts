import { ClientError } from '../errors';
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
}

/**
 * Where a host keeps the visitors between runs: n8n's workflow static data, Node-RED's node
 * context, a file for the command line, memory by default. load() gives what save() was last
 * given (undefined when nothing was saved); either may throw, which the watcher reports and survives.
 */
export interface VisitorStore {
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
}

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

  /** Reads the store; a store that cannot be read, or holds something else, turns remembering off. */
  async open(now: number): Promise<void> {
    let doc: unknown;
    try {
      doc = await this.#store.load();
    } catch (err) {
      return this.#stopRemembering('the visitor store could not be read', err);
    }
    if (doc === undefined || doc === null) return;
    if (!isDocument(doc)) return this.#stopRemembering('the visitor store holds something that is not a visitor list of this package');
    // Another collection's visitors are not this one's faces: they are left alone, and not kept.
    if (doc.collectionId !== this.#o.collectionId) return;
    for (const v of doc.visitors) this.#visitors.set(v.visitorId, v);
    await this.expire(now);
  }

  /** True when a face of the collection is one of the remembered strangers. */
  has(faceId: string): boolean {
    return this.#visitors.has(faceId);
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
    this.#saving = this.#saving.then(async () => {
      try {
        await this.#store.save(doc);
      } catch (err) {
        this.#failed(asError(err, 'visitor_store_failed', 'the visitor store could not be written'));
      }
    });
  }

  #stopRemembering(message: string, cause?: unknown): void {
    this.#enrolling = false;
    this.#failed(new VisitorError('visitor_store_failed', `${message}${reasonOf(cause)}: new visitors are not remembered in this run`));
  }
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

/** A failure of the visitor book under its own code, keeping an API error's status. */
function asError(err: unknown, code: VisitorErrorCode, message?: string): VisitorError {
  const text = message ?? code.replace(/_/g, ' ');
  if (err instanceof ClientError) return new VisitorError(code, `${text}: ${err.message}`, { status: err.status, retryable: err.retryable });
  return new VisitorError(code, `${text}${reasonOf(err)}`);
}

/** A store's failure in a few words: its error code (ENOENT, EACCES, ...) or message, never a value it held. */
function reasonOf(err: unknown): string {
  if (err === undefined) return '';
  const e = err as { code?: unknown; message?: unknown };
  const why = typeof e.code === 'string' ? e.code : typeof e.message === 'string' ? e.message : String(err);
  return ` (${why.slice(0, 120)})`;
}

import { InputError } from '../errors';
import type { SqlDialect } from './dialect';
import { HistoryError } from './errors';
import type { SqlExecutor, SqlRow } from './executor';
import { MAX_MEDIA_BYTES, type MediaFolder } from './media-folder';
import { checkId, checkQuery, checkVisitorIds, describe, encodeCursor, MEDIA_KINDS } from './query';
import { checkPatch, firstWriteMissing, leftBeforeArrival, num, visitRecord, type CheckedPatch } from './records';
import {
  DELETE_MEDIA_SQL,
  deleteVisitsSql,
  INSERT_EVENT_SQL,
  RAISE_LONGEST_SQL,
  SELECT_EXPIRED_VISITS_SQL,
  SELECT_FACE_VISITS_SQL,
  SELECT_LONGEST_SQL,
  SELECT_MEDIA_OF_KIND_SQL,
  SELECT_MEDIA_TOTAL_SQL,
  SELECT_OLDEST_MEDIA_SQL,
  SELECT_PERSON_VISITS_SQL,
  SELECT_VISIT_SQL,
  SELECT_VISITOR_VISITS_SQL,
  searchSql,
  selectEventsSql,
  selectMediaSql,
  UPSERT_MEDIA_SQL,
} from './sql';
import { SPAN_COLUMN, visitWriteSql, visitWriteWithEventsSql } from './visit-write';
import type { EraseReceipt, EraseTarget, HistoryPage, HistoryQuery, HistoryStore, MediaKind, MediaRef, RetentionPolicy, SweepReceipt, VisitPatch, VisitRecord } from './types';

/** Retention when the host sets none: 30 days, 2 GiB of media. */
export const DEFAULT_RETENTION: RetentionPolicy = { maxAgeDays: 30, maxMediaBytes: 2 * 1024 * 1024 * 1024 };

/** Visits removed per transaction by an erase or a sweep: each transaction stays short (SQLite's is synchronous). */
const BATCH = 500;

/** Most rows of one `IN (…)` list. */
const IN_CHUNK = 500;

const MIME = /^[a-z]+\/[a-z0-9.+-]{1,80}$/;

/** How the core store is set up by an engine. */
export interface SqlHistoryStoreOptions {
  engine: HistoryStore['engine'];
  dialect: SqlDialect;
  executor: SqlExecutor;
  media: MediaFolder;
  /** What errors call the store, e.g. 'the history /home/a/history.db'. */
  name: string;
}

/**
 * The history store on any SQL engine: checks every input, runs the shared statements through the
 * engine's executor, and keeps media files in step with their rows (files removed before their rows,
 * so a crash between the two leaves a row without its file, never a forgotten face on disk).
 */
export class SqlHistoryStore implements HistoryStore {
  readonly engine: HistoryStore['engine'];
  /** What errors call the store. */
  readonly name: string;
  readonly #dialect: SqlDialect;
  readonly #exec: SqlExecutor;
  readonly #media: MediaFolder;
  /** The longest visit span known to be saved, so most writes skip raising it. */
  #longestSaved = -1;
  #closed = false;

  constructor(o: SqlHistoryStoreOptions) {
    this.engine = o.engine;
    this.#dialect = o.dialect;
    this.#exec = o.executor;
    this.#media = o.media;
    this.name = o.name;
  }

  /** The media folder's absolute path. */
  get mediaFolder(): string {
    return this.#media.root;
  }

  async writeVisit(patch: VisitPatch): Promise<void> {
    this.#open();
    const checked = checkPatch(patch);
    // Twice at most: a visit another writer created between a refused update and the look at why.
    for (let attempt = 0; ; attempt++) {
      const span = this.#exec.write ? await this.#writeOneStatement(this.#exec.write.bind(this.#exec), checked) : await this.#writeInTransaction(checked);
      if (span !== undefined) {
        this.#longestSaved = Math.max(this.#longestSaved, span);
        return;
      }
      const refusal = await this.#whyNotWritten(checked);
      if (refusal) throw refusal;
      if (attempt >= 1) throw new HistoryError('history_failed', `${this.name}: visit ${describe(checked.visitId)} changed under this write twice`, { retryable: true });
    }
  }

  /** The write as one statement (its events and the longest span in it): the visit's span, or undefined when nothing was written. */
  async #writeOneStatement(write: NonNullable<SqlExecutor['write']>, checked: CheckedPatch): Promise<number | undefined> {
    const statement = visitWriteWithEventsSql(this.#dialect, checked, Date.now());
    const [row] = await write(statement.text, statement.params);
    return row ? num(row[SPAN_COLUMN]) : undefined;
  }

  /** The write as the visit's upsert, then its events and the longest span, in one transaction. */
  #writeInTransaction(checked: CheckedPatch): Promise<number | undefined> {
    return this.#exec.transaction(async (tx) => {
      const statement = visitWriteSql(this.#dialect, checked, Date.now());
      const [row] = await tx.all(statement.text, statement.params);
      if (!row) return undefined;
      const spanMs = num(row[SPAN_COLUMN]);
      for (const e of checked.events) await tx.run(INSERT_EVENT_SQL, [checked.visitId, e.event, e.event_at, e.score, e.reason, e.face_id]);
      if (spanMs > this.#longestSaved) await tx.run(RAISE_LONGEST_SQL, [spanMs]);
      return spanMs;
    });
  }

  /** Why a write changed nothing: the visit is not there (and the patch cannot make it), or it would leave before it arrived; undefined when neither holds now. */
  async #whyNotWritten(checked: CheckedPatch): Promise<InputError | undefined> {
    const [found] = await this.#exec.all(SELECT_VISIT_SQL, [checked.visitId]);
    if (!found) return checked.creates ? undefined : firstWriteMissing(checked);
    const left = checked.set.left_at !== undefined ? checked.set.left_at : found.left_at;
    const arrived = checked.set.arrived_at ?? found.arrived_at;
    return left === null || left === undefined ? undefined : leftBeforeArrival(num(left), num(arrived));
  }

  async putMedia(visitId: string, kind: MediaKind, bytes: Buffer, mime: string): Promise<MediaRef> {
    this.#open();
    checkId(visitId, 'visitId');
    if (!MEDIA_KINDS.includes(kind)) throw new InputError('invalid_input', `kind must be one of ${MEDIA_KINDS.join(', ')}; got ${describe(kind)}`, { field: 'kind', limit: MEDIA_KINDS.join(', ') });
    if (!Buffer.isBuffer(bytes) || bytes.length === 0 || bytes.length > MAX_MEDIA_BYTES) {
      throw new InputError('invalid_input', `bytes must be a Buffer of 1 to ${MAX_MEDIA_BYTES} bytes`, { field: 'bytes', limit: `1 to ${MAX_MEDIA_BYTES} bytes` });
    }
    if (typeof mime !== 'string' || !MIME.test(mime)) throw new InputError('invalid_input', `mime must be a media type such as image/jpeg; got ${describe(mime)}`, { field: 'mime', limit: 'type/subtype' });
    if ((await this.#exec.all(SELECT_VISIT_SQL, [visitId])).length === 0) {
      throw new InputError('invalid_input', `there is no visit ${describe(visitId)} in ${this.name} to keep media of (write the visit first)`, { field: 'visitId', limit: 'a visit written before' });
    }
    const ref: MediaRef = { name: this.#media.nameOf(visitId, kind, mime), bytes: bytes.length, mime };
    await this.#media.write(ref.name, bytes);
    const earlier = await this.#exec.transaction(async (tx) => {
      const [old] = await tx.all(SELECT_MEDIA_OF_KIND_SQL, [visitId, kind]);
      await tx.run(UPSERT_MEDIA_SQL, [visitId, kind, ref.name, ref.bytes, ref.mime, Date.now()]);
      return old ? String(old.name) : undefined;
    });
    // Another type of the same kind had another ending: the earlier file goes.
    if (earlier !== undefined && earlier !== ref.name) await this.#media.remove(earlier).catch(() => undefined);
    return ref;
  }

  mediaPath(ref: MediaRef): string {
    return this.#media.pathOf(ref?.name);
  }

  readMedia(ref: MediaRef): Promise<Buffer> {
    this.#open();
    return this.#media.read(ref?.name);
  }

  async get(visitId: string): Promise<VisitRecord | undefined> {
    this.#open();
    const [row] = await this.#exec.all(SELECT_VISIT_SQL, [checkId(visitId, 'visitId')]);
    if (!row) return undefined;
    return (await this.#records([row]))[0];
  }

  async search(query: HistoryQuery): Promise<HistoryPage> {
    this.#open();
    const q = checkQuery(query);
    const longest = q.since === undefined ? 0 : num((await this.#exec.all(SELECT_LONGEST_SQL, []))[0]?.meta_value ?? 0);
    const filters = { ...q, longest_ms: longest, take: q.limit + 1 };
    const recent = searchSql(filters, 'recent');
    const rows = await this.#exec.all(recent.text, recent.params);
    if (q.since !== undefined && rows.length <= q.limit) {
      const open = searchSql({ ...filters, take: q.limit + 1 - rows.length }, 'open-before');
      rows.push(...(await this.#exec.all(open.text, open.params)));
    }
    const page = rows.slice(0, q.limit);
    const visits = await this.#records(page);
    const last = page[page.length - 1];
    return rows.length > q.limit && last ? { visits, next: encodeCursor(num(last.arrived_at), String(last.visit_id)) } : { visits };
  }

  async deleteVisit(visitId: string): Promise<EraseReceipt> {
    this.#open();
    return this.#removeVisits([checkId(visitId, 'visitId')]);
  }

  async erase(who: EraseTarget): Promise<EraseReceipt> {
    this.#open();
    const personId = who?.person_id === undefined ? undefined : checkId(who.person_id, 'person_id');
    const visitorIds = who?.visitor_ids === undefined || who.visitor_ids.length === 0 ? [] : checkVisitorIds(who.visitor_ids);
    const faceIds = who?.face_ids === undefined || who.face_ids.length === 0 ? [] : checkVisitorIds(who.face_ids, 'face_ids', 'face ids');
    if (personId === undefined && visitorIds.length === 0 && faceIds.length === 0) {
      throw new InputError('invalid_input', 'erase needs a person_id, visitor_ids or face_ids', { field: 'person_id', limit: 'a person id or at least one visitor or face id' });
    }
    const total: EraseReceipt = { removed_visits: 0, removed_media: 0 };
    const batches: Array<[string, string]> = [
      ...(personId === undefined ? [] : [[SELECT_PERSON_VISITS_SQL, personId] as [string, string]]),
      ...[...new Set(visitorIds)].map((v) => [SELECT_VISITOR_VISITS_SQL, v] as [string, string]),
      ...[...new Set(faceIds)].map((f) => [SELECT_FACE_VISITS_SQL, f] as [string, string]),
    ];
    for (const [sql, id] of batches) await this.#removeAll(() => this.#exec.all(sql, [id, BATCH]), total);
    return total;
  }

  async sweep(policy: RetentionPolicy, now: Date = new Date()): Promise<SweepReceipt> {
    this.#open();
    const { maxAgeDays, maxMediaBytes } = checkPolicy(policy);
    if (!(now instanceof Date) || !Number.isFinite(now.getTime())) throw new InputError('invalid_input', 'now must be a valid Date', { field: 'now' });
    const receipt: SweepReceipt = { removed_visits: 0, removed_media: 0, removed_media_for_size: 0, freed_bytes: 0, time: now.toISOString() };
    const cutoff = now.getTime() - maxAgeDays * 86_400_000;
    await this.#removeAll(() => this.#exec.all(SELECT_EXPIRED_VISITS_SQL, [cutoff, BATCH]), receipt, receipt);
    let total = num((await this.#exec.all(SELECT_MEDIA_TOTAL_SQL, []))[0]?.total ?? 0);
    while (total > maxMediaBytes) {
      const oldest = await this.#exec.all(SELECT_OLDEST_MEDIA_SQL, [BATCH]);
      if (oldest.length === 0) break;
      for (const m of oldest) {
        if (total <= maxMediaBytes) break;
        // The file first, then its row: the row never outlives a file that is still there.
        await this.#media.remove(String(m.name));
        // A write of its own transaction: the engine waits for another writer there.
        await this.#exec.transaction((tx) => tx.run(DELETE_MEDIA_SQL, [String(m.visit_id), String(m.kind)]));
        const bytes = num(m.bytes);
        total -= bytes;
        receipt.freed_bytes += bytes;
        receipt.removed_media += 1;
        receipt.removed_media_for_size += 1;
      }
    }
    return receipt;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#exec.close();
  }

  /** Removes the visits `next` selects, a batch at a time, until it selects none; adds to `total` (and the bytes freed to `freed`). */
  async #removeAll(next: () => Promise<SqlRow[]>, total: EraseReceipt, freed?: SweepReceipt): Promise<void> {
    // Bounded: each round removes what it selected, and a round that removed nothing ends the loop.
    for (;;) {
      const ids = (await next()).map((r) => String(r.visit_id));
      if (ids.length === 0) return;
      const removed = await this.#removeVisits(ids, freed);
      total.removed_visits += removed.removed_visits;
      total.removed_media += removed.removed_media;
      if (removed.removed_visits === 0) return;
    }
  }

  /** Removes these visits' media files, then their rows in one transaction. */
  async #removeVisits(ids: string[], freed?: SweepReceipt): Promise<EraseReceipt> {
    const media = await this.#exec.all(selectMediaSql(ids.length), ids);
    for (const m of media) {
      await this.#media.remove(String(m.name));
      if (freed) freed.freed_bytes += num(m.bytes);
    }
    const removed = await this.#exec.transaction(async (tx) => {
      let visits = 0;
      for (const statement of deleteVisitsSql(ids.length)) visits = await tx.run(statement, ids);
      return visits;
    });
    return { removed_visits: removed, removed_media: media.length };
  }

  /** Records of these rows, with their events and media (a query each per chunk of visits). */
  async #records(rows: SqlRow[]): Promise<VisitRecord[]> {
    const events = new Map<string, SqlRow[]>();
    const media = new Map<string, SqlRow[]>();
    for (let i = 0; i < rows.length; i += IN_CHUNK) {
      const ids = rows.slice(i, i + IN_CHUNK).map((r) => String(r.visit_id));
      for (const e of await this.#exec.all(selectEventsSql(ids.length), ids)) push(events, String(e.visit_id), e);
      for (const m of await this.#exec.all(selectMediaSql(ids.length), ids)) push(media, String(m.visit_id), m);
    }
    return rows.map((r) => visitRecord(r, events.get(String(r.visit_id)) ?? [], media.get(String(r.visit_id)) ?? []));
  }

  #open(): void {
    if (this.#closed) throw new HistoryError('history_closed', `${this.name} is closed`);
  }
}

function push(map: Map<string, SqlRow[]>, key: string, row: SqlRow): void {
  const list = map.get(key);
  if (list) list.push(row);
  else map.set(key, [row]);
}

/** A retention policy as checked. */
export function checkPolicy(policy: RetentionPolicy): RetentionPolicy {
  const days = policy?.maxAgeDays;
  const bytes = policy?.maxMediaBytes;
  if (typeof days !== 'number' || !Number.isFinite(days) || days <= 0) {
    throw new InputError('invalid_input', `maxAgeDays must be a number of days above 0; got ${describe(days)}`, { field: 'maxAgeDays', limit: 'above 0' });
  }
  if (typeof bytes !== 'number' || !Number.isFinite(bytes) || bytes < 0) {
    throw new InputError('invalid_input', `maxMediaBytes must be a number of bytes, 0 or more; got ${describe(bytes)}`, { field: 'maxMediaBytes', limit: '0 or more' });
  }
  return { maxAgeDays: days, maxMediaBytes: bytes };
}

/**
 * The history, measured (issue: history, costs):
 * - `write_ms`: one writeVisit (a visit's arrival with its event, then its leaving with its event:
 *   each call timed), p50/p95, into a history already holding the bulk-loaded visits (goal p95 at
 *   most 5 ms on SQLite, 20 ms on PostgreSQL on 127.0.0.1);
 * - `search_person_day_ms`: a search by person and day (a random person of 200, a random day of the
 *   30 the visits span, a page of 50 with its events and media), p50/p95 over HISTORY_BENCH_VISITS
 *   visits (1,000,000; goal p95 at most 50 ms on SQLite, 100 ms on PostgreSQL); the same by stream
 *   and day and by visitor, for comparison;
 * - `bulk_load_s`: how long loading the visits took (one transaction, prepared statements; not a
 *   cost of the package, the bench's set-up).
 * - `streams`: 40 streams (HISTORY_BENCH_STREAMS) writing into one store through the real HistoryRecorder,
 *   as a watcher's `history` option does: each stream a visit every 8 s (the standard clip's loop: an
 *   arrival with a 12 KB face crop and a 60 KB snapshot, three matches 1.5 s apart, a leaving),
 *   emitted on an EventEmitter at their due times, 5 visits and 30 events a second in all. Counted
 *   after: visits, events and media in the store against those written, the recorder's drops
 *   (goal: none lost). `event_latency_ms`: from an event's due time to its listener (what a host's
 *   flow or the command line's printer sees), p50/p95, with the history off and on in alternating
 *   windows of one process (HISTORY_BENCH_STREAM_ROUNDS pairs of HISTORY_BENCH_STREAM_WINDOW_S s;
 *   goal: p95 on within 10% of off). Simulated, not watched: 40 real watchers (decoders, the vision
 *   API) would take both cores of the machine this runs on, and what the history adds to an event is
 *   the recorder's work and its store's on this process's event loop, which this measures.
 *   HISTORY_BENCH_ONLY=streams runs this part alone (no bulk load).
 * The visits: 30 days, 60% of 200 known people, 25% of 5000 visitors, 15% strangers, over 40
 * streams in 10 rooms, 5 s to 10 min each, an arrived and a left event each.
 * Engines: SQLite (a file in a temporary folder) always; PostgreSQL when HISTORY_BENCH_PG_URL names
 * a database the bench may fill (its tables are dropped first and after), or with HISTORY_BENCH_PG=1
 * a server of its own: Debian's PostgreSQL started in a temporary folder on 127.0.0.1 as the tests
 * start it (test/support/postgres.ts), with its durability on (fsync, synchronous commit), stopped
 * and removed after.
 * Run: npm run bench:history. Knobs: HISTORY_BENCH_ENGINE (sqlite, postgres or all; default all
 * available), HISTORY_BENCH_PG_URL, HISTORY_BENCH_PG=1, HISTORY_BENCH_VISITS (1000000), HISTORY_BENCH_WRITES (visits
 * written while timed, 1000: two writes each), HISTORY_BENCH_SEARCHES (500 of each kind), HISTORY_BENCH_KEEP=1 (the SQLite file is kept and
 * its path printed, to look at its query plans).
 * The last line printed is one JSON object.
 */
import { EventEmitter } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { DatabaseSync } from 'node:sqlite';
import { openHistory } from '../shared/history';
import { HistoryRecorder } from '../shared/history/recorder';
import type { ArrivedEvent, FaceQuality, LeftEvent, MatchEvent, WatchEvent } from '../shared/watch/events';
import { sqlitePlaceholders } from '../shared/history/dialect';
import { INSERT_EVENT_SQL, INSERT_VISIT_SQL, RAISE_LONGEST_SQL, VISIT_COLUMN_NAMES, type SqlValue } from '../shared/history/sql';
import type { HistoryQuery, HistoryStore } from '../shared/history/types';
import { postgresSkipReason, startPostgres, type TestPostgres } from '../test/support/postgres';

const VISITS = positiveInt(process.env.HISTORY_BENCH_VISITS, 1_000_000);
const WRITES = positiveInt(process.env.HISTORY_BENCH_WRITES, 1000);
const SEARCHES = positiveInt(process.env.HISTORY_BENCH_SEARCHES, 500);
const ENGINE = process.env.HISTORY_BENCH_ENGINE ?? 'all';
const PG_URL = process.env.HISTORY_BENCH_PG_URL;
const PG_OWN = process.env.HISTORY_BENCH_PG === '1';
const KEEP = process.env.HISTORY_BENCH_KEEP === '1';
const ONLY = process.env.HISTORY_BENCH_ONLY;
const STREAMS_N = positiveInt(process.env.HISTORY_BENCH_STREAMS, 40);
const STREAM_ROUNDS = positiveInt(process.env.HISTORY_BENCH_STREAM_ROUNDS, 3);
const STREAM_WINDOW_S = positiveInt(process.env.HISTORY_BENCH_STREAM_WINDOW_S, 16);

const DAY = 86_400_000;
const DAYS = 30;
const START = Date.UTC(2026, 9, 1);
const PEOPLE = 200;
const VISITORS = 5000;
const STREAMS = 40;
const ROOMS = 10;
/** The longest visit loaded: 10 minutes. */
const LONGEST_MS = 600_000;

/** A history the bench fills and measures, and how it is filled and removed. */
interface BenchHistory {
  store: HistoryStore;
  /** Loads visit rows (VISIT_COLUMN_NAMES order) and their events in one transaction. */
  bulkLoad(rows: Iterable<{ visit: SqlValue[]; events: SqlValue[][] }>, longestMs: number): Promise<void>;
  cleanup(): Promise<void>;
}

/** One engine as the bench drives it. */
interface BenchEngine {
  name: 'sqlite' | 'postgres';
  open(): Promise<BenchHistory>;
}

const sqliteEngine: BenchEngine = {
  name: 'sqlite',
  async open() {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'history-bench-'));
    const file = path.join(dir, 'history.db');
    const store = await openHistory({ location: file });
    return {
      store,
      async bulkLoad(rows, longestMs) {
        // A second connection of the bench's own: the store's statements, prepared once, one transaction.
        // The store's own connection stays open and idle meanwhile.
        const db = new DatabaseSync(file);
        try {
          db.exec('PRAGMA synchronous = NORMAL');
          // The indexes of a million rows in memory while they are built (the bench's connection only).
          db.exec('PRAGMA cache_size = -1000000');
          db.exec('BEGIN IMMEDIATE');
          // The migration's secondary indexes are dropped and made again after the rows (one sort
          // each instead of a million scattered inserts), from their own text as the database keeps it.
          const indexes = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('visits', 'visit_events')").all() as Array<{ name: string; sql: string }>;
          for (const index of indexes) db.exec(`DROP INDEX ${index.name}`);
          const visit = db.prepare(sqlitePlaceholders(INSERT_VISIT_SQL));
          const event = db.prepare(sqlitePlaceholders(INSERT_EVENT_SQL));
          for (const row of rows) {
            visit.run(...row.visit);
            for (const e of row.events) event.run(...e);
          }
          for (const index of indexes) db.exec(index.sql);
          db.prepare(sqlitePlaceholders(RAISE_LONGEST_SQL)).run(longestMs);
          db.exec('COMMIT');
          db.exec('ANALYZE');
        } finally {
          db.close();
        }
      },
      async cleanup() {
        await store.close();
        if (KEEP) console.log(`sqlite: the database is kept in ${file}`);
        else await rm(dir, { recursive: true, force: true });
      },
    };
  },
};

/** PostgreSQL at HISTORY_BENCH_PG_URL: its engine opens the history; the rows go in by multi-row INSERTs in one transaction. */
function postgresEngine(url: string): BenchEngine {
  return {
    name: 'postgres',
    async open() {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { Client } = require('pg') as typeof import('pg');
      const dropAll = async (): Promise<void> => {
        const client = new Client({ connectionString: url });
        await client.connect();
        try {
          await client.query('DROP TABLE IF EXISTS visits, visit_events, media, history_meta, history_migrations');
        } finally {
          await client.end();
        }
      };
      await dropAll();
      const dir = await mkdtemp(path.join(os.tmpdir(), 'history-bench-pg-'));
      const store = await openHistory({ location: url, media: path.join(dir, 'media') });
      return {
        store,
        async bulkLoad(rows, longestMs) {
          const client = new Client({ connectionString: url });
          await client.connect();
          try {
            await client.query('BEGIN');
            // As on SQLite: the secondary indexes dropped and made again after the rows, from their own
            // text as the database keeps it (the keys stay), with room to sort in memory.
            await client.query("SET LOCAL maintenance_work_mem = '256MB'");
            const indexes = (
              await client.query<{ name: string; sql: string }>(
                "SELECT indexname AS name, indexdef AS sql FROM pg_indexes WHERE schemaname = current_schema() AND tablename IN ('visits', 'visit_events') AND indexname NOT IN (SELECT conname FROM pg_constraint)",
              )
            ).rows;
            for (const index of indexes) await client.query(`DROP INDEX ${client.escapeIdentifier(index.name)}`);
            let visits: SqlValue[][] = [];
            let events: SqlValue[][] = [];
            const flush = async (): Promise<void> => {
              if (visits.length > 0) await client.query(multiInsert('visits', [...VISIT_COLUMN_NAMES], visits.length), visits.flat());
              if (events.length > 0) await client.query(multiInsert('visit_events', ['visit_id', 'event', 'event_at', 'score', 'reason', 'face_id'], events.length), events.flat());
              visits = [];
              events = [];
            };
            for (const row of rows) {
              visits.push(row.visit);
              events.push(...row.events);
              if (visits.length >= 1000) await flush();
            }
            await flush();
            for (const index of indexes) await client.query(index.sql);
            await client.query(RAISE_LONGEST_SQL, [longestMs]);
            await client.query('COMMIT');
            await client.query('ANALYZE');
          } finally {
            await client.end();
          }
        },
        async cleanup() {
          await store.close();
          await dropAll();
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
  };
}

/** `INSERT INTO table (cols) VALUES ($1, …), (…)` for `count` rows. */
function multiInsert(table: string, columns: string[], count: number): string {
  const rows = Array.from({ length: count }, (_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(', ')})`);
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${rows.join(', ')}`;
}

/** A small, seeded generator, so every run and engine loads the same visits. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The bulk-loaded visits, oldest first, in VISIT_COLUMN_NAMES order. */
function* visitRows(count: number): Generator<{ visit: SqlValue[]; events: SqlValue[][] }> {
  const next = random(44);
  const step = (DAYS * DAY) / count;
  for (let i = 0; i < count; i++) {
    const arrived = Math.round(START + i * step);
    const durationMs = Math.round(5_000 + next() * (LONGEST_MS - 5_000));
    const left = arrived + durationMs;
    const draw = next();
    const kind = draw < 0.6 ? 'person' : draw < 0.85 ? 'visitor' : 'stranger';
    const person = kind === 'person' ? Math.floor(next() * PEOPLE) : -1;
    const stream = Math.floor(next() * STREAMS);
    const id = `bulk-${String(i).padStart(8, '0')}`;
    const values: Record<string, SqlValue> = {
      visit_id: id,
      kind,
      person_id: person >= 0 ? `p_${person}` : null,
      name: person >= 0 ? `Person ${person}` : null,
      name_key: person >= 0 ? `person ${person}` : null,
      visitor_id: kind === 'visitor' ? `vis_${Math.floor(next() * VISITORS)}` : null,
      face_id: person >= 0 ? `face-${person}` : null,
      label: null,
      room_id: `room-${stream % ROOMS}`,
      stream_id: `cam-${stream}`,
      stream_label: `Camera ${stream}`,
      arrived_at: arrived,
      left_at: left,
      ends_at: left,
      duration_s: durationMs / 1000,
      best_score: kind === 'person' ? 0.8 + next() * 0.2 : null,
      quality: '{"face_px":96,"sharpness":0.5,"brightness":0.5,"greyscale":false,"direction":null}',
      updated_at: left,
    };
    yield {
      visit: VISIT_COLUMN_NAMES.map((c) => values[c] ?? null),
      events: [
        [id, 'arrived', arrived, null, null, null],
        [id, 'left', left, null, 'gone', null],
      ],
    };
  }
}

async function measure(engine: BenchEngine): Promise<Record<string, unknown>> {
  if (ONLY === 'streams') return { streams: await measureStreams(engine) };
  const result = await measureWritesAndSearches(engine);
  return { ...result, streams: await measureStreams(engine) };
}

async function measureWritesAndSearches(engine: BenchEngine): Promise<Record<string, unknown>> {
  const history = await engine.open();
  try {
    let began = performance.now();
    await history.bulkLoad(visitRows(VISITS), LONGEST_MS);
    const bulkSeconds = (performance.now() - began) / 1000;
    console.log(`${engine.name}: ${VISITS} visits loaded in ${bulkSeconds.toFixed(1)} s`);

    const writes: number[] = [];
    const next = random(7);
    const now = START + DAYS * DAY;
    for (let i = 0; i < WRITES; i++) {
      const id = `timed-${i}`;
      const arrived = new Date(now + i * 1000).toISOString();
      const person = Math.floor(next() * PEOPLE);
      began = performance.now();
      await history.store.writeVisit({ visit_id: id, kind: 'person', person_id: `p_${person}`, name: `Person ${person}`, room_id: 'room-0', stream_id: 'cam-0', arrived_at: arrived, best_score: 0.9, events: [{ event: 'arrived', time: arrived }] });
      writes.push(performance.now() - began);
      const left = new Date(now + i * 1000 + 500).toISOString();
      began = performance.now();
      await history.store.writeVisit({ visit_id: id, left_at: left, events: [{ event: 'left', time: left, reason: 'gone' }] });
      writes.push(performance.now() - began);
    }
    console.log(`${engine.name}: writeVisit p50 ${round(quantile(writes, 0.5))} ms, p95 ${round(quantile(writes, 0.95))} ms (${writes.length} writes)`);

    const searches = async (label: string, query: () => HistoryQuery): Promise<{ p50: number; p95: number; n: number; rows_mean: number }> => {
      const times: number[] = [];
      let rows = 0;
      for (let i = 0; i < SEARCHES; i++) {
        const q = query();
        began = performance.now();
        const page = await history.store.search(q);
        times.push(performance.now() - began);
        rows += page.visits.length;
      }
      const out = { p50: round(quantile(times, 0.5)), p95: round(quantile(times, 0.95)), n: times.length, rows_mean: round(rows / SEARCHES) };
      console.log(`${engine.name}: search ${label} p50 ${out.p50} ms, p95 ${out.p95} ms (${out.rows_mean} visits a page on average)`);
      return out;
    };
    const day = (): { since: string; until: string } => {
      const d = START + Math.floor(next() * DAYS) * DAY;
      return { since: new Date(d).toISOString(), until: new Date(d + DAY).toISOString() };
    };
    const byPersonDay = await searches('by person and day', () => ({ person_id: `p_${Math.floor(next() * PEOPLE)}`, ...day(), limit: 50 }));
    const byStreamDay = await searches('by stream and day', () => ({ stream_id: `cam-${Math.floor(next() * STREAMS)}`, ...day(), limit: 50 }));
    const byVisitor = await searches('by visitor', () => ({ visitor_id: `vis_${Math.floor(next() * VISITORS)}`, limit: 50 }));
    return {
      visits: VISITS,
      bulk_load_s: round(bulkSeconds),
      write_ms: { p50: round(quantile(writes, 0.5)), p95: round(quantile(writes, 0.95)), n: writes.length },
      write_goal_met: quantile(writes, 0.95) <= (engine.name === 'sqlite' ? 5 : 20),
      search_person_day_ms: byPersonDay,
      search_goal_met: byPersonDay.p95 <= (engine.name === 'sqlite' ? 50 : 100),
      search_stream_day_ms: byStreamDay,
      search_visitor_ms: byVisitor,
    };
  } finally {
    await history.cleanup();
  }
}

/** A stream's visit loop: the arrival at 0, three matches 1.5 s apart, the leaving at 6 s, the next visit at 8 s. */
const VISIT_LOOP_MS = 8000;
const MATCH_AT_MS = [1500, 3000, 4500];
const LEFT_AT_MS = 6000;
const QUALITY: FaceQuality = { face_px: 140, sharpness: 0.5, brightness: 0.5, greyscale: false, direction: 'front' };

/** 40 streams' visits through the real recorder into one store: rows against writes, event latency off and on. */
async function measureStreams(engine: BenchEngine): Promise<Record<string, unknown>> {
  const history = await engine.open();
  const face = Buffer.alloc(12_000, 1);
  const snapshot = Buffer.alloc(60_000, 2);
  const latencies: Record<'off' | 'on', number[]> = { off: [], on: [] };
  const written = { visits: 0, events: 0, media: 0 };
  let visitNo = 0;
  try {
    const recorder = new HistoryRecorder(history.store, { maxQueue: 100_000 });
    recorder.start();
    /** One window: every stream runs its visit loop, offset so the streams' events spread over the loop. */
    const windowOf = async (mode: 'off' | 'on'): Promise<void> => {
      const emitter = new EventEmitter();
      const detach = mode === 'on' ? recorder.attach(emitter as never) : () => undefined;
      // The listener a host has: takes the event's latency from its due time.
      const listen = (e: WatchEvent & { due: number }): void => void latencies[mode].push(performance.now() - e.due);
      for (const name of ['arrived', 'match', 'left'] as const) emitter.on(name, listen);
      const timers: NodeJS.Timeout[] = [];
      const began = performance.now();
      const end = began + STREAM_WINDOW_S * 1000;
      const at = (due: number, emit: () => void): void => {
        if (due > end) return;
        timers.push(setTimeout(emit, Math.max(0, due - performance.now())));
      };
      for (let s = 0; s < STREAMS_N; s++) {
        const offset = (s * VISIT_LOOP_MS) / STREAMS_N;
        for (let loop = began + offset; loop < end; loop += VISIT_LOOP_MS) {
          const id = `stream-${mode}-${++visitNo}`;
          const person = visitNo % PEOPLE;
          const base = { room: `room-${s % ROOMS}`, stream_id: `cam-${s}`, track: visitNo, location: { left: 10, top: 10, right: 150, bottom: 150 }, quality: QUALITY, latency_ms: 0 };
          const time = (due: number): string => new Date(Date.now() + (due - performance.now())).toISOString();
          at(loop, () => {
            const e = { ...base, event: 'arrived', visit_id: id, kind: 'person', person_id: `p_${person}`, name: `Person ${person}`, face_id: `face-${person}`, label: `Person ${person}`, score: 0.9, arrived_at: time(loop), time: time(loop), face, snapshot, due: loop } as ArrivedEvent & { due: number };
            if (mode === 'on') Object.assign(written, { visits: written.visits + 1, events: written.events + 1, media: written.media + 2 });
            emitter.emit('arrived', e);
          });
          for (const m of MATCH_AT_MS) {
            at(loop + m, () => {
              const e = { ...base, event: 'match', face_id: `face-${person}`, person_id: `p_${person}`, name: `Person ${person}`, label: `Person ${person}`, score: 0.9, time: time(loop + m), face, snapshot, due: loop + m } as MatchEvent & { due: number };
              if (mode === 'on') written.events += 1;
              emitter.emit('match', e);
            });
          }
          at(loop + LEFT_AT_MS, () => {
            const e = { event: 'left', visit_id: id, kind: 'person', person_id: `p_${person}`, name: `Person ${person}`, face_id: `face-${person}`, label: `Person ${person}`, reason: 'not_seen', room: base.room, stream_id: base.stream_id, arrived_at: time(loop), left_at: time(loop + LEFT_AT_MS), duration_s: LEFT_AT_MS / 1000, time: time(loop + LEFT_AT_MS), due: loop + LEFT_AT_MS } as LeftEvent & { due: number };
            if (mode === 'on') written.events += 1;
            emitter.emit('left', e);
          });
        }
      }
      await new Promise((resolve) => setTimeout(resolve, end - performance.now() + 50));
      for (const t of timers) clearTimeout(t);
      detach();
    };
    for (let round = 0; round < STREAM_ROUNDS; round++) {
      // Off first in even rounds and on first in odd ones: neither mode always follows the other's backlog.
      for (const mode of round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) await windowOf(mode);
    }
    await recorder.flush();
    const status = recorder.status();
    await recorder.close();
    // What the store holds, counted against what was written.
    const kept = { visits: 0, events: 0, media: 0 };
    let cursor: string | undefined;
    for (let page = 0; page < 1000; page++) {
      const result = await history.store.search({ limit: 1000, ...(cursor ? { cursor } : {}) });
      for (const v of result.visits) {
        kept.visits += 1;
        kept.events += v.events.length;
        kept.media += (v.face ? 1 : 0) + (v.snapshot ? 1 : 0);
      }
      cursor = result.next;
      if (!cursor) break;
    }
    // A match replaces the face only when sharper: here never, so each visit keeps its arrival's two pictures.
    const off = { p50: round(quantile(latencies.off, 0.5)), p95: round(quantile(latencies.off, 0.95)), n: latencies.off.length };
    const on = { p50: round(quantile(latencies.on, 0.5)), p95: round(quantile(latencies.on, 0.95)), n: latencies.on.length };
    const lost = written.visits - kept.visits + (written.events - kept.events) + (written.media - kept.media);
    console.log(
      `${engine.name}: ${STREAMS_N} streams through the recorder: ${kept.visits}/${written.visits} visits, ${kept.events}/${written.events} events, ${kept.media}/${written.media} media kept, ${status.dropped} dropped; ` +
        `event latency p50/p95 off ${off.p50}/${off.p95} ms, on ${on.p50}/${on.p95} ms (${off.n} and ${on.n} events)`,
    );
    return {
      streams: STREAMS_N,
      written,
      kept,
      dropped: status.dropped,
      none_lost: lost === 0 && status.dropped === 0,
      event_latency_ms: { off, on, p95_ratio: round(on.p95 / off.p95) },
      latency_goal_met: on.p95 <= off.p95 * 1.1,
    };
  } finally {
    await history.cleanup();
  }
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

function positiveInt(value: string | undefined, fallback: number): number {
  const n = value === undefined ? NaN : Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

async function main(): Promise<void> {
  const engines: BenchEngine[] = [];
  if (ENGINE === 'all' || ENGINE === 'sqlite') engines.push(sqliteEngine);
  let server: TestPostgres | undefined;
  if (ENGINE === 'all' || ENGINE === 'postgres') {
    if (PG_URL) engines.push(postgresEngine(PG_URL));
    else if (PG_OWN && postgresSkipReason) console.log(`postgres: skipped, ${postgresSkipReason}`);
    else if (PG_OWN) {
      const began = performance.now();
      server = await startPostgres({ database: 'history_bench', durable: true });
      console.log(`postgres: a server of its own on 127.0.0.1:${server.port}, started in ${((performance.now() - began) / 1000).toFixed(1)} s`);
      engines.push(postgresEngine(server.url));
    } else console.log('postgres: skipped, neither HISTORY_BENCH_PG_URL nor HISTORY_BENCH_PG=1 is set');
  }
  const result: Record<string, unknown> = {};
  try {
    for (const engine of engines) {
      try {
        result[engine.name] = await measure(engine);
      } catch (err) {
        console.log(`${engine.name}: not measured: ${(err as Error).message}`);
        result[engine.name] = { error: (err as Error).message };
      }
    }
  } finally {
    await server?.close();
  }
  console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log(JSON.stringify(result));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

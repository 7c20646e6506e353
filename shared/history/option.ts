import { InputError } from '../errors';
import { DEFAULT_RETENTION } from './sql-store';
import type { HistoryStore, RetentionPolicy } from './types';

/**
 * Where a host keeps its history, as the watcher's `history` option and the command line take it:
 * a store the host opened (it closes it too), or where one is (opened and closed by whoever takes
 * this option), and how long what it keeps stays.
 */
export interface HistoryOption {
  /** A store the host opened and closes. */
  store?: HistoryStore;
  /** Else: a SQLite file, or a PostgreSQL connection URL (postgres://...). */
  location?: string;
  /** The folder of the media (face crops, snapshots, clips); default beside the database. */
  media?: string;
  /** Visits older than this many days go (default 30). */
  maxAgeDays?: number;
  /** The media's total size at most, bytes; the oldest go first (default 2 GB). */
  maxMediaBytes?: number;
}

/** A history option checked: the store given, or where to open one, and the retention. */
export interface ResolvedHistoryOption {
  store?: HistoryStore;
  location?: string;
  media?: string;
  retention: RetentionPolicy;
}

/** Whether `v` is a history store (rather than the settings to open one). */
export function isHistoryStore(v: unknown): v is HistoryStore {
  const s = v as Partial<HistoryStore> | null;
  return !!s && typeof s === 'object' && typeof s.writeVisit === 'function' && typeof s.putMedia === 'function' && typeof s.sweep === 'function';
}

/** Checks a history option (InputError naming the field and its limit); nothing is opened. */
export function resolveHistoryOption(v: HistoryStore | HistoryOption): ResolvedHistoryOption {
  if (isHistoryStore(v)) return { store: v, retention: { ...DEFAULT_RETENTION } };
  if (!v || typeof v !== 'object') throw new InputError('invalid_input', 'history must be a history store or { location, media?, maxAgeDays?, maxMediaBytes? }', { field: 'history', limit: 'a store or its settings' });
  const o = v;
  if (o.store !== undefined && !isHistoryStore(o.store)) throw new InputError('invalid_input', 'history.store must be a history store (openHistory gives one)', { field: 'history', limit: 'a history store' });
  if ((o.store === undefined) === (o.location === undefined)) throw new InputError('invalid_input', 'history needs a store or a location (a SQLite file or a postgres:// URL), one of them', { field: 'history', limit: 'store or location' });
  if (o.location !== undefined && (typeof o.location !== 'string' || o.location.trim() === '')) throw new InputError('invalid_input', 'history.location must be a file path or a postgres:// URL', { field: 'history', limit: 'a non-empty string' });
  if (o.media !== undefined && (typeof o.media !== 'string' || o.media.trim() === '')) throw new InputError('invalid_input', 'history.media must be a folder path', { field: 'historyMedia', limit: 'a non-empty string' });
  return {
    ...(o.store ? { store: o.store } : {}),
    ...(o.location !== undefined ? { location: o.location } : {}),
    ...(o.media !== undefined ? { media: o.media } : {}),
    retention: {
      maxAgeDays: positive(o.maxAgeDays, 'maxAgeDays', DEFAULT_RETENTION.maxAgeDays, 36_500),
      maxMediaBytes: positive(o.maxMediaBytes, 'maxMediaBytes', DEFAULT_RETENTION.maxMediaBytes, Number.MAX_SAFE_INTEGER),
    },
  };
}

/** The store of a checked option, and whether the caller opened it (and so closes it). */
export async function historyStoreOf(o: ResolvedHistoryOption): Promise<{ store: HistoryStore; owned: boolean }> {
  if (o.store) return { store: o.store, owned: false };
  // Loaded only when a history is opened: the engines (node:sqlite, pg) stay out of every other start.
  const { openHistory } = await import('./index');
  return { store: await openHistory({ location: o.location!, ...(o.media !== undefined ? { media: o.media } : {}) }), owned: true };
}

function positive(v: unknown, field: string, fallback: number, max: number): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0 || v > max) throw new InputError('invalid_input', `${field} must be a number > 0 (at most ${max}), got ${JSON.stringify(v)?.slice(0, 40)}`, { field, limit: `> 0, at most ${max}` });
  return v;
}

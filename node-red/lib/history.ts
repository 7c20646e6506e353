import type { NodeAPI } from 'node-red';
import path from 'node:path';
import { InputError } from '../../shared/errors';
import { acquireHistory, type HistoryLease, type HistoryLocation } from '../../shared/history/leases';
import type { HistoryStore } from '../../shared/history/types';
import { PEOPLE_FOLDER } from './people';

/** The history settings of a config node: a PostgreSQL URL (a credential, it may hold a password) and a media folder. */
export interface HistorySettings {
  /** postgres://… for a history several Node-RED instances share; empty: SQLite in the user directory. */
  url?: string;
  /** The media folder (crops, snapshots, clips); with PostgreSQL, a folder every instance reaches. Empty: beside the SQLite file. */
  media?: string;
  /** Days a visit is kept (default 30). */
  maxAgeDays?: number;
  /** The media's total size at most, bytes (default 2 GB); the oldest files go first. */
  maxMediaBytes?: number;
}

/**
 * Where the visits of one config node are kept, as its watch, people and history nodes share them:
 * by default a SQLite file in Node-RED's user directory (`vision-streaming/history-<config id>.sqlite`,
 * its media in a folder beside it), or the PostgreSQL database the config names. Action nodes use
 * the config's own lease (opened on first use, closed with the config node); a watch node takes a
 * lease of its own, so the store stays open until its last write.
 */
export class ConfigHistory {
  readonly #where?: HistoryLocation;
  #lease?: HistoryLease;
  /** How long the watch nodes' recorders keep what they write (unset: the core's defaults). */
  readonly retention: { maxAgeDays?: number; maxMediaBytes?: number };

  /** `userDir`: Node-RED's user directory; `configId` names the SQLite file of this config. */
  constructor(userDir: string | undefined, configId: string, settings: HistorySettings) {
    const url = settings.url?.trim();
    const media = settings.media?.trim() || undefined;
    this.retention = {
      ...(settings.maxAgeDays !== undefined ? { maxAgeDays: settings.maxAgeDays } : {}),
      ...(settings.maxMediaBytes !== undefined ? { maxMediaBytes: settings.maxMediaBytes } : {}),
    };
    if (url) this.#where = { location: url, ...(media ? { media } : {}) };
    else if (userDir) this.#where = { location: path.join(userDir, PEOPLE_FOLDER, `history-${configId.replace(/[^A-Za-z0-9_-]/g, '_')}.sqlite`), ...(media ? { media } : {}), makeFolder: true };
  }

  /** False when Node-RED runs without a user directory and the config names no database. */
  get available(): boolean {
    return this.#where !== undefined;
  }

  /** Which engine the config's history is on, for status texts (never the URL). */
  get engine(): 'sqlite' | 'postgres' | undefined {
    if (!this.#where) return undefined;
    return /^postgres(ql)?:\/\//i.test(this.#where.location) ? 'postgres' : 'sqlite';
  }

  /** A lease of this history for a node that keeps it open while it runs (a watch node); it releases it on close. */
  acquire(): HistoryLease {
    return acquireHistory(this.#location());
  }

  /** The store, on the config's own lease (for search, get, delete and forget). */
  store(): Promise<HistoryStore> {
    this.#lease ??= acquireHistory(this.#location());
    return this.#lease.store();
  }

  /** Gives the config's own lease back (the config node closing). */
  async close(): Promise<void> {
    const lease = this.#lease;
    this.#lease = undefined;
    await lease?.release();
  }

  #location(): HistoryLocation {
    if (!this.#where) throw new InputError('invalid_input', "the history needs Node-RED's user directory (settings.userDir) or a PostgreSQL URL on the vision-streaming-config node", { field: 'history', limit: 'a user directory or a postgres:// URL' });
    return this.#where;
  }
}

/** The history of the config node a flow node names; undefined when it is missing or not this package's config. */
export function configHistory(RED: NodeAPI, serviceId: string | undefined): ConfigHistory | undefined {
  if (!serviceId) return undefined;
  const node = RED.nodes.getNode(serviceId) as { type?: string; history?: ConfigHistory } | null;
  return node?.type === 'vision-streaming-config' ? node.history : undefined;
}

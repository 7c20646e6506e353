import type { NodeAPI } from 'node-red';
import path from 'node:path';
import { InputError } from '../../shared/errors';
import { PeopleDirectory } from '../../shared/people';
import { FilePeopleStore, peopleKey } from '../../shared/people/file-store';
import type { HistoryStore } from '../../shared/history/types';
import type { VisionClient } from '../../shared/vision';
import { VisitorStores } from './visitor-stores';

/** What a collection id may look like to name a file: the services' ids are UUIDs; no path or odd characters. */
const FILE_SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** The folder under Node-RED's user directory that holds the people files. */
export const PEOPLE_FOLDER = 'vision-streaming';

/** The people part of a config node, as the flow nodes and the admin endpoints see it. */
export interface PeopleConfigNode {
  type?: string;
  people?: ConfigPeople;
}

/**
 * The people directories of one config node: one file per collection in Node-RED's user directory
 * (`vision-streaming/people-<collection>.json`, 0600, sealed with a key derived from the config's
 * client secret). One store per collection is shared by the people nodes and the watch nodes of the
 * config, so a change tells the watchers of this process at once; other processes see it on their next read.
 */
export class ConfigPeople {
  readonly #folder?: string;
  readonly #key?: Uint8Array;
  readonly #stores = new Map<string, FilePeopleStore>();
  /** The visitors the watch nodes of this config remember: a visitor named as a person leaves them. */
  readonly visitors = new VisitorStores();

  /** `userDir`: Node-RED's user directory (settings.userDir); without it there are no people files. */
  constructor(userDir: string | undefined, credentials: { clientId?: string; clientSecret?: string }) {
    if (userDir) this.#folder = path.join(userDir, PEOPLE_FOLDER);
    if (credentials.clientSecret) this.#key = peopleKey({ clientId: credentials.clientId, clientSecret: credentials.clientSecret });
  }

  /** False when Node-RED runs without a user directory: the watchers then run without people. */
  get available(): boolean {
    return this.#folder !== undefined;
  }

  /** The store of a collection's people; an InputError naming `field` for an id that cannot name a file, or without a user directory. */
  store(collectionId: unknown, field = 'collectionId'): FilePeopleStore {
    if (typeof collectionId !== 'string' || collectionId.trim() === '') throw new InputError('invalid_input', `${field} is required: the collection whose people to use`, { field, limit: 'a collection id' });
    const id = collectionId.trim();
    if (!FILE_SAFE_ID.test(id)) {
      throw new InputError('invalid_input', `${field} "${id.slice(0, 40)}" is not a collection id (letters, digits, - and _ only)`, { field, limit: 'a collection id such as 0f8fad5b-d9cb-469f-a165-70867728950e' });
    }
    if (!this.#folder) throw new InputError('invalid_input', "people need Node-RED's user directory (settings.userDir), where their files are kept", { field: 'people', limit: 'a Node-RED with a user directory' });
    let store = this.#stores.get(id);
    if (!store) {
      store = new FilePeopleStore(path.join(this.#folder, `people-${id}.json`), { collectionId: id, key: this.#key });
      this.#stores.set(id, store);
    }
    return store;
  }

  /** The directory of a collection's people, on the collection's shared store; with `history`, forget erases their visits from it. */
  directory(collectionId: unknown, vision: VisionClient, field = 'collectionId', history?: HistoryStore): PeopleDirectory {
    const store = this.store(collectionId, field);
    const id = (collectionId as string).trim();
    return new PeopleDirectory({ collectionId: id, store, vision, visitors: this.visitors.forCollection(id), ...(history ? { history } : {}) });
  }
}

/** The people of the config node a flow node names; undefined when it is missing or not this package's config. */
export function configPeople(RED: NodeAPI, serviceId: string | undefined): ConfigPeople | undefined {
  if (!serviceId) return undefined;
  const node = RED.nodes.getNode(serviceId) as PeopleConfigNode | null;
  return node?.type === 'vision-streaming-config' ? node.people : undefined;
}

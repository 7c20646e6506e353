import type { NodeAPI } from 'node-red';
import type { Request, Response } from 'express';
import { acquireConnection } from '../../shared/connection';
import { ClientError, errorBrand, isClientError, InputError, type ClientErrorDetails } from '../../shared/errors';
import { collectionEntries, roomEntries, type PickEntry } from '../../shared/pick';
import { peopleEntries } from '../../shared/pick/people';
import { readPeople } from '../../shared/people';
import { SERVICE_URLS } from '../../shared/service-urls';
import type { ServiceConnection } from './connection';
import type { ConfigPeople } from './people';

/** The three service addresses of a config node. */
export interface ServiceAddresses {
  authUrl: string;
  visionUrl: string;
  sfuUrl: string;
}

/** What a config node offers the editor's pickers: its shared connection and its addresses. */
interface ConfigNodeLike {
  type?: string;
  connection?: ServiceConnection;
  addresses?: ServiceAddresses;
  people?: ConfigPeople;
}

/** The dialog's names of the addresses, for messages. */
const ADDRESS_NAMES = { authUrl: 'the Auth URL', visionUrl: 'the Vision URL' } as const;

/** Node-RED's placeholder for a stored secret the editor did not change. */
const UNCHANGED_SECRET = '__PWRD__';

/**
 * The editor's admin endpoints: the rooms and collections a config node's credential can see, for
 * the pickers beside room and collection fields, and the config dialog's test. They run on the
 * server with the deployed node's credentials; no secret ever goes back to the browser.
 */
export function registerAdminEndpoints(RED: NodeAPI): void {
  const read = RED.auth.needsPermission('vision-streaming-config.read');
  const write = RED.auth.needsPermission('vision-streaming-config.write');
  RED.httpAdmin.get('/vision-streaming/rooms', read, (req, res) => {
    void answer(res, () => listFor(RED, req, async (c, filter) => roomEntries(await c.streaming().listRooms('all'), filter)));
  });
  RED.httpAdmin.get('/vision-streaming/collections', read, (req, res) => {
    void answer(res, () => listFor(RED, req, async (c, filter) => collectionEntries(await c.vision().listCollections(), filter)));
  });
  RED.httpAdmin.get('/vision-streaming/people', read, (req, res) => {
    void answer(res, () => peopleFor(RED, req));
  });
  RED.httpAdmin.post('/vision-streaming/test', write, (req, res) => {
    void answer(res, () => testCredential(RED, req.body as Record<string, unknown> | undefined));
  });
}

/** An endpoint's failure: the HTTP status and a message for the editor. */
class EndpointError extends ClientError {
  static override readonly brand: symbol = errorBrand('EndpointError');

  override readonly name: string = 'EndpointError';
  declare readonly code: 'bad_request' | 'not_deployed';
  declare readonly status: number;

  constructor(code: 'bad_request' | 'not_deployed', message: string, details: ClientErrorDetails & { status: number }) {
    super(code, message, details);
  }
}

/** The people of a collection as the deployed config node keeps them (its file only: no call to the service). */
async function peopleFor(RED: NodeAPI, req: Request): Promise<PickEntry[]> {
  const node = deployedConfig(RED, req);
  if (!node.people) throw new EndpointError('bad_request', 'this service configuration keeps no people', { status: 400 });
  const collection = typeof req.query.collection === 'string' ? req.query.collection.trim() : '';
  if (collection === '') throw new EndpointError('bad_request', 'collection is required: pick or type the collection first', { status: 400 });
  const store = node.people.store(collection, 'collection');
  const doc = readPeople(await store.load(), collection, store);
  return peopleEntries(doc.people, typeof req.query.filter === 'string' ? req.query.filter : undefined);
}

/** The deployed config node a request names in ?config=. */
function deployedConfig(RED: NodeAPI, req: Request): ConfigNodeLike & { connection: ServiceConnection } {
  const id = typeof req.query.config === 'string' ? req.query.config.trim() : '';
  if (id === '') throw new EndpointError('bad_request', 'config is required: the id of a vision-streaming-config node', { status: 400 });
  const node = RED.nodes.getNode(id) as ConfigNodeLike | null;
  if (!node) throw new EndpointError('not_deployed', 'this service configuration is not deployed yet: deploy it first, then pick from the list', { status: 404 });
  if (node.type !== 'vision-streaming-config' || !node.connection) throw new EndpointError('bad_request', `node ${id} is not a vision-streaming-config node`, { status: 400 });
  return node as ConfigNodeLike & { connection: ServiceConnection };
}

async function listFor(RED: NodeAPI, req: Request, list: (c: ServiceConnection, filter: string | undefined) => Promise<PickEntry[]>): Promise<PickEntry[]> {
  const { connection } = deployedConfig(RED, req);
  const filter = typeof req.query.filter === 'string' ? req.query.filter : undefined;
  try {
    const entries = await list(connection, filter);
    connection.report();
    return entries;
  } catch (err) {
    connection.report(err);
    throw err;
  }
}

/** Asks for a token and lists the collections with the settings the dialog shows (a deployed node's stored secret when unchanged). */
async function testCredential(RED: NodeAPI, body: Record<string, unknown> | undefined): Promise<{ ok: true; collections: number; message: string }> {
  const text = (key: string): string | undefined => {
    const value = body?.[key];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  };
  const id = text('id');
  const stored = id ? (RED.nodes.getCredentials(id) as { clientId?: string; clientSecret?: string } | undefined) : undefined;
  const typedSecret = typeof body?.clientSecret === 'string' ? body.clientSecret : '';
  const useStored = typedSecret === UNCHANGED_SECRET || typedSecret === '';
  const clientSecret = useStored ? stored?.clientSecret : typedSecret;
  const typedId = text('clientId');
  const useStoredId = (typedId === UNCHANGED_SECRET || typedId === undefined) && stored?.clientId !== undefined;
  const clientId = useStoredId ? stored?.clientId : typedId === UNCHANGED_SECRET ? undefined : typedId;
  const deployed = id ? (RED.nodes.getNode(id) as ConfigNodeLike | null)?.addresses : undefined;
  if (useStored && !clientSecret) throw new EndpointError('bad_request', 'the stored client secret is not deployed yet: type it again, or deploy first', { status: 400 });
  if (useStored || useStoredId) {
    if (!deployed) throw new EndpointError('bad_request', `the stored client ${useStored ? 'secret' : 'id'} is not deployed yet: type it again, or deploy first`, { status: 400 });
    // The stored secret and client id (both credentials), and the token they get, go only where the
    // deployed node sends them: a dialog must not be able to point them at other addresses.
    const moved = (['authUrl', 'visionUrl'] as const).filter((key) => normalised(text(key) ?? SERVICE_URLS[key]) !== normalised(deployed[key]));
    if (moved.length > 0) {
      const what = moved.map((key) => ADDRESS_NAMES[key]).join(' and ');
      const retype = useStored && useStoredId ? 'client secret again, and the client id,' : useStored ? 'client secret again' : 'client id again';
      throw new EndpointError('bad_request', `${what} ${moved.length === 1 ? 'differs from the deployed one' : 'differ from the deployed ones'}: type the ${retype} to test other addresses`, { status: 400 });
    }
  }
  const lease = acquireConnection({
    authUrl: text('authUrl') ?? SERVICE_URLS.authUrl,
    visionUrl: text('visionUrl') ?? SERVICE_URLS.visionUrl,
    sfuUrl: text('sfuUrl') ?? SERVICE_URLS.sfuUrl,
    clientId,
    clientSecret,
    owner: 'the configuration test',
  });
  try {
    const collections = await lease.vision().listCollections();
    return { ok: true, collections: collections.length, message: `token received; ${collections.length} face collection${collections.length === 1 ? '' : 's'}` };
  } finally {
    await lease.release();
  }
}

function normalised(url: string): string {
  return url.trim().replace(/\/+$/, '');
}

/** Sends the result as JSON, or the failure with a status and a message that carries no secret. */
async function answer(res: Response, work: () => Promise<unknown>): Promise<void> {
  try {
    res.json(await work());
  } catch (err) {
    if (err instanceof EndpointError) {
      res.status(err.status).json({ error: err.message });
    } else if (err instanceof InputError) {
      res.status(400).json({ error: err.message, field: err.field });
    } else if (isClientError(err) && err.code.startsWith('people_store_')) {
      // The people file is of another collection or credentials, or broken: the user's to sort out, not the service's.
      res.status(409).json({ error: err.message, code: err.code });
    } else if (isClientError(err)) {
      // The service (or the token endpoint) refused or failed: the gateway's answer, not the editor's fault.
      const status = 'status' in err && typeof err.status === 'number' && err.status >= 400 && err.status < 500 ? err.status : 502;
      res.status(status).json({ error: err.message, code: err.code });
    } else {
      res.status(500).json({ error: 'internal error' });
    }
  }
}

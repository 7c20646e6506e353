import { createHash } from 'node:crypto';
import { ALL_SCOPES } from '../auth/scopes';
import { TokenSource } from '../auth/token-source';
import { InputError } from '../errors';
import { closeDispatcher, createDispatcher, type Dispatcher } from '../http/dispatcher';
import { StreamingClient } from '../streaming/client';
import { SharedRegistry } from '../util/shared-registry';
import { VisionClient } from '../vision/vision-client';

/** One credential set and the services' addresses, as a host's credential or config node holds them. */
export interface ConnectionSettings {
  authUrl: string;
  visionUrl: string;
  sfuUrl: string;
  clientId?: string;
  clientSecret?: string;
  /** Who holds the credential, for the message when the id or secret is missing (e.g. "the vision-streaming-config node"). */
  owner?: string;
}

/** A connection lent to one user (a node, a trigger, a command); give it back with release(). */
export interface ConnectionLease {
  /** The services' addresses (no credentials in them). */
  readonly settings: Readonly<Pick<ConnectionSettings, 'authUrl' | 'visionUrl' | 'sfuUrl'>>;
  /** The connection pool every request of this credential set goes through. */
  readonly dispatcher: Dispatcher;
  /** The shared token source (built on first use); an InputError names a missing client id or secret. */
  tokens(): TokenSource;
  /** The shared vision client (built on first use). */
  vision(): VisionClient;
  /** The shared streaming client (built on first use). */
  streaming(): StreamingClient;
  /** True while anything of the connection is open. */
  readonly open: boolean;
  /** Gives the lease back; the last user's release closes the clients, the tokens and the pool. Idempotent. */
  release(): Promise<void>;
}

/**
 * What one credential set shares across the process: a pool, a token source with every scope of
 * both services (one token serves every node), and a client per service, each built on first use.
 */
class SharedConnection {
  readonly settings: ConnectionSettings;
  #dispatcher?: Dispatcher;
  #tokens?: TokenSource;
  #vision?: VisionClient;
  #streaming?: StreamingClient;
  #closed = false;

  constructor(settings: ConnectionSettings) {
    this.settings = settings;
  }

  get closed(): boolean {
    return this.#closed;
  }

  get open(): boolean {
    return Boolean(this.#dispatcher || this.#tokens || this.#vision || this.#streaming);
  }

  get dispatcher(): Dispatcher {
    this.#dispatcher ??= createDispatcher();
    return this.#dispatcher;
  }

  tokens(): TokenSource {
    if (!this.#tokens) {
      const { authUrl, clientId, clientSecret, owner = 'the credential' } = this.settings;
      if (!clientId) throw new InputError('invalid_input', `${owner} has no client id`, { field: 'clientId', limit: 'non-empty string' });
      if (!clientSecret) throw new InputError('invalid_input', `${owner} has no client secret`, { field: 'clientSecret', limit: 'non-empty string' });
      this.#tokens = new TokenSource({ authUrl, clientId, clientSecret, scopes: ALL_SCOPES, dispatcher: this.dispatcher });
    }
    return this.#tokens;
  }

  vision(): VisionClient {
    this.#vision ??= new VisionClient({ visionUrl: this.settings.visionUrl, tokens: this.tokens(), dispatcher: this.dispatcher });
    return this.#vision;
  }

  streaming(): StreamingClient {
    this.#streaming ??= new StreamingClient({ sfuUrl: this.settings.sfuUrl, tokens: this.tokens(), dispatcher: this.dispatcher });
    return this.#streaming;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const [vision, streaming, tokens, dispatcher] = [this.#vision, this.#streaming, this.#tokens, this.#dispatcher];
    this.#vision = this.#streaming = this.#tokens = this.#dispatcher = undefined;
    await Promise.allSettled([vision?.close(), streaming?.close()]);
    await tokens?.close().catch(() => undefined);
    if (dispatcher) await closeDispatcher(dispatcher);
  }
}

const connections = new SharedRegistry<SharedConnection>(
  (connection) => connection.close(),
  (connection) => !connection.closed,
);

/**
 * Lends the connection of a credential set: every user with the same addresses, client id and
 * secret shares one pool, one cached token and one request for it in flight, as Node-RED's MQTT
 * broker node shares one connection; the last release closes it and a later acquire builds it
 * again. The key holds a digest of the secret, never the secret itself.
 */
export function acquireConnection(settings: ConnectionSettings): ConnectionLease {
  const key = JSON.stringify([
    settings.authUrl,
    settings.visionUrl,
    settings.sfuUrl,
    settings.clientId ?? '',
    createHash('sha256').update(settings.clientSecret ?? '').digest('hex'),
    settings.owner ?? '',
  ]);
  const lease = connections.acquire(key, () => new SharedConnection({ ...settings }));
  const shared = lease.value;
  let released = false;
  const live = (): SharedConnection => {
    if (released) throw new InputError('invalid_input', 'this connection lease was released', { field: 'connection', limit: 'a lease not yet released' });
    return shared;
  };
  return {
    settings: { authUrl: settings.authUrl, visionUrl: settings.visionUrl, sfuUrl: settings.sfuUrl },
    get dispatcher() {
      return live().dispatcher;
    },
    tokens: () => live().tokens(),
    vision: () => live().vision(),
    streaming: () => live().streaming(),
    get open() {
      return !released && shared.open;
    },
    release: () => {
      released = true;
      return lease.release();
    },
  };
}

import { EnvHttpProxyAgent, type Dispatcher } from 'undici';
import { InputError, isClientError } from '../../shared/errors';
import { ALL_SCOPES, TokenSource } from '../../shared/auth';
import { VisionClient } from '../../shared/vision';
import { StreamingClient } from '../../shared/streaming';

/** What a connection needs: the config node's settings and credentials. */
export interface ConnectionSettings {
  authUrl: string;
  visionUrl: string;
  sfuUrl: string;
  clientId?: string;
  clientSecret?: string;
}

/** The part of a Node-RED node a connection talks to. */
export interface ConnectionUser {
  readonly id: string;
  status(status: { fill?: 'red' | 'green' | 'yellow' | 'blue' | 'grey'; shape?: 'ring' | 'dot'; text?: string } | Record<string, never>): void;
}

/**
 * The resources a config node shares with the nodes that use it: one token source, one
 * dispatcher, and a vision and a streaming client built on them on first use. Users register
 * and deregister (as with the core MQTT broker node); the last one to leave closes everything,
 * and a later registration builds it again.
 */
export class ServiceConnection {
  readonly #settings: ConnectionSettings;
  readonly #users = new Map<string, ConnectionUser>();
  #dispatcher?: Dispatcher;
  #tokens?: TokenSource;
  #vision?: VisionClient;
  #streaming?: StreamingClient;
  #authFailed = false;
  #closing: Promise<void> = Promise.resolve();

  constructor(settings: ConnectionSettings) {
    this.#settings = settings;
  }

  /** Number of nodes registered. */
  get userCount(): number {
    return this.#users.size;
  }

  /** The streaming service's base address (the face watch node stays on loopback for a local one). */
  get sfuUrl(): string {
    return this.#settings.sfuUrl;
  }

  /** The dispatcher shared by this config's clients (built on first use). */
  dispatcher(): Dispatcher {
    return this.#sharedDispatcher();
  }

  /** True while a client, token source or dispatcher is open. */
  get open(): boolean {
    return Boolean(this.#vision || this.#streaming || this.#tokens || this.#dispatcher);
  }

  /** Adds a node to the users of this connection. */
  register(user: ConnectionUser): void {
    this.#users.set(user.id, user);
    if (this.#authFailed) user.status(AUTH_FAILED);
  }

  /** Removes a node; the last one out closes the shared resources. */
  deregister(user: ConnectionUser): Promise<void> {
    this.#users.delete(user.id);
    return this.#users.size === 0 ? this.close() : this.#closing;
  }

  /** The shared vision client (built on first use). Throws an InputError when credentials are missing. */
  vision(): VisionClient {
    if (!this.#vision) {
      const options = { visionUrl: this.#settings.visionUrl, tokens: this.#tokenSource(), dispatcher: this.#sharedDispatcher() };
      this.#vision = new VisionClient(options);
    }
    return this.#vision;
  }

  /** The shared streaming client (built on first use). */
  streaming(): StreamingClient {
    if (!this.#streaming) {
      const options = { sfuUrl: this.#settings.sfuUrl, tokens: this.#tokenSource(), dispatcher: this.#sharedDispatcher() };
      this.#streaming = new StreamingClient(options);
    }
    return this.#streaming;
  }

  /**
   * Tells the connection how a call ended. A refused client id or secret concerns every node of
   * this config, so it is shown on all of them until a call succeeds again.
   */
  report(err?: unknown): void {
    if (err === undefined) {
      if (this.#authFailed) {
        this.#authFailed = false;
        for (const user of this.#users.values()) user.status({});
      }
      return;
    }
    if (isAuthFailure(err) && !this.#authFailed) {
      this.#authFailed = true;
      for (const user of this.#users.values()) user.status(AUTH_FAILED);
    }
  }

  /** Closes the clients, the token source and the dispatcher. Idempotent; the connection can be used again later. */
  close(): Promise<void> {
    const vision = this.#vision;
    const streaming = this.#streaming;
    const tokens = this.#tokens;
    const dispatcher = this.#dispatcher;
    this.#vision = this.#streaming = this.#tokens = this.#dispatcher = undefined;
    const previous = this.#closing;
    this.#closing = (async () => {
      await previous;
      await Promise.allSettled([vision?.close(), streaming?.close()]);
      await tokens?.close().catch(() => undefined);
      if (dispatcher) await closeDispatcher(dispatcher);
    })();
    return this.#closing;
  }

  #tokenSource(): TokenSource {
    if (!this.#tokens) {
      const { clientId, clientSecret, authUrl } = this.#settings;
      if (!clientId) throw new InputError('clientId', 'the vision-streaming-config node has no client id', 'non-empty string');
      if (!clientSecret) throw new InputError('clientSecret', 'the vision-streaming-config node has no client secret', 'non-empty string');
      // Every scope of both services, so one token serves every node of the config.
      this.#tokens = new TokenSource({ authUrl, clientId, clientSecret, scopes: ALL_SCOPES, dispatcher: this.#sharedDispatcher() });
    }
    return this.#tokens;
  }

  #sharedDispatcher(): Dispatcher {
    // Honours HTTP(S)_PROXY and NO_PROXY like the core's default; a plain agent when none is set.
    this.#dispatcher ??= new EnvHttpProxyAgent(AGENT_OPTIONS);
    return this.#dispatcher;
  }
}

/** Node-RED waits 15 s for a node to close; requests still running after this long are cut. */
const CLOSE_GRACE_MS = 2_000;

/** Closes gracefully, or destroys (ending the sockets) when requests outlive the grace period. */
async function closeDispatcher(dispatcher: Dispatcher): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), CLOSE_GRACE_MS);
  });
  const outcome = await Promise.race([dispatcher.close().then(() => 'closed' as const, () => 'late' as const), late]);
  clearTimeout(timer);
  if (outcome === 'late') await dispatcher.destroy().catch(() => undefined);
}

const AGENT_OPTIONS = { keepAliveTimeout: 30_000, keepAliveMaxTimeout: 60_000, connect: { timeout: 10_000 } };

const AUTH_FAILED = { fill: 'red', shape: 'ring', text: 'credentials refused' } as const;

/** True when the token endpoint refused the client id or secret. */
export function isAuthFailure(err: unknown): boolean {
  return isClientError(err) && 'operation' in err && err.operation === 'getToken' && err.retryable === false && (err.status === 401 || err.status === 403 || err.status === 400);
}

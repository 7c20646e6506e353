import { acquireConnection, type ConnectionLease, type ConnectionSettings as CoreConnectionSettings } from '../../shared/connection';
import { isClientError } from '../../shared/errors';
import { isLocalServiceUrl } from '../../shared/image/address-guard';
import type { Dispatcher } from '../../shared/http/dispatcher';
import type { StreamingClient } from '../../shared/streaming';
import type { VisionClient } from '../../shared/vision';

/** What a connection needs: the config node's addresses and credentials. */
export type ConnectionSettings = Omit<CoreConnectionSettings, 'owner'>;

/** The part of a Node-RED node a connection talks to. */
export interface ConnectionUser {
  readonly id: string;
  status(status: { fill?: 'red' | 'green' | 'yellow' | 'blue' | 'grey'; shape?: 'ring' | 'dot'; text?: string } | Record<string, never>): void;
}

/**
 * What a config node shares with the nodes that use it: the core's connection lease for its
 * credential (one pool, one token source, a vision and a streaming client), taken on first use.
 * Users register and deregister (as with the core MQTT broker node); the last one to leave gives
 * the lease back, and a later use takes it again.
 */
export class ServiceConnection {
  readonly #settings: ConnectionSettings;
  readonly #users = new Map<string, ConnectionUser>();
  #lease?: ConnectionLease;
  #authFailed = false;
  #closing: Promise<void> = Promise.resolve();

  constructor(settings: ConnectionSettings) {
    this.#settings = settings;
  }

  /** Number of nodes registered. */
  get userCount(): number {
    return this.#users.size;
  }

  /** The dispatcher shared by this config's clients (built on first use). */
  dispatcher(): Dispatcher {
    return this.#connection().dispatcher;
  }

  /** How nodes of this config download image URLs (boxes drawn on a URL image): through its pool, private addresses only when its service is on this machine. */
  imageDownloads(): { dispatcher: Dispatcher; allowPrivateImageUrls?: boolean } {
    return { dispatcher: this.dispatcher(), allowPrivateImageUrls: isLocalServiceUrl(this.#settings.visionUrl) || undefined };
  }

  /** True while this config holds a connection lease with anything open. */
  get open(): boolean {
    return this.#lease?.open ?? false;
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
    return this.#connection().vision();
  }

  /** The shared streaming client (built on first use). */
  streaming(): StreamingClient {
    return this.#connection().streaming();
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

  /** Gives the lease back (the last holder closes it). Idempotent; the connection can be used again later. */
  close(): Promise<void> {
    const lease = this.#lease;
    this.#lease = undefined;
    const previous = this.#closing;
    this.#closing = previous.then(() => lease?.release());
    return this.#closing;
  }

  #connection(): ConnectionLease {
    this.#lease ??= acquireConnection({ ...this.#settings, owner: 'the vision-streaming-config node' });
    return this.#lease;
  }
}

const AUTH_FAILED = { fill: 'red', shape: 'ring', text: 'credentials refused' } as const;

/** True when the token endpoint refused the client id or secret. */
export function isAuthFailure(err: unknown): boolean {
  return isClientError(err) && 'operation' in err && err.operation === 'getToken' && err.retryable === false && (err.status === 401 || err.status === 403 || err.status === 400);
}

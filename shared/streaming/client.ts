import type { Dispatcher } from 'undici';
import { STREAMING_SCOPES } from '../auth/scopes';
import { clientTokens, type CallerTokenSource, type ClientCredentials, type HostTransport } from '../auth/client-tokens';
import type { TokenSource } from '../auth/token-source';
import { InputError } from '../errors';
import { processIo } from '../http/http-client';
import type { RetryPolicy } from '../http/retry';
import { StreamingApi, type StreamingApiParts } from './streaming-api';

export type { StreamingCallOptions } from './streaming-api';

interface StreamingCommonOptions {
  /** Base address of the streaming REST API, e.g. https://sfu.api.ricoh (a trailing /v1 is accepted). */
  sfuUrl: string;
  /** undici dispatcher for API calls and tokens (default: defaultDispatcher()); never closed by the client. */
  dispatcher?: Dispatcher;
  retry?: Partial<RetryPolicy>;
  /** Per-attempt timeout (default 30 s). */
  timeoutMs?: number;
}

/** Builds its own token source (streaming scope) from client credentials. */
export interface StreamingCredentialsOptions extends StreamingCommonOptions, ClientCredentials {}

/** Uses a token provider owned by the caller; its tokens must carry the streaming scope. */
export interface StreamingTokenSourceOptions extends StreamingCommonOptions, CallerTokenSource {}

/** Sends through a host's transport; without `tokens` the transport authorises requests. */
export interface StreamingTransportOptions extends StreamingCommonOptions, HostTransport {}

/** Credentials, a token provider, or a host transport. */
export type StreamingClientOptions = StreamingCredentialsOptions | StreamingTokenSourceOptions | StreamingTransportOptions;

/** The Live Streaming API over undici (or a host's transport), with its own token source when given credentials. */
export class StreamingClient extends StreamingApi {
  readonly #ownedTokens?: TokenSource;
  #closedAll?: Promise<void>;

  constructor(options: StreamingClientOptions) {
    const { parts, owned } = wire(options);
    try {
      super(parts);
    } catch (err) {
      void owned?.close();
      throw err;
    }
    this.#ownedTokens = owned;
  }

  /** Stops retries, refuses further calls, and closes the token source when this client built it. Idempotent. */
  override close(): Promise<void> {
    this.#closedAll ??= (async () => {
      await super.close();
      await this.#ownedTokens?.close();
    })();
    return this.#closedAll;
  }
}

function wire(options: StreamingClientOptions): { parts: StreamingApiParts; owned?: TokenSource } {
  if (!options || typeof options !== 'object') throw new InputError('invalid_input', 'StreamingClient needs options', { field: 'options', limit: 'object' });
  const { tokens, owned, transport } = clientTokens(options, STREAMING_SCOPES);
  return {
    owned,
    parts: {
      sfuUrl: options.sfuUrl,
      tokens,
      ...processIo(transport, options.dispatcher),
      retry: options.retry,
      timeoutMs: options.timeoutMs,
    },
  };
}

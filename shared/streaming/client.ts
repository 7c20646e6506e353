import { STREAMING_SCOPES } from '../auth/scopes';
import { clientTokens, type AuthorisedBy, type ServiceClientOptions } from '../auth/client-tokens';
import { InputError } from '../errors';
import { processIo } from '../http/http-client';
import { StreamingApi, type StreamingApiParts } from './streaming-api';

export type { StreamingCallOptions } from './streaming-api';

interface StreamingCommonOptions extends ServiceClientOptions {
  /** Base address of the streaming REST API, e.g. https://sfu.api.ricoh (a trailing /v1 is accepted). */
  sfuUrl: string;
  /** Per-attempt timeout (default 30 s). */
  timeoutMs?: number;
}

/** Credentials (the client builds and closes its own token source), a caller's token provider (never closed by the client), or a host transport (which may authorise requests itself). */
export type StreamingClientOptions = AuthorisedBy<StreamingCommonOptions>;

/** The Live Streaming API over undici (or a host's transport), with its own token source when given credentials. */
export class StreamingClient extends StreamingApi {
  constructor(options: StreamingClientOptions) {
    super(parts(options));
  }
}

function parts(options: StreamingClientOptions): StreamingApiParts {
  if (!options || typeof options !== 'object') throw new InputError('invalid_input', 'StreamingClient needs options', { field: 'options', limit: 'object' });
  const { tokens, owned, transport } = clientTokens(options, STREAMING_SCOPES);
  return {
    sfuUrl: options.sfuUrl,
    tokens,
    ...processIo(transport, options.dispatcher),
    retry: options.retry,
    timeoutMs: options.timeoutMs,
    ownedTokens: owned,
  };
}

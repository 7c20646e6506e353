import { STREAMING_SCOPES } from '../auth/scopes';
import { serviceCoreParts, type AuthorisedBy, type ServiceClientOptions } from '../auth/client-tokens';
import { StreamingApi } from './streaming-api';

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
    super({ ...serviceCoreParts('StreamingClient', options, STREAMING_SCOPES), sfuUrl: options.sfuUrl });
  }
}

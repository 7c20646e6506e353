import type { Dispatcher } from 'undici';
import { VISION_SCOPES } from '../auth/scopes';
import { clientTokens, type CallerTokenSource, type ClientCredentials, type HostTransport } from '../auth/client-tokens';
import type { TokenSource } from '../auth/token-source';
import { InputError } from '../errors';
import { processIo } from '../http/http-client';
import type { RetryPolicy } from '../http/retry';
import { downloadImage } from '../image/download';
import { isLocalServiceUrl } from '../image/address-guard';
import { IMAGE_DOWNLOAD_TIMEOUT_MS } from '../image/limits';
import { VisionApi, type VisionApiParts } from './vision-api';

/** Settings shared by every way of building a VisionClient. */
interface VisionCommonOptions {
  /** Base address of the vision service, e.g. https://ips.api.ricoh (a trailing /v1 is accepted). */
  visionUrl: string;
  /** undici dispatcher for API calls, tokens and image downloads (default: defaultDispatcher()); never closed by the client. */
  dispatcher?: Dispatcher;
  retry?: Partial<RetryPolicy>;
  /** Per-attempt timeout (default 60 s). */
  timeoutMs?: number;
  /** Limit for downloading a URL image of a mixed comparison (default 15 s). */
  downloadTimeoutMs?: number;
  /**
   * Let this client download image URLs on loopback, link-local and private addresses (default: only
   * when visionUrl is itself on this machine, or VS_ALLOW_PRIVATE_IMAGE_URLS is set).
   */
  allowPrivateImageUrls?: boolean;
}

/** Builds its own token source from client credentials. */
export interface VisionCredentialsOptions extends VisionCommonOptions, ClientCredentials {}

/** Uses a token provider owned by the caller (it is not closed by close()). */
export interface VisionTokenSourceOptions extends VisionCommonOptions, CallerTokenSource {}

/** Sends through a host's transport; without `tokens` the transport authorises requests. */
export interface VisionTransportOptions extends VisionCommonOptions, HostTransport {}

/** Credentials, a token provider, or a host transport. */
export type VisionClientOptions = VisionCredentialsOptions | VisionTokenSourceOptions | VisionTransportOptions;

/** The Visual Recognition API over undici (or a host's transport), with its own token source when given credentials. */
export class VisionClient extends VisionApi {
  readonly #ownedTokens?: TokenSource;
  #closedAll?: Promise<void>;

  constructor(options: VisionClientOptions) {
    const { parts, owned } = wire(options);
    try {
      super(parts);
    } catch (err) {
      void owned?.close();
      throw err;
    }
    this.#ownedTokens = owned;
  }

  /** Stops retries, refuses further calls, and closes the token source when this client built it. Safe to call twice. */
  override close(): Promise<void> {
    this.#closedAll ??= (async () => {
      await super.close();
      await this.#ownedTokens?.close();
    })();
    return this.#closedAll;
  }
}

function wire(options: VisionClientOptions): { parts: VisionApiParts; owned?: TokenSource } {
  if (!options || typeof options !== 'object') throw new InputError('invalid_input', 'VisionClient needs options', { field: 'options', limit: 'object' });
  const { tokens, owned, transport } = clientTokens(options, VISION_SCOPES);
  const dispatcher = options.dispatcher;
  const downloadTimeoutMs = options.downloadTimeoutMs ?? IMAGE_DOWNLOAD_TIMEOUT_MS;
  const allowPrivateAddresses = options.allowPrivateImageUrls ?? (isLocalServiceUrl(options.visionUrl) || undefined);
  return {
    owned,
    parts: {
      visionUrl: options.visionUrl,
      tokens,
      ...processIo(transport, dispatcher),
      download: (url, field, maxBytes, signal, operation) => downloadImage(url, field, { maxBytes, timeoutMs: downloadTimeoutMs }, { dispatcher, signal, operation, allowPrivateAddresses }),
      retry: options.retry,
      timeoutMs: options.timeoutMs,
    },
  };
}

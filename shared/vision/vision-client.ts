import { VISION_SCOPES } from '../auth/scopes';
import { serviceCoreParts, type AuthorisedBy, type ServiceClientOptions } from '../auth/client-tokens';
import { downloadImage } from '../image/download';
import { isLocalServiceUrl } from '../image/address-guard';
import { IMAGE_DOWNLOAD_TIMEOUT_MS } from '../image/limits';
import { VisionApi, type VisionApiParts } from './vision-api';

/** Settings shared by every way of building a VisionClient. */
interface VisionCommonOptions extends ServiceClientOptions {
  /** Base address of the vision service, e.g. https://ips.api.ricoh (a trailing /v1 is accepted). */
  visionUrl: string;
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

/** Credentials (the client builds and closes its own token source), a caller's token provider (never closed by the client), or a host transport (which may authorise requests itself). */
export type VisionClientOptions = AuthorisedBy<VisionCommonOptions>;

/** The Visual Recognition API over undici (or a host's transport), with its own token source when given credentials. */
export class VisionClient extends VisionApi {
  constructor(options: VisionClientOptions) {
    super(parts(options));
  }
}

function parts(options: VisionClientOptions): VisionApiParts {
  const core = serviceCoreParts('VisionClient', options, VISION_SCOPES);
  const dispatcher = options.dispatcher;
  const downloadTimeoutMs = options.downloadTimeoutMs ?? IMAGE_DOWNLOAD_TIMEOUT_MS;
  const allowPrivateAddresses = options.allowPrivateImageUrls ?? (isLocalServiceUrl(options.visionUrl) || undefined);
  return {
    ...core,
    visionUrl: options.visionUrl,
    download: (url, field, maxBytes, signal, operation) => downloadImage(url, field, { maxBytes, timeoutMs: downloadTimeoutMs }, { dispatcher, signal, operation, allowPrivateAddresses }),
  };
}

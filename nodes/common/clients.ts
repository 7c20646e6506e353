import type { IAllExecuteFunctions } from 'n8n-workflow';
import { acquireTokenSource, ALL_SCOPES } from '../../shared/auth';
import { StreamingClient } from '../../shared/streaming';
import { VisionClient } from '../../shared/vision';
import { toNodeError } from './errors';
import { CREDENTIAL_TYPE, n8nTransport, type TransportState } from './transport';
import { DEFAULT_URLS } from '../../credentials/VisionStreamingApi.credentials';

/** A core client whose requests go through n8n's credential handling, and what its transport saw. */
export interface HostedClient<C> {
  client: C;
  state: TransportState;
}

/** A VisionClient for one node run; the caller closes it. */
export async function visionClient(ctx: IAllExecuteFunctions): Promise<HostedClient<VisionClient>> {
  const credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
  const state: TransportState = {};
  const visionUrl = text(credentials.visionUrl) ?? DEFAULT_URLS.visionUrl;
  return { client: new VisionClient({ visionUrl, transport: n8nTransport(ctx, state) }), state };
}

/** A StreamingClient for one node run; the caller closes it. */
export async function streamingClient(ctx: IAllExecuteFunctions): Promise<HostedClient<StreamingClient>> {
  const credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
  const state: TransportState = {};
  const sfuUrl = text(credentials.sfuUrl) ?? DEFAULT_URLS.sfuUrl;
  return { client: new StreamingClient({ sfuUrl, transport: n8nTransport(ctx, state) }), state };
}

/** The execution's cancel signal, when the context has one. */
export function cancelSignal(ctx: IAllExecuteFunctions): AbortSignal | undefined {
  const get = (ctx as { getExecutionCancelSignal?: () => AbortSignal | undefined }).getExecutionCancelSignal;
  return typeof get === 'function' ? get.call(ctx) : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** Both clients over one token source of the process, and the release of it. */
export interface SelfAuthorisedClients {
  vision: VisionClient;
  streaming: StreamingClient;
  /** Closes both clients, then gives the token source back. Idempotent. */
  close(): Promise<void>;
}

/**
 * Clients for long-lived work outside an execution (the trigger): n8n evaluates a credential's
 * expressions only inside an execution's expression scope, so requests made later by a running
 * trigger cannot go through `httpRequestWithAuthentication`. They use the core's token source
 * instead, one per credential set in the process: renewed ahead of expiry and after a 401, one
 * request in flight. The credential is read once, at activation.
 */
export async function selfAuthorisedClients(ctx: IAllExecuteFunctions): Promise<SelfAuthorisedClients> {
  const credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
  const lease = acquireTokenSource({
    authUrl: text(credentials.authUrl) ?? DEFAULT_URLS.authUrl,
    clientId: String(credentials.clientId ?? ''),
    clientSecret: String(credentials.clientSecret ?? ''),
    scopes: ALL_SCOPES,
  });
  let vision: VisionClient | undefined;
  let streaming: StreamingClient | undefined;
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      await Promise.all([vision?.close(), streaming?.close()]);
      await lease.release();
    })();
    return closed;
  };
  try {
    vision = new VisionClient({ visionUrl: text(credentials.visionUrl) ?? DEFAULT_URLS.visionUrl, tokens: lease.tokens });
    streaming = new StreamingClient({ sfuUrl: text(credentials.sfuUrl) ?? DEFAULT_URLS.sfuUrl, tokens: lease.tokens });
  } catch (err) {
    await close();
    throw toNodeError(ctx.getNode(), err, 0, { visionUrl: 'Vision URL (credential)', sfuUrl: 'Streaming URL (credential)' });
  }
  return { vision, streaming, close };
}

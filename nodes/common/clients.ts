import type { IAllExecuteFunctions } from 'n8n-workflow';
import { acquireConnection } from '../../shared/connection';
import { StreamingClient } from '../../shared/streaming';
import { VisionClient } from '../../shared/vision';
import { toNodeError } from './errors';
import { CREDENTIAL_TYPE, n8nTransport, type TransportState } from './transport';
import { SERVICE_URLS } from '../../shared/service-urls';

/** A core client whose requests go through n8n's credential handling, and what its transport saw. */
export interface HostedClient<C> {
  client: C;
  state: TransportState;
}

/** A VisionClient for one node run; the caller closes it. */
export async function visionClient(ctx: IAllExecuteFunctions): Promise<HostedClient<VisionClient>> {
  const credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
  const state: TransportState = {};
  const visionUrl = text(credentials.visionUrl) ?? SERVICE_URLS.visionUrl;
  return { client: new VisionClient({ visionUrl, transport: n8nTransport(ctx, state) }), state };
}

/** A StreamingClient for one node run; the caller closes it. */
export async function streamingClient(ctx: IAllExecuteFunctions): Promise<HostedClient<StreamingClient>> {
  const credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
  const state: TransportState = {};
  const sfuUrl = text(credentials.sfuUrl) ?? SERVICE_URLS.sfuUrl;
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

/** Both clients over the process's connection for the credential, and the release of it. */
export interface SelfAuthorisedClients {
  vision: VisionClient;
  streaming: StreamingClient;
  /** Gives the connection back (the last holder closes it). Idempotent. */
  close(): Promise<void>;
}

/**
 * Clients for long-lived work outside an execution (the trigger): n8n evaluates a credential's
 * expressions only inside an execution's expression scope, so requests made later by a running
 * trigger cannot go through `httpRequestWithAuthentication`. They use the core's connection lease
 * instead, one per credential set in the process (as Node-RED's config node does): one pool, one
 * token renewed ahead of expiry and after a 401, one request in flight. The credential is read
 * once, at activation.
 */
export async function selfAuthorisedClients(ctx: IAllExecuteFunctions): Promise<SelfAuthorisedClients> {
  const credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
  const lease = acquireConnection({
    authUrl: text(credentials.authUrl) ?? SERVICE_URLS.authUrl,
    visionUrl: text(credentials.visionUrl) ?? SERVICE_URLS.visionUrl,
    sfuUrl: text(credentials.sfuUrl) ?? SERVICE_URLS.sfuUrl,
    clientId: text(credentials.clientId),
    clientSecret: typeof credentials.clientSecret === 'string' && credentials.clientSecret !== '' ? credentials.clientSecret : undefined,
  });
  try {
    return { vision: lease.vision(), streaming: lease.streaming(), close: lease.release };
  } catch (err) {
    await lease.release();
    throw toNodeError(ctx.getNode(), err, 0, { visionUrl: 'Vision URL (credential)', sfuUrl: 'Streaming URL (credential)', clientId: 'Client ID (credential)', clientSecret: 'Client Secret (credential)' });
  }
}

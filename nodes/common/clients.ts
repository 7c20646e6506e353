import type { IAllExecuteFunctions } from 'n8n-workflow';
import { StreamingClient } from '../../shared/streaming';
import { VisionClient } from '../../shared/vision';
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

import type { IAllExecuteFunctions } from 'n8n-workflow';
import { StreamingApi } from '../../shared/streaming/streaming-api';
import { VisionApi } from '../../shared/vision/vision-api';
import { hostDownload, hostSleep } from './host-io';
import { credentialTypeOf, n8nTransport, type TransportState } from './transport';
import { SERVICE_URLS } from '../../shared/service-urls';

/** A core client whose requests go through n8n's credential handling, and what its transport saw. */
export interface HostedClient<C> {
  client: C;
  state: TransportState;
}

/**
 * The Visual Recognition operations for one node run, every request through n8n's credential
 * handling, waits and downloads through n8n's helpers; the caller closes it.
 */
export async function visionClient(ctx: IAllExecuteFunctions): Promise<HostedClient<VisionApi>> {
  const credentialType = credentialTypeOf(ctx);
  const credentials = await ctx.getCredentials(credentialType);
  const state: TransportState = {};
  const visionUrl = text(credentials.visionUrl) ?? SERVICE_URLS.visionUrl;
  const client = new VisionApi({ visionUrl, transport: n8nTransport(ctx, state, credentialType), hostTransport: true, sleep: hostSleep, download: hostDownload(ctx, visionUrl) });
  return { client, state };
}

/** The Live Streaming operations for one node run, over n8n's credential handling; the caller closes it. */
export async function streamingClient(ctx: IAllExecuteFunctions): Promise<HostedClient<StreamingApi>> {
  const credentialType = credentialTypeOf(ctx);
  const credentials = await ctx.getCredentials(credentialType);
  const state: TransportState = {};
  const sfuUrl = text(credentials.sfuUrl) ?? SERVICE_URLS.sfuUrl;
  return { client: new StreamingApi({ sfuUrl, transport: n8nTransport(ctx, state, credentialType), hostTransport: true, sleep: hostSleep }), state };
}

/** The execution's cancel signal, when the context has one. */
export function cancelSignal(ctx: IAllExecuteFunctions): AbortSignal | undefined {
  const get = (ctx as { getExecutionCancelSignal?: () => AbortSignal | undefined }).getExecutionCancelSignal;
  return typeof get === 'function' ? get.call(ctx) : undefined;
}

/** A credential field as text, or undefined when blank. */
export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

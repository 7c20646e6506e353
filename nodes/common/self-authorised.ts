import type { IAllExecuteFunctions } from 'n8n-workflow';
import { acquireConnection } from '../../shared/connection';
import type { StreamingClient } from '../../shared/streaming';
import type { VisionClient } from '../../shared/vision';
import { SERVICE_URLS } from '../../shared/service-urls';
import { text } from './clients';
import { toNodeError } from './errors';
import { CREDENTIAL_TYPE } from './transport';

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

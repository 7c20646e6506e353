import { NodeApiError, NodeOperationError, type INode, type JsonObject } from 'n8n-workflow';
import { ApiError, InputError, isClientError } from '../../shared/errors';
import type { TransportState } from './transport';

/** Names of the node parameters behind the core's field names, for messages users can act on. */
export type FieldLabels = Record<string, string>;

/**
 * Turns whatever a core call threw into the error n8n shows: NodeOperationError for input refused
 * before sending (with the field and its limit), NodeApiError for the service's answer (HTTP
 * status and the service's message). Only the core's safe fields are copied: nothing that could
 * hold a header, token or secret.
 */
export function toNodeError(node: INode, err: unknown, itemIndex: number, labels: FieldLabels = {}, state?: TransportState): NodeApiError | NodeOperationError {
  if (err instanceof NodeApiError || err instanceof NodeOperationError) return err;
  // The transport saw preAuthentication fail; the core only saw "no response".
  const cause = state?.tokenFailure ?? err;
  if (cause instanceof InputError) {
    const label = labels[cause.field] ?? cause.field;
    const limit = cause.limit ? ` Allowed: ${cause.limit}.` : '';
    return new NodeOperationError(node, cause.message, { itemIndex, description: `Check the parameter "${label}".${limit}` });
  }
  if (cause instanceof ApiError) {
    const httpCode = cause.status === undefined ? undefined : String(cause.status);
    return new NodeApiError(node, cause.toJSON() as JsonObject, {
      itemIndex,
      message: cause.message,
      description: describe(cause),
      ...(httpCode ? { httpCode } : {}),
    });
  }
  if (isClientError(cause)) {
    return new NodeOperationError(node, cause.message, { itemIndex, description: `Error code: ${cause.code}` });
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return new NodeOperationError(node, message, { itemIndex });
}

function describe(err: ApiError): string {
  if (err.operation === 'getToken') return `The token request failed. Check the client ID, client secret and Auth URL of the credential. Service message: ${err.serviceMessage}`;
  const where = err.status === undefined ? 'no response' : `HTTP ${err.status}`;
  const retry = err.retryable ? ' The request was retried before giving up.' : '';
  return `${where} (${err.code}): ${err.serviceMessage}.${retry}`;
}

/** The safe, JSON-able form of an error for "Continue on fail" output items. */
export function errorJson(err: NodeApiError | NodeOperationError): JsonObject {
  const out: JsonObject = { error: err.message };
  if (err.description) out.description = err.description;
  if (err instanceof NodeApiError && err.httpCode) out.httpCode = err.httpCode;
  return out;
}

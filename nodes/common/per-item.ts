import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';
import { cancelSignal, type HostedClient } from './clients';
import { errorJson, toNodeError, type FieldLabels } from './errors';

/** Operations of an action node by resource, then operation name. */
export type OperationTable<C, R> = Record<string, Record<string, (ctx: IExecuteFunctions, client: C, i: number, signal?: AbortSignal) => Promise<R>>>;

/**
 * Runs the item's resource/operation for every input item the way n8n users expect of an action node:
 * one output item per input item (`toItem` builds it, with its pairedItem), typed errors mapped to NodeApiError or
 * NodeOperationError (`labels` may differ by resource), "Continue On Fail" honoured per item, and the client closed at the end.
 */
export async function runPerItem<C extends { close(): Promise<void> }, R>(
  ctx: IExecuteFunctions,
  hosted: HostedClient<C>,
  operations: OperationTable<C, R>,
  labels: FieldLabels | ((resource: string) => FieldLabels),
  toItem: (result: R, i: number, signal?: AbortSignal) => Promise<INodeExecutionData>,
): Promise<INodeExecutionData[][]> {
  const { client, state } = hosted;
  const out: INodeExecutionData[] = [];
  const signal = cancelSignal(ctx);
  try {
    for (let i = 0; i < ctx.getInputData().length; i++) {
      let resource = '';
      try {
        resource = ctx.getNodeParameter('resource', i) as string;
        const operation = ctx.getNodeParameter('operation', i) as string;
        const run = operations[resource]?.[operation];
        if (!run) throw new NodeOperationError(ctx.getNode(), `The operation "${operation}" of "${resource}" is not supported`, { itemIndex: i });
        out.push(await toItem(await run(ctx, client, i, signal), i, signal));
      } catch (err) {
        const error = toNodeError(ctx.getNode(), err, i, typeof labels === 'function' ? labels(resource) : labels, state);
        state.tokenFailure = undefined;
        if (!ctx.continueOnFail()) throw error;
        out.push({ json: errorJson(error), pairedItem: { item: i } });
      }
    }
  } finally {
    await client.close();
  }
  return [out];
}

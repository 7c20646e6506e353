import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { visionClient } from '../common/clients';
import { runPerItem } from '../common/per-item';
import { imageLabels } from '../common/image-input';
import { IMAGE, SOURCE, TARGET } from './description';
import { OPERATIONS, type OperationResult } from './operations';
import type { OperationTable } from '../common/per-item';
import type { FieldLabels } from '../common/errors';
import type { VisionApi } from '../../shared/vision/vision-api';

/** Parameter names behind the core's field names, for error messages. */
const LABELS = {
  ...imageLabels([IMAGE, SOURCE, TARGET]),
  collectionId: 'Collection ID',
  faceId: 'Face ID',
  maxResults: 'Max Results',
  'source+target': 'Source Image and Target Image',
};

/** Draws an operation's boxes on its image, as a binary property; absent where no image library may be used. */
export type BoxDrawer = (ctx: IExecuteFunctions, i: number, result: OperationResult, signal?: AbortSignal) => Promise<{ property: string; data: import('n8n-workflow').IBinaryData } | undefined>;

/** Resources a node adds to the core's operations (the main package's Person), with the labels of their parameters. */
export interface ExtraResources {
  operations: OperationTable<VisionApi, OperationResult>;
  labels: FieldLabels | ((resource: string) => FieldLabels);
}

/**
 * Runs the item's operation for every input item; with `drawBoxes`, adds the image with its boxes
 * when asked; with `extra`, runs those resources too.
 */
export async function executeVisualRecognition(ctx: IExecuteFunctions, drawBoxes?: BoxDrawer, extra?: ExtraResources): Promise<INodeExecutionData[][]> {
  const items = ctx.getInputData();
  const operations = extra ? { ...OPERATIONS, ...extra.operations } : OPERATIONS;
  const labels = (resource: string) => {
    if (!extra || !(resource in extra.operations)) return LABELS;
    return typeof extra.labels === 'function' ? extra.labels(resource) : extra.labels;
  };
  return runPerItem(ctx, await visionClient(ctx), operations, labels, async (result, i, signal) => {
    // The input's binaries stay on the item, so a later node can still post the photo.
    let binary = items[i].binary;
    if (result.binary && Object.keys(result.binary).length > 0) binary = { ...(binary ?? {}), ...result.binary };
    const boxes = drawBoxes ? await drawBoxes(ctx, i, result, signal) : undefined;
    if (boxes) binary = { ...(binary ?? {}), [boxes.property]: boxes.data };
    return { json: result.json, ...(binary ? { binary } : {}), pairedItem: { item: i } };
  });
}

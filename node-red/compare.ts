import type { NodeAPI } from 'node-red';
import { registerActionNode, type ServiceNodeDef } from './lib/action-node';
import { readImage } from './lib/read-image';

interface CompareDef extends ServiceNodeDef {
  /** Message property of the first image (default payload). */
  source?: string;
  /** Message property of the second image (default target). */
  target?: string;
}

/** Registers `vision-streaming-compare`: similarity of the main face of two images. */
export = function register(RED: NodeAPI): void {
  registerActionNode<CompareDef>(RED, 'vision-streaming-compare', 'comparing', async ({ def, msg, connection, RED: red, signal }) => {
    const source = readImage(red, msg, def.source || 'payload', 'source');
    const target = readImage(red, msg, def.target || 'target', 'target');
    const result = await connection.vision().compareFaces(source, target, { signal });
    return { payload: result, properties: { score: result.score }, status: `score ${result.score.toFixed(2)}` };
  });
};

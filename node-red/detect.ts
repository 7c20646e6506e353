import type { NodeAPI } from 'node-red';
import { InputError } from '../shared/errors';
import { override, registerActionNode, type ServiceNodeDef } from './lib/action-node';
import { imageWithBoxes } from '../shared/picture/boxes';
import { resultBoxes } from '../shared/vision/boxes';
import { readImage } from './lib/read-image';

interface DetectDef extends ServiceNodeDef {
  /** 'faces' (with direction) or 'humans' (heads, also from behind). */
  detect?: string;
  /** Message property holding the image (default payload). */
  image?: string;
  /** Adds msg.image: the input image with the boxes drawn. */
  drawBoxes?: boolean;
}

/** Registers `vision-streaming-detect`: faces or human heads in an image. */
export = function register(RED: NodeAPI): void {
  registerActionNode<DetectDef>(RED, 'vision-streaming-detect', 'detecting', async ({ def, msg, connection, RED: red, signal }) => {
    const what = override(msg, 'detect', def.detect || 'faces');
    const image = readImage(red, msg, def.image, 'image');
    const vision = connection.vision();
    const draw = override(msg, 'drawBoxes', def.drawBoxes === true) === true;
    if (what === 'faces') {
      const faces = await vision.detectFaces(image, { signal });
      const properties: Record<string, unknown> = { count: faces.length };
      if (draw) properties.image = await imageWithBoxes(image, resultBoxes.faces(faces), { signal, ...connection.imageDownloads() });
      return { payload: faces, properties, status: count(faces.length, 'face') };
    }
    if (what === 'humans') {
      const humans = await vision.detectHumans(image, { signal });
      const properties: Record<string, unknown> = { count: humans.length };
      if (draw) properties.image = await imageWithBoxes(image, resultBoxes.humans(humans), { signal, ...connection.imageDownloads() });
      return { payload: humans, properties, status: count(humans.length, 'head') };
    }
    throw new InputError('invalid_input', `msg.detect must be 'faces' or 'humans', got ${JSON.stringify(String(what)).slice(0, 40)}`, { field: 'detect', limit: "'faces' | 'humans'" });
  });
};

function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

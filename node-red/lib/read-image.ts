import type { NodeAPI } from 'node-red';
import type { ImageInput } from '../../shared/image';
import type { FlowMessage } from './action-node';
import { imageFromValue } from './image-input';

/** Reads the image from the message property a node is set to use (default payload). */
export function readImage(RED: NodeAPI, msg: FlowMessage, property: string | undefined, field: string): ImageInput {
  const path = property?.trim() || 'payload';
  return imageFromValue(RED.util.getMessageProperty(msg, path), `msg.${path}`, field);
}

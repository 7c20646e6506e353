import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { boxesImage } from './boxes';
import { executeVisualRecognition } from './execute';
import { VisualRecognitionNode } from './VisualRecognitionNode';

/** Visual Recognition API: detect humans and faces, compare faces, face collections; draws the boxes when asked. */
export class VisualRecognition extends VisualRecognitionNode {
  override async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return executeVisualRecognition(this, boxesImage);
  }
}

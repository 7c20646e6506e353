import type { INodeType, INodeTypeDescription } from 'n8n-workflow';
import { cloudDescription } from '../../../nodes/common/cloud-description';
import { VisualRecognitionNode } from '../../../nodes/VisualRecognition/VisualRecognitionNode';

/** Visual Recognition for n8n Cloud: every operation of the main package's node, without drawing boxes. */
export class VisualRecognition extends VisualRecognitionNode implements INodeType {
  override description: INodeTypeDescription = cloudDescription(new VisualRecognitionNode().description);
}

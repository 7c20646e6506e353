import { NodeConnectionTypes, type INodeType, type INodeTypeDescription } from 'n8n-workflow';
import { withoutBoxOptions } from '../../../nodes/common/cloud-description';
import { CLOUD_CREDENTIAL_TYPE } from '../../../nodes/common/transport';
import { properties } from '../../../nodes/VisualRecognition/description';
import { VisualRecognitionNode } from '../../../nodes/VisualRecognition/VisualRecognitionNode';

/**
 * Visual Recognition for n8n Cloud: every operation of the main package's node (its execute),
 * without drawing boxes. n8n's tooling reads each package's node header from the node file itself,
 * so the header is written here with this package's credential.
 */
export class VisualRecognition extends VisualRecognitionNode implements INodeType {
  override description: INodeTypeDescription = {
    displayName: 'Visual Recognition',
    name: 'visualRecognition',
    icon: { light: 'file:visualRecognition.svg', dark: 'file:visualRecognition.dark.svg' },
    group: ['transform'],
    version: 1,
    defaultVersion: 1,
    subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
    description: 'Detect humans and faces, compare faces, and search face collections',
    defaults: { name: 'Visual Recognition' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: CLOUD_CREDENTIAL_TYPE, required: true }],
    properties: withoutBoxOptions(properties),
  };
}

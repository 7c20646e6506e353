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
    // 2: rooms and collections picked from a list (resource locators); 1 keeps plain text IDs.
    version: [1, 2],
    defaultVersion: 2,
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

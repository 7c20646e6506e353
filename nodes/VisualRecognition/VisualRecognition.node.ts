import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { listSearch } from '../common/locators';
import { N8N_API_CREDENTIAL, peopleListSearch } from '../common/people-table';
import { boxesImage } from './boxes';
import { executeVisualRecognition } from './execute';
import { PERSON_LABELS, PERSON_OPERATIONS, withPeople } from './person';
import { VisualRecognitionNode } from './VisualRecognitionNode';

/**
 * Visual Recognition API: detect humans and faces, compare faces, face collections; draws the boxes
 * when asked; and people, named persons over several faces kept in an n8n data table. Both need
 * image libraries, which the n8n Cloud package's node (VisualRecognitionNode) goes without.
 */
export class VisualRecognition extends VisualRecognitionNode {
  constructor() {
    super();
    const base = this.description;
    this.description = {
      ...base,
      description: 'Detect humans and faces, compare faces, search face collections, and name people',
      credentials: [...(base.credentials ?? []), { name: N8N_API_CREDENTIAL, required: true, displayOptions: { show: { resource: ['person'] } } }],
      properties: withPeople(base.properties),
    };
  }

  override methods = { listSearch: { ...listSearch, ...peopleListSearch } };

  override async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return executeVisualRecognition(this, boxesImage, { operations: { person: PERSON_OPERATIONS }, labels: PERSON_LABELS });
  }
}

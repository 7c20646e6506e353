import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { testHistoryCredential } from '../common/history';
import { listSearch } from '../common/locators';
import { N8N_API_CREDENTIAL, peopleListSearch } from '../common/people-table';
import { boxesImage } from './boxes';
import { executeVisualRecognition } from './execute';
import { HISTORY_CREDENTIAL_ENTRY, HISTORY_LABELS, HISTORY_OPERATIONS, withHistory } from './history';
import { PERSON_LABELS, PERSON_OPERATIONS, withPeople } from './person';
import { VisualRecognitionNode } from './VisualRecognitionNode';

/**
 * Visual Recognition API: detect humans and faces, compare faces, face collections; draws the boxes
 * when asked; and people, named persons over several faces kept in an n8n data table. Both need
 * image libraries, which the n8n Cloud package's node (VisualRecognitionNode) goes without; and the
 * history of visits, kept in a database (node:sqlite or pg) the Cloud package cannot carry.
 */
export class VisualRecognition extends VisualRecognitionNode {
  constructor() {
    super();
    const base = this.description;
    this.description = {
      ...base,
      description: 'Detect humans and faces, compare faces, search face collections, name people, and search the history of visits',
      credentials: [
        ...(base.credentials ?? []),
        // People live in a data table read through n8n's API; History needs it only to name a face by the people.
        { name: N8N_API_CREDENTIAL, required: true, displayOptions: { show: { resource: ['person', 'history'] }, hide: { usePeopleTable: [false], operation: ['get', 'delete'] } } },
        HISTORY_CREDENTIAL_ENTRY,
      ],
      properties: withHistory(withPeople(base.properties)),
    };
  }

  override methods = { listSearch: { ...listSearch, ...peopleListSearch }, credentialTest: { testHistoryCredential } };

  override async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return executeVisualRecognition(this, boxesImage, { operations: { person: PERSON_OPERATIONS, history: HISTORY_OPERATIONS }, labels: (resource) => (resource === 'history' ? HISTORY_LABELS : PERSON_LABELS) });
  }
}

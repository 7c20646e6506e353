import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { idParameters } from '../../common/locators';
import { operationParameter } from '../../common/parameters';
import { peopleTableParameter } from '../../common/people-table';
import type { OperationTable } from '../../common/per-item';
import type { VisionApi } from '../../../shared/vision/vision-api';
import type { OperationResult } from '../operations';
import { add } from './add';
import { addFace } from './add-face';
import { check } from './check';
import { shownFor, type PersonOperation } from './common';
import { forget } from './forget';
import { importLabels } from './import-labels';
import { list } from './list';
import { merge } from './merge';
import { notThisPerson } from './not-this-person';
import { removeFace } from './remove-face';
import { rename } from './rename';

/**
 * The Person resource of Visual Recognition, one file an operation (its entry, parameters, labels
 * and run), as n8n's own versioned nodes keep their actions: the operation list, the parameters,
 * the run table and the labels are all made from this one list.
 */
const OPERATIONS: PersonOperation[] = [add, addFace, check, forget, importLabels, list, merge, notThisPerson, removeFace, rename];

/** The Person resource's parameters, in display order: the operation, the collection and table, then each operation's own. */
export const PERSON_PROPERTIES: INodeProperties[] = [
  operationParameter(
    shownFor(),
    OPERATIONS.map((o) => o.option).sort((a, b) => a.name.localeCompare(b.name)),
    'list',
  ),
  ...idParameters({ name: 'collectionId', displayName: 'Collection ID', description: "The face collection that holds the people's faces", show: shownFor() }),
  peopleTableParameter(shownFor()),
  ...OPERATIONS.flatMap((o) => o.properties),
];

/** Parameter names behind the core's field names, for the Person resource's error messages. */
export const PERSON_LABELS: Record<string, string> = Object.assign(
  { collectionId: 'Collection ID', peopleTable: 'People Table', baseUrl: 'Base URL (n8n API credential)' },
  ...OPERATIONS.map((o) => o.labels),
);

/** The Person resource's runs by operation. */
export const PERSON_OPERATIONS: OperationTable<VisionApi, OperationResult>[string] = Object.fromEntries(OPERATIONS.map((o) => [o.option.value, (ctx, client, i) => o.execute(ctx, client, i)]));

/** Visual Recognition's parameters with the Person resource added (its option, then its parameters). */
export function withPeople(properties: INodeProperties[]): INodeProperties[] {
  return [
    ...properties.map((p) => (p.name === 'resource' ? { ...p, options: [...(p.options as INodePropertyOptions[]), { name: 'Person', value: 'person' }] } : p)),
    ...PERSON_PROPERTIES,
  ];
}

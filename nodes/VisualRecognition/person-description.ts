import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { idParameters } from '../common/locators';
import { peopleTableParameter } from '../common/people-table';
import { operationParameter } from '../common/parameters';

/** Shown for the Person resource, with the given operations. */
const person = (operation?: string[]) => ({ resource: ['person'], ...(operation ? { operation } : {}) });

const operation = operationParameter(
  person(),
  [
    { name: 'Add', value: 'add', action: 'Add a person', description: 'A new person from photos and/or a remembered visitor' },
    { name: 'Add Face', value: 'addFace', action: 'Add a face to a person', description: 'One more photo (or a remembered visitor) of a person' },
    { name: 'Forget', value: 'forget', action: 'Forget a person', description: "Remove a person and all their faces from the collection and the table" },
    { name: 'Import Labels', value: 'importLabels', action: 'Import labels as people', description: 'Make people of face IDs with names (faces of one name become one person)' },
    { name: 'List', value: 'list', action: 'List people', description: 'The people, their faces, and how full the collection is' },
    { name: 'Merge', value: 'merge', action: 'Merge two people', description: "Move a person's faces into another person" },
    { name: 'Not This Person', value: 'notThisPerson', action: 'Mark a face as not a person', description: 'A photo of someone who was taken for this person' },
    { name: 'Remove Face', value: 'removeFace', action: 'Remove a face of a person' },
    { name: 'Rename', value: 'rename', action: 'Rename a person' },
  ],
  'list',
);

const personRef = (name: string, displayName: string, description: string, operations: string[]): INodeProperties => ({
  displayName,
  name,
  type: 'string',
  default: '',
  required: true,
  placeholder: 'e.g. Eileen',
  description,
  displayOptions: { show: person(operations) },
});

/** Where a photo comes from: each operation offers the sources it takes. */
function photoInput(operations: string[], choices: INodePropertyOptions[], fallback: string): INodeProperties {
  return { displayName: 'Photo Input', name: 'photoInput', type: 'options', options: choices, default: fallback, displayOptions: { show: person(operations) } };
}

const BINARY: INodePropertyOptions = { name: 'Binary File', value: 'binary', description: 'A JPEG or PNG in a binary property of the input item (e.g. "face" of a Face Match Trigger event)' };
const URL: INodePropertyOptions = { name: 'URL', value: 'url', description: 'An http(s) address of a JPEG or PNG' };
const VISITOR: INodePropertyOptions = { name: 'Remembered Visitor', value: 'visitor', description: 'The face the Face Match Trigger enrolled for a visitor (its Visitor ID)' };
const NONE: INodePropertyOptions = { name: 'None', value: 'none', description: 'A person without a face yet' };

/** The Person resource's parameters, in display order. */
const PERSON_PROPERTIES: INodeProperties[] = [
  operation,
  ...idParameters({ name: 'collectionId', displayName: 'Collection ID', description: "The face collection that holds the people's faces", show: person() }),
  peopleTableParameter(person()),
  personRef('name', 'Name', 'Name of the new person (1 to 100 characters, no other person may have it)', ['add']),
  personRef('person', 'Person', 'Name or ID (p_…) of the person', ['addFace', 'rename', 'notThisPerson', 'forget']),
  personRef('person', 'Person to Merge', 'Name or ID (p_…) of the person whose faces move; this person is gone afterwards', ['merge']),
  personRef('into', 'Into Person', 'Name or ID (p_…) of the person who gets the faces', ['merge']),
  personRef('newName', 'New Name', 'The new name (no other person may have it: merge them instead)', ['rename']),
  photoInput(['add'], [BINARY, URL, VISITOR, NONE], 'binary'),
  photoInput(['addFace'], [BINARY, URL, VISITOR], 'binary'),
  photoInput(['notThisPerson'], [BINARY, URL], 'binary'),
  {
    displayName: 'Photo Binary Properties',
    name: 'photoBinaryProperty',
    type: 'string',
    default: 'data',
    required: true,
    description: 'Binary properties holding the photos, comma-separated (e.g. data, photo2), each with one face of 120 px or more',
    displayOptions: { show: { ...person(['add']), photoInput: ['binary'] } },
  },
  {
    displayName: 'Photo Binary Property',
    name: 'photoBinaryProperty',
    type: 'string',
    default: 'data',
    required: true,
    description: 'Binary property holding the photo (one face of 120 px or more)',
    displayOptions: { show: { ...person(['addFace', 'notThisPerson']), photoInput: ['binary'] } },
  },
  {
    displayName: 'Photo URL',
    name: 'photoUrl',
    type: 'string',
    default: '',
    required: true,
    placeholder: 'https://example.com/photo.jpg',
    description: 'Address of a JPEG or PNG with the face',
    displayOptions: { show: { ...person(['add', 'addFace', 'notThisPerson']), photoInput: ['url'] } },
  },
  {
    displayName: 'Visitor ID',
    name: 'visitorId',
    type: 'string',
    default: '',
    required: true,
    placeholder: '={{ $json.visitorId }}',
    description: "The visitor's ID from a Face Match Trigger event (its face moves into the person)",
    displayOptions: { show: { ...person(['add', 'addFace']), photoInput: ['visitor'] } },
  },
  {
    displayName: 'Face ID',
    name: 'faceId',
    type: 'string',
    default: '',
    required: true,
    description: 'ID of the face (or not-face) to remove from its person and the collection',
    displayOptions: { show: person(['removeFace']) },
  },
  {
    displayName: 'Labels',
    name: 'labels',
    type: 'fixedCollection',
    typeOptions: { multipleValues: true },
    placeholder: 'Add label',
    default: {},
    description: 'Face IDs of the collection with names; faces of one name become one person (an existing person of that name gets them)',
    displayOptions: { show: person(['importLabels']) },
    options: [
      {
        displayName: 'Label',
        name: 'label',
        values: [
          { displayName: 'Face ID', name: 'id', type: 'string', default: '' },
          { displayName: 'Name', name: 'name', type: 'string', default: '' },
        ],
      },
    ],
  },
];

/** Parameter names behind the core's field names, for the Person resource's error messages. */
export const PERSON_LABELS: Record<string, string> = {
  name: 'Name',
  person: 'Person',
  from: 'Person to Merge',
  into: 'Into Person',
  to: 'New Name',
  images: 'Photo Binary Properties / Photo URL',
  image: 'Photo Binary Property / Photo URL',
  visitorId: 'Visitor ID',
  labels: 'Labels',
  peopleTable: 'People Table',
  baseUrl: 'Base URL (n8n API credential)',
};

/** Visual Recognition's parameters with the Person resource added (its option, then its parameters). */
export function withPeople(properties: INodeProperties[]): INodeProperties[] {
  return [
    ...properties.map((p) => (p.name === 'resource' ? { ...p, options: [...(p.options as INodePropertyOptions[]), { name: 'Person', value: 'person' }] } : p)),
    ...PERSON_PROPERTIES,
  ];
}

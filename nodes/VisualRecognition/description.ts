import type { INodeProperties } from 'n8n-workflow';
import { imageProperties, type ImageParam } from '../common/image-input';
import { idParameters } from '../common/locators';
import { operationParameter, resourceParameter } from '../common/parameters';

/** The image parameters of the node, by the core's field names. */
export const IMAGE: ImageParam = { name: 'image', label: 'Image', defaultBinary: 'data' };
export const SOURCE: ImageParam = { name: 'source', label: 'Source Image', defaultBinary: 'data' };
export const TARGET: ImageParam = { name: 'target', label: 'Target Image', defaultBinary: 'target' };

const resource = resourceParameter(
  [
    { name: 'Image', value: 'image' },
    { name: 'Face', value: 'face' },
    { name: 'Face Collection', value: 'faceCollection' },
    { name: 'Collection Face', value: 'collectionFace' },
  ],
  'image',
);

const operations: INodeProperties[] = [
  operationParameter(
    { resource: ['image'] },
    [
      { name: 'Detect Faces', value: 'detectFaces', action: 'Detect faces in an image', description: 'Find faces and the direction each looks in' },
      { name: 'Detect Humans', value: 'detectHumans', action: 'Detect humans in an image', description: 'Find human heads, also seen from behind' },
    ],
    'detectFaces',
  ),
  operationParameter(
    { resource: ['face'] },
    [
      { name: 'Compare', value: 'compare', action: 'Compare the faces of two images', description: 'Similarity of the most prominent face of two images' },
    ],
    'compare',
  ),
  operationParameter(
    { resource: ['faceCollection'] },
    [
      { name: 'Compare Image', value: 'compare', action: 'Compare an image with a face collection', description: 'Faces of the collection most similar to the face of an image, most similar first' },
      { name: 'Create', value: 'create', action: 'Create a face collection' },
      { name: 'Delete', value: 'delete', action: 'Delete a face collection', description: 'Delete a collection and all its faces' },
      { name: 'Get Many', value: 'getAll', action: 'Get many face collections', description: 'List the collections of this client' },
    ],
    'compare',
  ),
  operationParameter(
    { resource: ['collectionFace'] },
    [
      { name: 'Add', value: 'add', action: 'Add a face to a collection', description: 'Store the most prominent face of an image in a collection' },
      { name: 'Get Many', value: 'getAll', action: 'Get many faces of a collection' },
      { name: 'Remove', value: 'remove', action: 'Remove a face from a collection' },
    ],
    'add',
  ),
];

const collectionIdFor = (resource: string, operation: string[]): INodeProperties[] =>
  idParameters({ name: 'collectionId', displayName: 'Collection ID', description: 'The face collection', show: { resource: [resource], operation } });

const faceId: INodeProperties = {
  displayName: 'Face ID',
  name: 'faceId',
  type: 'string',
  default: '',
  required: true,
  description: 'ID of the face to remove',
  displayOptions: { show: { resource: ['collectionFace'], operation: ['remove'] } },
};

const maxResults: INodeProperties = {
  displayName: 'Max Results',
  name: 'maxResults',
  type: 'number',
  typeOptions: { minValue: 1, maxValue: 1000 },
  default: 10,
  description: 'Max number of results to return',
  displayOptions: { show: { resource: ['faceCollection'], operation: ['compare'] } },
};

/** Operations whose results have boxes, and so a simplified form and an image with boxes. */
const WITH_BOXES = {
  show: { resource: ['image', 'face', 'faceCollection', 'collectionFace'], operation: ['detectFaces', 'detectHumans', 'compare', 'add'] },
};

const simplify: INodeProperties = {
  displayName: 'Simplify',
  name: 'simplify',
  type: 'boolean',
  default: true,
  description: 'Whether to return a flat result (boxes as left/top/right/bottom/width/height) instead of the raw response',
  displayOptions: WITH_BOXES,
};

const options: INodeProperties = {
  displayName: 'Options',
  name: 'options',
  type: 'collection',
  placeholder: 'Add option',
  default: {},
  displayOptions: WITH_BOXES,
  options: [
    {
      displayName: 'Image With Boxes',
      name: 'drawBoxes',
      type: 'boolean',
      default: false,
      description: 'Whether to add the image (the source image when comparing) with the found boxes drawn on it as a binary property. A URL image is downloaded for this.',
    },
    {
      displayName: 'Image With Boxes Property',
      name: 'boxesProperty',
      type: 'string',
      default: 'boxes',
      description: 'Name of the binary property that receives the image with boxes',
    },
  ],
};

const image = (ops: string[], resources: string[]) => imageProperties(IMAGE, { show: { resource: resources, operation: ops } });

/** Every parameter of Visual Recognition v1, in display order. */
export const properties: INodeProperties[] = [
  resource,
  ...operations,
  ...collectionIdFor('faceCollection', ['compare', 'delete']),
  ...collectionIdFor('collectionFace', ['add', 'getAll', 'remove']),
  faceId,
  ...image(['detectFaces', 'detectHumans'], ['image']),
  ...imageProperties(SOURCE, { show: { resource: ['face'], operation: ['compare'] } }),
  ...imageProperties(TARGET, { show: { resource: ['face'], operation: ['compare'] } }),
  ...image(['compare'], ['faceCollection']),
  ...image(['add'], ['collectionFace']),
  maxResults,
  simplify,
  options,
];

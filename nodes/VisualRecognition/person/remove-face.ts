import { shownFor, text, withDirectory, type PersonOperation } from './common';

/** Person > Remove Face: one face (or not-face) leaves its person and the collection. */
export const removeFace: PersonOperation = {
  option: { name: 'Remove Face', value: 'removeFace', action: 'Remove a face of a person' },
  properties: [
    { displayName: 'Face ID', name: 'faceId', type: 'string', default: '', required: true, description: 'ID of the face (or not-face) to remove from its person and the collection', displayOptions: { show: shownFor(['removeFace']) } },
  ],
  labels: { faceId: 'Face ID' },
  async execute(ctx, client, i) {
    return withDirectory(ctx, client, i, (people) => people.removeFace({ faceId: text(ctx, 'faceId', i) }));
  },
};

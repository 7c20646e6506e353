import { BINARY, onePhotoProperties, personLocator, personRef, photoInput, photos, URL_INPUT, withDirectory, type PersonOperation } from './common';

/** Person > Not This Person: a photo of someone who was taken for this person, kept as a not-face. */
export const notThisPerson: PersonOperation = {
  option: { name: 'Not This Person', value: 'notThisPerson', action: 'Mark a face as not a person', description: 'A photo of someone who was taken for this person' },
  properties: [personLocator('person', 'Person', 'The person, by name or by ID (p_…)', ['notThisPerson']), photoInput(['notThisPerson'], [BINARY, URL_INPUT], 'binary'), ...onePhotoProperties('notThisPerson')],
  labels: { person: 'Person', image: 'Photo Binary Property / Photo URL' },
  async execute(ctx, client, i) {
    const { images } = await photos(ctx, i, false);
    return withDirectory(ctx, client, i, (people) => people.notThisPerson({ person: personRef(ctx, 'person', i), image: images[0] }));
  },
};

import { BINARY, onePhotoProperties, personLocator, personRef, photoInput, photos, URL_INPUT, VISITOR, visitorIdProperty, withDirectory, type PersonOperation } from './common';

/** Person > Add Face: one more photo (or a remembered visitor) of a person. */
export const addFace: PersonOperation = {
  option: { name: 'Add Face', value: 'addFace', action: 'Add a face to a person', description: 'One more photo (or a remembered visitor) of a person' },
  properties: [
    personLocator('person', 'Person', 'The person, by name or by ID (p_…)', ['addFace']),
    photoInput(['addFace'], [BINARY, URL_INPUT, VISITOR], 'binary'),
    ...onePhotoProperties('addFace'),
    visitorIdProperty('addFace'),
  ],
  labels: { person: 'Person', image: 'Photo Binary Property / Photo URL', visitorId: 'Visitor ID' },
  async execute(ctx, client, i) {
    const { images, visitorId } = await photos(ctx, i, false);
    const person = personRef(ctx, 'person', i);
    return withDirectory(ctx, client, i, (people) => people.addFace(visitorId !== undefined ? { person, visitorId } : { person, image: images[0] }), visitorId);
  },
};

import { BINARY, NONE, photoInput, photos, photoUrl, shownFor, text, URL_INPUT, VISITOR, visitorIdProperty, withDirectory, type PersonOperation } from './common';

/** Person > Add: a new person from photos and/or a remembered visitor. */
export const add: PersonOperation = {
  option: { name: 'Add', value: 'add', action: 'Add a person', description: 'A new person from photos and/or a remembered visitor' },
  properties: [
    { displayName: 'Name', name: 'name', type: 'string', default: '', required: true, placeholder: 'e.g. Eileen', description: 'Name of the new person (1 to 100 characters, no other person may have it)', displayOptions: { show: shownFor(['add']) } },
    photoInput(['add'], [BINARY, URL_INPUT, VISITOR, NONE], 'binary'),
    {
      displayName: 'Photo Binary Properties',
      name: 'photoBinaryProperty',
      type: 'string',
      default: 'data',
      required: true,
      description: 'Binary properties holding the photos, comma-separated (e.g. data, photo2), each with one face of 120 px or more',
      displayOptions: { show: { ...shownFor(['add']), photoInput: ['binary'] } },
    },
    photoUrl('add'),
    visitorIdProperty('add'),
  ],
  labels: { name: 'Name', images: 'Photo Binary Properties / Photo URL', visitorId: 'Visitor ID' },
  async execute(ctx, client, i) {
    const { images, visitorId } = await photos(ctx, i, true);
    const name = text(ctx, 'name', i);
    return withDirectory(ctx, client, i, (people) => people.addPerson({ name, images, ...(visitorId !== undefined ? { visitorId } : {}) }), visitorId);
  },
};

import { personLocator, personRef, shownFor, text, withDirectory, type PersonOperation } from './common';

/** Person > Rename: a new name (one no other person has). */
export const rename: PersonOperation = {
  option: { name: 'Rename', value: 'rename', action: 'Rename a person' },
  properties: [
    personLocator('person', 'Person', 'The person, by name or by ID (p_…)', ['rename']),
    { displayName: 'New Name', name: 'newName', type: 'string', default: '', required: true, placeholder: 'e.g. Eileen', description: 'The new name (no other person may have it: merge them instead)', displayOptions: { show: shownFor(['rename']) } },
  ],
  labels: { person: 'Person', to: 'New Name' },
  async execute(ctx, client, i) {
    return withDirectory(ctx, client, i, (people) => people.rename({ person: personRef(ctx, 'person', i), to: text(ctx, 'newName', i) }));
  },
};

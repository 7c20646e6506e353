import { personLocator, personRef, withDirectory, type PersonOperation } from './common';

/** Person > Merge: a person's faces move into another person, and the first is gone. */
export const merge: PersonOperation = {
  option: { name: 'Merge', value: 'merge', action: 'Merge two people', description: "Move a person's faces into another person" },
  properties: [
    personLocator('person', 'Person to Merge', 'The person whose faces move, by name or by ID (p_…); this person is gone afterwards', ['merge']),
    personLocator('into', 'Into Person', 'The person who gets the faces, by name or by ID (p_…)', ['merge']),
  ],
  labels: { from: 'Person to Merge', into: 'Into Person' },
  async execute(ctx, client, i) {
    return withDirectory(ctx, client, i, (people) => people.merge({ from: personRef(ctx, 'person', i), into: personRef(ctx, 'into', i) }));
  },
};

import { personLocator, personRef, withDirectory, type PersonOperation } from './common';

/** Person > Forget: the person and all their faces leave the collection and the table. */
export const forget: PersonOperation = {
  option: { name: 'Forget', value: 'forget', action: 'Forget a person', description: 'Remove a person and all their faces from the collection and the table' },
  properties: [personLocator('person', 'Person', 'The person, by name or by ID (p_…)', ['forget'])],
  labels: { person: 'Person' },
  async execute(ctx, client, i) {
    return withDirectory(ctx, client, i, (people) => people.forget({ person: personRef(ctx, 'person', i) }));
  },
};

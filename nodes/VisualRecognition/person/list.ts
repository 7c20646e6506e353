import { withDirectory, type PersonOperation } from './common';

/** Person > List: the people, their faces, and how full the collection is. */
export const list: PersonOperation = {
  option: { name: 'List', value: 'list', action: 'List people', description: 'The people, their faces, and how full the collection is' },
  properties: [],
  labels: {},
  async execute(ctx, client, i) {
    return withDirectory(ctx, client, i, (people) => people.list());
  },
};

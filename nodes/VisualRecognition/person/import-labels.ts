import { shownFor, withDirectory, type PersonOperation } from './common';

/** Person > Import Labels: people made of face IDs with names. */
export const importLabels: PersonOperation = {
  option: { name: 'Import Labels', value: 'importLabels', action: 'Import labels as people', description: 'Make people of face IDs with names (faces of one name become one person)' },
  properties: [
    {
      displayName: 'Labels',
      name: 'labels',
      type: 'fixedCollection',
      typeOptions: { multipleValues: true },
      placeholder: 'Add label',
      default: {},
      description: 'Face IDs of the collection with names; faces of one name become one person (an existing person of that name gets them)',
      displayOptions: { show: shownFor(['importLabels']) },
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
  ],
  labels: { labels: 'Labels' },
  async execute(ctx, client, i) {
    const rows = (ctx.getNodeParameter('labels', i, {}) as { label?: { id?: string; name?: string }[] }).label ?? [];
    const labels = Object.fromEntries(rows.filter((r) => String(r.id ?? '').trim() !== '').map((r) => [String(r.id).trim(), String(r.name ?? '')]));
    return withDirectory(ctx, client, i, (people) => people.importLabels(labels));
  },
};

import { historyLocation, historyStoreParameter, useHistory } from '../../common/history';
import { personLocator, personRef, shownFor, withDirectory, type PersonOperation } from './common';

/** Person > Forget: the person and all their faces leave the collection and the table, and their visits the history. */
export const forget: PersonOperation = {
  option: {
    name: 'Forget',
    value: 'forget',
    action: 'Forget a person',
    description: 'Remove a person and all their faces from the collection and the table, and their visits (with face crops, snapshots and clips) from the history',
  },
  properties: [personLocator('person', 'Person', 'The person, by name or by ID (p_…)', ['forget']), historyStoreParameter(shownFor(['forget']))],
  labels: { person: 'Person', history: 'History Store', historyUrl: 'Connection URL (Vision Streaming History credential)', historyMedia: 'Media Folder (Vision Streaming History credential)' },
  async execute(ctx, client, i) {
    const call = (people: Parameters<Parameters<typeof withDirectory>[3]>[0]) => people.forget({ person: personRef(ctx, 'person', i) });
    // The history the trigger keeps with Keep History; a local one never written has nothing to erase (and is not made).
    const erased = await useHistory(await historyLocation(ctx, i), (history) => withDirectory(ctx, client, i, call, undefined, history), { ifExists: true });
    return erased ?? withDirectory(ctx, client, i, call);
  },
};

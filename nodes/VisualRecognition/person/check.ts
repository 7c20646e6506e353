import { InputError } from '../../../shared/errors';
import { shownFor, withDirectory, type PersonOperation } from './common';

/** Face ids given at most in Visitor Face IDs. */
const MAX_VISITOR_IDS = 1000;

/**
 * Person > Check: faces of the collection that no person, not-face or visitor records (left by a
 * run that stopped between the service and the table, or added by hand), removed when asked. The
 * Face Match Trigger keeps its remembered visitors in its own workflow data, out of this node's
 * reach: their face IDs are given here, or they count as unrecorded.
 */
export const check: PersonOperation = {
  option: { name: 'Check', value: 'check', action: 'Check the collection for faces nobody records', description: 'Faces of the collection no person, not-face or visitor records; removes them when asked' },
  properties: [
    {
      displayName: 'Remove Them',
      name: 'remove',
      type: 'boolean',
      default: false,
      description: 'Whether to remove the faces nobody records from the collection (otherwise they are only listed)',
      displayOptions: { show: shownFor(['check']) },
    },
    {
      displayName: 'Visitor Face IDs',
      name: 'visitorFaceIds',
      type: 'string',
      default: '',
      placeholder: 'e.g. {{ $json.visitorIds.join(",") }}',
      description: "Face IDs of remembered visitors (the Face Match Trigger's Visitor IDs), comma-separated: these count as recorded. Without them, a remembered visitor's face is listed, and removed with Remove Them.",
      displayOptions: { show: shownFor(['check']) },
    },
  ],
  labels: { remove: 'Remove Them', visitorFaceIds: 'Visitor Face IDs' },
  async execute(ctx, client, i) {
    const remove = ctx.getNodeParameter('remove', i, false);
    if (typeof remove !== 'boolean') throw new InputError('invalid_input', 'Remove Them must be true or false', { field: 'remove', limit: 'a boolean' });
    const visitorFaceIds = visitorIds(ctx.getNodeParameter('visitorFaceIds', i, '') as unknown);
    return withDirectory(ctx, client, i, (people) => people.check({ remove, visitorFaceIds }));
  },
};

/** The visitor face ids: comma-separated text, or a list from an expression. */
function visitorIds(raw: unknown): string[] {
  const ids = (Array.isArray(raw) ? raw.map((v) => String(v ?? '')) : String(raw ?? '').split(',')).map((s) => s.trim()).filter(Boolean);
  if (ids.length > MAX_VISITOR_IDS) throw new InputError('invalid_input', `Visitor Face IDs lists ${ids.length} IDs; at most ${MAX_VISITOR_IDS}`, { field: 'visitorFaceIds', limit: `at most ${MAX_VISITOR_IDS} face IDs` });
  return ids;
}

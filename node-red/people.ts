import type { NodeAPI } from 'node-red';
import { InputError } from '../shared/errors';
import type { ImageInput } from '../shared/image';
import type { FaceSource, PersonRef } from '../shared/people';
import { override, pickOperation, registerActionNode, type ActionContext, type ActionResult, type FlowMessage, type ServiceNodeDef } from './lib/action-node';
import { imageFromValue } from './lib/image-input';
import { configHistory } from './lib/history';
import { configPeople } from './lib/people';
import { labelsFrom } from './lib/labels';

/** Settings of the people node. */
interface PeopleDef extends ServiceNodeDef {
  operation?: string;
  collectionId?: string;
  /** The person the operations act on when the message names none (a name). */
  person?: string;
}

const OPERATIONS = ['list', 'add', 'add-face', 'rename', 'merge', 'not', 'remove-face', 'forget', 'import-labels', 'check'] as const;

/** A person id as the directory makes them: `p_` and a UUID. */
const PERSON_ID = /^p_[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** Registers `vision-streaming-people`: the people of a collection (names over faces), kept by the config node. */
export = function register(RED: NodeAPI): void {
  registerActionNode<PeopleDef>(RED, 'vision-streaming-people', 'working', (ctx) => run(ctx));
};

async function run(ctx: ActionContext<PeopleDef>): Promise<ActionResult> {
  const { def, msg } = ctx;
  // A message can carry anything: an object is not turned into text (its toString may throw, or lie).
  if (msg.operation !== undefined && msg.operation !== null && typeof msg.operation !== 'string') {
    throw new InputError('invalid_input', `msg.operation must be one of ${OPERATIONS.join(', ')} (a string); got ${Array.isArray(msg.operation) ? 'a list' : typeof msg.operation}`, { field: 'operation', limit: OPERATIONS.join(' | ') });
  }
  const operation = pickOperation(msg, def.operation, 'list', OPERATIONS);
  const people = configPeople(ctx.RED, def.service);
  if (!people) throw new InputError('invalid_input', 'vision-streaming-people needs a vision-streaming-config node', { field: 'service', limit: 'a configured service' });
  const collectionId = override(msg, 'collectionId', def.collectionId);
  // Forget erases the person's visits from the config's history too (the one its watch nodes keep).
  const history = operation === 'forget' ? configHistory(ctx.RED, def.service) : undefined;
  const directory = people.directory(collectionId, ctx.connection.vision(), 'collectionId', history?.available ? await history.store() : undefined);
  const id = String(collectionId).trim();
  const done = (payload: unknown, status: string, person?: { person_id: string; name: string }): ActionResult => ({
    payload,
    properties: { collectionId: id, ...(person ? { person_id: person.person_id, name: person.name } : {}) },
    status,
  });
  switch (operation) {
    case 'list': {
      const list = await directory.list();
      return { payload: list, properties: { collectionId: id, count: list.people.length }, status: `${list.people.length} people, ${list.room_left} faces free` };
    }
    case 'add': {
      const name = override(msg, 'name', def.person) as string;
      const visitorId = optionalText(msg.visitor_id);
      // Beside a visitor_id, a payload that cannot be photos (the watch event itself) is not taken for them.
      const images = holdsPhotos(msg.payload, visitorId !== undefined) ? imagesOf(msg.payload) : undefined;
      if (!images && visitorId === undefined) throw new InputError('invalid_input', 'add needs photos of the person in msg.payload (a Buffer or a list of them), or msg.visitor_id', { field: 'payload', limit: 'images or a visitor id' });
      const added = await directory.addPerson({ name, images, visitorId });
      const refused = added.results.filter((r) => r.status === 'refused').length;
      return done(added, `${added.person.name}: ${added.person.faces.length} face(s)${refused ? `, ${refused} refused` : ''}`, added.person);
    }
    case 'add-face': {
      const visitorId = optionalText(msg.visitor_id);
      const image = visitorId === undefined ? imageFromValue(msg.payload, 'msg.payload', 'image') : undefined;
      const added = await directory.addFace({ person: personOf(msg, def), image, visitorId, from: optionalText(msg.from) as FaceSource | undefined });
      return done(added, `${added.person.name}: ${added.person.faces.length} face(s)`, added.person);
    }
    case 'rename': {
      const renamed = await directory.rename({ person: personOf(msg, def), to: msg.to as string });
      return done(renamed, `renamed ${renamed.name}`, renamed);
    }
    case 'merge': {
      if (msg.to === undefined || msg.to === null || msg.to === '') throw new InputError('invalid_input', 'merge needs msg.to: the name (or person id) of the person to merge into', { field: 'to', limit: 'a person' });
      const merged = await directory.merge({ from: personOf(msg, def), into: refOf(msg.to, 'to') });
      return done(merged, `merged into ${merged.person.name}`, merged.person);
    }
    case 'not': {
      const marked = await directory.notThisPerson({ person: personOf(msg, def), image: imageFromValue(msg.payload, 'msg.payload', 'image'), from: optionalText(msg.from) as FaceSource | undefined });
      return done(marked, `not ${marked.person.name}: ${marked.person.not_faces.length}`, marked.person);
    }
    case 'remove-face': {
      const removed = await directory.removeFace({ faceId: msg.face_id as string });
      return done(removed, `face of ${removed.name} removed`, removed);
    }
    case 'forget': {
      const receipt = await directory.forget({ person: personOf(msg, def) });
      const visits = receipt.removed_visits ? `, ${receipt.removed_visits} visit(s)` : '';
      const status = receipt.already_forgotten ? `nobody to forget${visits}` : receipt.left ? `${receipt.left.length} face(s) left: forget again` : `forgot ${receipt.name}${visits}`;
      return done(receipt, status);
    }
    case 'import-labels': {
      const labels = labelsFrom(msg.payload, 'import-labels: msg.payload');
      const imported = await directory.importLabels(labels);
      return done(imported, `${imported.people.length} people imported`);
    }
    case 'check': {
      if (msg.remove !== undefined && typeof msg.remove !== 'boolean') throw new InputError('invalid_input', 'msg.remove must be true or false', { field: 'remove', limit: 'a boolean' });
      const checked = await directory.check({ remove: msg.remove === true });
      const status = checked.removed.length ? `${checked.removed.length} orphan face(s) removed` : `${checked.orphans.length} orphan face(s)`;
      return { payload: checked, properties: { collectionId: id, count: checked.orphans.length }, status };
    }
  }
}

/** The person a message names: msg.person_id, else msg.name, else the node's Person setting. */
function personOf(msg: FlowMessage, def: PeopleDef): PersonRef {
  if (typeof msg.person_id === 'string' && msg.person_id.trim() !== '') return { person_id: msg.person_id.trim() };
  if (msg.name !== undefined && msg.name !== null && msg.name !== '') return { name: msg.name as string };
  if (def.person?.trim()) return { name: def.person.trim() };
  throw new InputError('invalid_input', 'the people node needs a person: msg.name, msg.person_id or its Person setting', { field: 'name', limit: 'a name or a person id' });
}

/** msg.to as a person: a person id when it has that shape, else a name. */
function refOf(value: unknown, field: string): PersonRef {
  if (typeof value !== 'string') throw new InputError('invalid_input', `msg.${field} must be a name or a person id`, { field, limit: 'a string' });
  return PERSON_ID.test(value.trim()) ? { person_id: value.trim() } : { name: value };
}

/** msg.payload as photos: one image, or a list of them. */
function imagesOf(value: unknown): ImageInput[] {
  if (Array.isArray(value)) return value.map((v, i) => imageFromValue(v, `msg.payload[${i}]`, `images[${i}]`));
  return [imageFromValue(value, 'msg.payload', 'images')];
}

/** Whether msg.payload is meant as photos: anything set, or with `strict` only what an image or a list of them can be. */
function holdsPhotos(value: unknown, strict: boolean): boolean {
  if (value === undefined || value === null || value === '') return false;
  if (!strict) return true;
  const serialized = typeof value === 'object' && (value as { type?: unknown }).type === 'Buffer';
  return typeof value === 'string' || Buffer.isBuffer(value) || value instanceof Uint8Array || Array.isArray(value) || serialized;
}

function optionalText(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return String(value);
}

import { InputError } from '../../shared/errors';
import type { WatchOptions } from '../../shared/watch';
import type { FlowMessage, ServiceNodeDef } from './action-node';
import { optionalNumber, override } from './action-node';

/** Settings of the face watch node as the editor stores them (numbers as text). */
export interface WatchDef extends ServiceNodeDef {
  roomId?: string;
  collectionId?: string;
  threshold?: string | number;
  cooldownSeconds?: string | number;
  fps?: string | number;
  /** Names for face ids: a JSON object text {"<face_id>": "Alice"}. */
  labels?: string;
  drawBoxes?: boolean;
  unknowns?: boolean;
  autoStart?: boolean;
  decoder?: string;
}

/** What a watcher is started with: its options (without clients) and whether to stay on loopback. */
export interface WatchSettings {
  options: Omit<WatchOptions, 'vision' | 'streaming'>;
  loopbackOnly: boolean;
}

/**
 * The watcher options for one start: node settings, overridden by the control message's
 * roomId, collectionId, threshold and labels. The core checks every value and names the field.
 */
export function watchSettings(def: WatchDef, msg: FlowMessage, sfuUrl?: string): WatchSettings {
  const roomId = override(msg, 'roomId', def.roomId);
  const collectionId = override(msg, 'collectionId', def.collectionId);
  if (typeof roomId !== 'string' || roomId.trim() === '') throw new InputError('roomId', 'the face watch node needs a room id (setting or msg.roomId)', 'non-empty string');
  if (typeof collectionId !== 'string' || collectionId.trim() === '') {
    throw new InputError('collectionId', 'the face watch node needs a collection id (setting or msg.collectionId)', 'non-empty string');
  }
  const decoder = def.decoder || 'auto';
  if (decoder !== 'auto' && decoder !== 'ffmpeg' && decoder !== 'wasm') throw new InputError('decoder', "decoder must be 'auto', 'ffmpeg' or 'wasm'", "'auto' | 'ffmpeg' | 'wasm'");
  const options: WatchSettings['options'] = {
    roomId,
    collectionId,
    threshold: optionalNumber(override(msg, 'threshold', def.threshold)),
    cooldownSeconds: optionalNumber(def.cooldownSeconds),
    fps: optionalNumber(def.fps),
    labels: labelsOf(override(msg, 'labels', def.labels)),
    drawBoxes: def.drawBoxes !== false,
    events: def.unknowns === false ? ['match', 'status', 'error'] : ['match', 'unknown', 'status', 'error'],
    decoder,
  };
  for (const key of Object.keys(options) as (keyof typeof options)[]) if (options[key] === undefined) delete options[key];
  return { options, loopbackOnly: isLoopback(sfuUrl) };
}

function labelsOf(value: unknown): Record<string, string> | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new InputError('labels', 'labels must be a JSON object of face ids to names, e.g. {"<face_id>": "Alice"}', 'JSON object');
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || Object.values(parsed).some((v) => typeof v !== 'string')) {
    throw new InputError('labels', 'labels must be an object of face ids to names', '{ [face_id]: string }');
  }
  return parsed as Record<string, string>;
}

/** A local service (the sandbox) is reached over loopback only, so WebRTC offers no other address. */
function isLoopback(url: string | undefined): boolean {
  if (!url) return false;
  try {
    const host = new URL(url).hostname;
    return host === '127.0.0.1' || host === 'localhost' || host === '[::1]';
  } catch {
    return false;
  }
}

import type { Node, NodeAPI } from 'node-red';
import { InputError } from '../shared/errors';
import { CameraPublisher, parseCameraSource, type CameraOptions, type CameraStatus } from '../shared/publish';
import { serviceConnection, type FlowMessage, type ServiceNodeDef } from './lib/action-node';
import type { ServiceConnection } from './lib/connection';
import { carriesPassword, joinPassword } from './lib/camera-password';
import { isStop, startShown, wireControl } from './lib/controlled-node';
import { failureText, flowError, safeErrorFields } from './lib/flow-error';

/** The camera node's settings as the editor saves them (numbers as text; blank means the default). */
interface CameraDef extends ServiceNodeDef {
  roomId?: string;
  /** rtsp(s)://, http(s)://, /dev/videoN or a file; blank: pictures arrive in msg.payload. Its password is a credential. */
  source?: string;
  codec?: string;
  bitRateKbps?: string;
  fps?: string;
  size?: string;
  transport?: string;
  /** Encodings with staggered key frames, as text (blank: the default, 2). */
  keyFramePhases?: string;
  autoStart?: boolean;
}

/** Status ring for each camera state. */
const RINGS: Record<CameraStatus['state'], { fill: 'yellow' | 'green' | 'red' | 'grey'; shape: 'ring' | 'dot' }> = {
  connecting: { fill: 'yellow', shape: 'ring' },
  live: { fill: 'green', shape: 'dot' },
  camera_lost: { fill: 'red', shape: 'ring' },
  rejoining: { fill: 'yellow', shape: 'ring' },
  stopped: { fill: 'grey', shape: 'ring' },
};

/** The camera node's credentials: the password of its Source, kept out of flows.json and GET /flows. */
interface CameraCredentials {
  password?: string;
}

/**
 * Registers `vision-streaming-camera`: publishes a camera (a source URL or device) or the pictures
 * that arrive in msg.payload into a room, and sends each change of its state (with its stream id).
 * msg.payload 'start' | 'stop' starts or stops it; msg.roomId / msg.source switch it.
 */
export = function register(RED: NodeAPI): void {
  function CameraNode(this: Node<CameraCredentials>, def: CameraDef): void {
    RED.nodes.createNode(this, def);
    const node: Node = this; // eslint-disable-line @typescript-eslint/no-this-alias -- used by the controller below
    // A flow saved before the password was a credential: it runs, and the editor moves the password on its next deploy.
    if (carriesPassword(text(def.source))) node.warn('Source carries its password, which is then saved in flows.json: open this camera node and deploy to move it to the node\'s password credential');
    const settings: CameraDef = { ...def, source: joinPassword(text(def.source), this.credentials?.password) };
    const connection = serviceConnection(RED, def.service);
    if (!connection) {
      node.status({ fill: 'red', shape: 'ring', text: 'no service config' });
      node.on('input', (_msg, _send, done) => done(flowError(new InputError('invalid_input', 'vision-streaming-camera needs a vision-streaming-config node', { field: 'service', limit: 'a configured service' }))));
      return;
    }
    const autoStart = def.autoStart !== false && text(def.roomId) && text(def.source);
    wireControl(node, connection, new CameraControl(node, connection, settings), autoStart ? ({ payload: 'start' } as FlowMessage) : undefined);
  }
  RED.nodes.registerType<Node<CameraCredentials>, CameraDef, unknown, CameraCredentials>('vision-streaming-camera', CameraNode, { credentials: { password: { type: 'password' } } });
};

/** Owns the node's one camera publisher: starts, stops, switches it one step at a time, and feeds it pictures. */
class CameraControl {
  readonly #node: Node;
  readonly #connection: ServiceConnection;
  readonly #def: CameraDef;
  #camera?: CameraPublisher;
  #key?: string;
  #chain: Promise<void> = Promise.resolve();
  /** The stop a stop message began before its turn (see apply). */
  #stopping?: Promise<void>;
  #closed = false;

  constructor(node: Node, connection: ServiceConnection, def: CameraDef) {
    this.#node = node;
    this.#connection = connection;
    this.#def = def;
  }

  /** Acts on a message: a command, a switch of room or source, or a picture to publish. */
  apply(msg: FlowMessage): Promise<void> {
    const picture = pictureOf(msg.payload);
    // Pictures go straight to the running camera: waiting behind a start would queue them.
    if (picture && this.#camera && msg.roomId === undefined && msg.source === undefined) {
      try {
        this.#camera.push(picture);
        return Promise.resolve();
      } catch (err) {
        // A bad picture goes to Catch nodes; the stream goes on with the last good one.
        return Promise.reject(err);
      }
    }
    // A stop ends a start still joining at once: behind it, it would wait as long as the room refuses.
    if (isStop(msg)) this.#stopping = this.#stop();
    const step = this.#chain.then(() => this.#apply(msg, picture));
    this.#chain = step.catch(() => undefined);
    return step;
  }

  /** Stops the camera for good (node closing). */
  async close(): Promise<void> {
    this.#closed = true;
    const camera = this.#camera;
    this.#camera = undefined;
    await camera?.stop();
  }

  /** Shows a failure on the node and hands it to Catch nodes. */
  report(err: unknown): void {
    if (this.#closed) return;
    this.#connection.report(err);
    this.#node.status({ fill: 'red', shape: 'ring', text: failureText(err) });
    this.#node.error(flowError(err), { topic: 'error', payload: safeErrorFields(err) });
  }

  async #apply(msg: FlowMessage, picture: Buffer | undefined): Promise<void> {
    if (this.#closed) return;
    const command = typeof msg.payload === 'string' ? msg.payload.trim().toLowerCase() : undefined;
    if (command === 'stop') {
      await this.#stopping;
      return this.#stop();
    }
    if (command !== undefined && command !== 'start' && command !== 'restart') {
      throw new InputError('invalid_input', 'msg.payload must be a JPEG or PNG picture (a Buffer), or "start" / "stop"', { field: 'payload', limit: 'JPEG or PNG bytes, start, stop' });
    }
    if (command === undefined && !picture) {
      throw new InputError('invalid_input', `msg.payload is ${Array.isArray(msg.payload) ? 'an array' : `a ${typeof msg.payload}`}, not a JPEG or PNG picture (a Buffer)`, { field: 'payload', limit: 'JPEG or PNG bytes' });
    }
    const roomId = text(msg.roomId) ?? text(this.#def.roomId);
    if (!roomId) throw new InputError('invalid_input', 'no room: set Room in the node or send msg.roomId', { field: 'roomId', limit: 'a room id' });
    const source = typeof msg.source === 'string' ? this.#messageSource(msg.source) : text(this.#def.source);
    if (picture && source) throw new InputError('invalid_input', 'this camera node reads its Source; clear Source to publish the pictures that arrive in msg.payload', { field: 'payload', limit: 'no Source' });
    const key = `${roomId}\n${source ?? ''}`;
    if (!(this.#camera && this.#key === key && command !== 'restart')) {
      await this.#stop();
      await this.#start(roomId, source, key);
    }
    if (picture) this.#camera?.push(picture);
  }

  /**
   * msg.source may switch to another camera URL or /dev/videoN device, never to a file: a message
   * (from an HTTP endpoint, an MQTT topic ...) must not make ffmpeg open any file this user can read.
   * Playing a file needs the node's own Source.
   */
  #messageSource(value: string): string | undefined {
    const source = text(value);
    if (source === undefined || source === text(this.#def.source)) return source;
    if (parseCameraSource(source).kind === 'file') {
      throw new InputError('invalid_input', 'msg.source may name a camera URL (rtsp://, rtsps://, http://, https://) or a /dev/videoN device, not a file: a file is played only when it is the node\'s own Source', { field: 'source', limit: 'a camera URL or /dev/videoN' });
    }
    return source;
  }

  async #start(roomId: string, source: string | undefined, key: string): Promise<void> {
    if (this.#closed) return;
    const d = this.#def;
    const size = text(d.size);
    const m = size ? /^(\d+)x(\d+)$/i.exec(size) : null;
    if (size && !m) throw new InputError('invalid_input', `size must be WIDTHxHEIGHT such as 640x480 (got ${JSON.stringify(size.slice(0, 20))})`, { field: 'size', limit: 'WxH' });
    const options: CameraOptions = {
      source,
      codec: (text(d.codec)?.toUpperCase() ?? 'VP8') as 'VP8' | 'H264',
      bitRateKbps: numberOf(d.bitRateKbps),
      fps: numberOf(d.fps),
      ...(m ? { width: Number(m[1]), height: Number(m[2]) } : {}),
      transport: (text(d.transport)?.toLowerCase() || undefined) as 'tcp' | 'udp' | undefined,
      keyFramePhases: numberOf(d.keyFramePhases),
      getTicket: this.#connection.streaming().ticketSource(roomId, 'up'),
    };
    const camera = new CameraPublisher(options);
    this.#camera = camera;
    this.#key = key;
    camera.on('status', (s) => this.#status(s, camera));
    camera.on('error', (err) => this.report(err));
    await startShown(this.#node, this.#connection, camera, {
      closed: () => this.#closed,
      failed: () => {
        if (this.#camera === camera) this.#camera = undefined;
      },
    });
  }

  async #stop(): Promise<void> {
    const camera = this.#camera;
    this.#camera = undefined;
    if (camera) await camera.stop();
  }

  #status(s: CameraStatus, camera: CameraPublisher): void {
    if (this.#closed && s.state !== 'stopped') return;
    const stats = camera.stats;
    const detail = s.state === 'live' ? `live${s.relayed ? ' (relayed)' : ''}${stats && stats.dropped ? `, ${stats.dropped} dropped` : ''}` : s.reason ? `${s.state}: ${s.reason}` : s.state;
    if (!this.#closed) this.#node.status({ ...RINGS[s.state], text: detail.slice(0, 60) });
    this.#node.send({ topic: 'status', payload: s, streamId: s.stream_id } as never);
  }
}

/** The picture in a payload: a Buffer, or a Buffer that went through JSON. */
function pictureOf(value: unknown): Buffer | undefined {
  if (Buffer.isBuffer(value)) return value;
  if (value instanceof Uint8Array) return Buffer.from(value);
  if (typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'Buffer' && Array.isArray((value as { data?: unknown }).data)) {
    return Buffer.from((value as { data: number[] }).data);
  }
  return undefined;
}

function text(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  return t ? t : undefined;
}

function numberOf(v: string | undefined): number | undefined {
  const t = text(v);
  if (t === undefined) return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : (t as unknown as number); // the core names the field when it is not a number
}

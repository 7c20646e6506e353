import type { Node, NodeAPI } from 'node-red';
import { readClipFile } from '../shared/clips/host-file';
import { InputError } from '../shared/errors';
import { FaceWatcher, type ArrivedEvent, type ClipEvent, type ErrorSource, type LeftEvent, type MatchEvent, type StatusEvent, type TracksEvent, type UnknownEvent, type VisitorStore, type WatchOptions } from '../shared/watch';
import { serviceConnection, type FlowMessage, type ServiceNodeDef } from './lib/action-node';
import type { ServiceConnection } from './lib/connection';
import { isStop, startShown, wireControl } from './lib/controlled-node';
import { failureText, flowError, safeErrorFields } from './lib/flow-error';
import { configHistory, type ConfigHistory } from './lib/history';
import { configPeople, type ConfigPeople } from './lib/people';
import type { HistoryLease } from '../shared/history/leases';
import { watchMessage, type WatchMessage } from './lib/watch-messages';
import { watchSettings, weriftSpeedupsWarning, type WatchDef, type WatchSettings } from './lib/watch-settings';

/** The node context key of the visitors the watcher enrolled. */
const VISITORS_KEY = 'visitors';

/** First wait before starting again after the room was lost; doubles with each failed start, up to RESTART_MAX_MS. */
const RESTART_FIRST_MS = 1000;
const RESTART_MAX_MS = 60_000;

/** Status ring for each watcher state. */
const RINGS: Record<StatusEvent['state'], { fill: 'yellow' | 'green' | 'grey'; shape: 'ring' | 'dot' }> = {
  joining: { fill: 'yellow', shape: 'ring' },
  watching: { fill: 'green', shape: 'dot' },
  rejoining: { fill: 'yellow', shape: 'ring' },
  paused: { fill: 'yellow', shape: 'ring' },
  stopped: { fill: 'grey', shape: 'ring' },
};

/**
 * Registers `vision-streaming-watch`: watches a live room and sends a message for every known
 * face (output 1), unknown face (output 2), change of state (output 3) and arrival or departure
 * (output 4, presence: msg.topic 'arrived' or 'left'), and with a clips folder each visit's clip
 * (output 5: the file as a Buffer in msg.payload), and with Tracks the faces in view at each
 * sample (output 6, for the live view). Needs no input; input
 * messages start, stop or switch it (msg.payload 'start' | 'stop', msg.roomId, msg.collectionId).
 */
export = function register(RED: NodeAPI): void {
  function WatchNode(this: Node, def: WatchDef & ServiceNodeDef): void {
    RED.nodes.createNode(this, def);
    const node: Node = this; // eslint-disable-line @typescript-eslint/no-this-alias -- used by the controller below
    const connection = serviceConnection(RED, def.service);
    if (!connection) {
      node.status({ fill: 'red', shape: 'ring', text: 'no service config' });
      node.on('input', (_msg, _send, done) => done(flowError(new InputError('invalid_input', 'vision-streaming-watch needs a vision-streaming-config node', { field: 'service', limit: 'a configured service' }))));
      return;
    }
    const outdated = weriftSpeedupsWarning(def);
    if (outdated) node.warn(outdated);
    const autoStart = def.autoStart !== false && def.roomId && def.collectionId;
    wireControl(node, connection, new WatchControl(node, connection, def, configPeople(RED, def.service), configHistory(RED, def.service)), autoStart ? ({} as FlowMessage) : undefined);
  }
  RED.nodes.registerType('vision-streaming-watch', WatchNode);
};

/** Owns the node's one watcher: starts, stops and switches it one step at a time. */
class WatchControl {
  readonly #node: Node;
  readonly #connection: ServiceConnection;
  readonly #def: WatchDef;
  /** The people of the config node: the watcher names faces by them; a person named from a visitor leaves #visitors. */
  readonly #people?: ConfigPeople;
  /** The visitors this node enrolled, in its context: across restarts when contextStorage persists. */
  readonly #visitors: VisitorStore;
  #watcher?: FaceWatcher;
  #chain: Promise<void> = Promise.resolve();
  /** The stop a stop message began before its turn (see apply). */
  #stopping?: Promise<void>;
  #counts = { match: 0, unknown: 0 };
  #closed = false;
  /** The settings of the last start, for starting again after the room was lost. */
  #settings?: WatchSettings;
  #restartTimer?: NodeJS.Timeout;
  #restarts = 0;
  /** The config's history, kept when the node's Keep history is on. */
  readonly #history?: ConfigHistory;
  /** This node's lease of it, taken at the first start and given back on close (after the watcher's last write). */
  #historyLease?: HistoryLease;

  constructor(node: Node, connection: ServiceConnection, def: WatchDef, people?: ConfigPeople, history?: ConfigHistory) {
    this.#node = node;
    this.#connection = connection;
    this.#def = def;
    this.#people = people;
    this.#history = history;
    const context = node.context();
    this.#visitors = { load: () => context.get(VISITORS_KEY), save: (doc) => context.set(VISITORS_KEY, doc) };
    people?.visitors.add(this.#visitors);
  }

  /** Acts on a control message: start, stop, or (re)start with the room and collection it names. */
  apply(msg: FlowMessage): Promise<void> {
    // A stop ends a start still joining at once: behind it, it would wait as long as the room refuses.
    if (isStop(msg)) this.#stopping = this.#stop();
    const step = this.#chain.then(() => this.#apply(msg));
    this.#chain = step.catch(() => undefined);
    return step;
  }

  /**
   * Stops the watcher for good (node closing). Does not wait for a start still joining, which could
   * outlast the runtime's close timeout: that start ends with the stopped watcher and reports nothing.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#people?.visitors.remove(this.#visitors);
    await this.#stop();
    const lease = this.#historyLease;
    this.#historyLease = undefined;
    await lease?.release();
  }

  /** Shows a failure on the node and hands it to Catch nodes (with msg.source for an error the watcher reports). */
  report(err: unknown, source?: ErrorSource): void {
    if (this.#closed) return;
    this.#connection.report(err);
    this.#node.status({ fill: 'red', shape: 'ring', text: failureText(err) });
    this.#node.error(flowError(err), { topic: 'error', payload: safeErrorFields(err), ...(source ? { source } : {}) });
  }

  async #apply(msg: FlowMessage): Promise<void> {
    if (this.#closed) return;
    const command = typeof msg.payload === 'string' ? msg.payload.trim().toLowerCase() : undefined;
    if (command === 'stop') {
      await this.#stopping;
      return this.#stop();
    }
    const wanted = watchSettings(this.#def, msg);
    const switching = msg.roomId !== undefined || msg.collectionId !== undefined || command === 'restart';
    if (this.#watcher && !switching) return;
    await this.#stop();
    await this.#start(wanted);
  }

  async #start(settings: WatchSettings): Promise<void> {
    if (this.#closed) return;
    this.#settings = settings;
    const history = await this.#keptHistory();
    if (this.#closed) return;
    const options: WatchOptions = {
      ...settings,
      ...(history ? { history } : {}),
      vision: this.#connection.vision(),
      streaming: this.#connection.streaming(),
      visitorStore: this.#visitors,
      // Faces of the config's people are those people: a change the people node makes shows within seconds.
      ...(this.#people?.available ? { people: this.#people.store(settings.collectionId) } : {}),
    };
    const watcher = new FaceWatcher(options);
    this.#watcher = watcher;
    this.#counts = { match: 0, unknown: 0 };
    watcher.on('match', (e) => this.#face(0, e));
    watcher.on('unknown', (e) => this.#face(1, e));
    watcher.on('status', (e) => this.#status(e));
    watcher.on('arrived', (e) => this.#presence(e));
    watcher.on('left', (e) => this.#presence(e));
    watcher.on('error', (e) => this.report(e.error, e.source));
    watcher.on('clip', (e) => void this.#clip(e));
    watcher.on('tracks', (e) => this.#tracks(e));
    await startShown(this.#node, this.#connection, watcher, {
      closed: () => this.#closed,
      failed: () => {
        if (this.#watcher === watcher) this.#watcher = undefined;
      },
    });
  }

  /**
   * The history the watcher writes into with Keep history: the config's store, open before the
   * watcher starts. A history that cannot be opened (no user directory, the database down) is
   * reported and the watch goes on without it; the next start tries again.
   */
  async #keptHistory(): Promise<WatchOptions['history'] | undefined> {
    if (this.#def.keepHistory !== true || !this.#history) return undefined;
    try {
      this.#historyLease ??= this.#history.acquire();
      return { store: await this.#historyLease.store(), ...this.#history.retention };
    } catch (err) {
      this.report(err, 'history');
      return undefined;
    }
  }

  async #stop(): Promise<void> {
    clearTimeout(this.#restartTimer);
    this.#restartTimer = undefined;
    const watcher = this.#watcher;
    this.#watcher = undefined;
    if (watcher) await watcher.stop();
  }

  #face(output: 0 | 1, e: MatchEvent | UnknownEvent): void {
    this.#counts[e.event] += 1;
    const out: (WatchMessage | null)[] = [null, null, null, null, null];
    out[output] = watchMessage(e);
    this.#node.send(out as never);
    this.#showWatching();
  }

  /** The green ring with the streams and the faces seen since the start. */
  #showWatching(): void {
    const streams = Object.keys(this.#watcher?.stats.streams ?? {}).length;
    const { match, unknown } = this.#counts;
    this.#node.status({ ...RINGS.watching, text: `watching: ${plural(streams, 'stream')}, ${plural(match, 'match', 'matches')}, ${unknown} unknown` });
  }

  #status(e: StatusEvent): void {
    if (e.state === 'watching') {
      this.#restarts = 0;
      this.#showWatching();
    } else if (e.state === 'stopped' && e.reason === 'session_lost') this.#lost(e.error?.message ?? 'the room was lost');
    // A lost room, or a start that failed, shows its red ring (#lost, #start): no grey one in between.
    else if (!(e.state === 'stopped' && (e.reason === 'session_lost' || e.reason === 'start_failed'))) this.#node.status({ ...RINGS[e.state], text: e.detail ? `${e.state}: ${e.detail}`.slice(0, 60) : e.state });
    this.#node.send([null, null, watchMessage(e), null, null] as never);
  }

  /**
   * A clip on its own output, the file as a Buffer in msg.payload and its path in msg.filename, so a
   * flow hands it to a chat node as it is; the event's fields ride in msg.clip. A clip that could not
   * be made is a warning and a message on the status output (topic 'clip', payload the event).
   */
  async #clip(e: ClipEvent): Promise<void> {
    const file = e.path;
    if (e.error || !file) {
      this.#node.warn(`no clip of stream ${e.stream_id}: ${e.error ?? 'no file'}${e.cause ? ` (${e.cause})` : ''}`);
      this.#node.send([null, null, { topic: 'clip', payload: { ...e } }, null, null] as never);
      return;
    }
    let data: Buffer;
    try {
      data = (await readClipFile(e))!.data;
    } catch (err) {
      const code = (err as { code?: unknown } | null)?.code;
      this.#node.warn(`the clip of stream ${e.stream_id} could not be read: ${typeof code === 'string' ? code : 'error'}`);
      return;
    }
    if (this.#closed) return;
    this.#node.send([null, null, null, null, { topic: 'clip', payload: data, filename: file, clip: { ...e } }] as never);
  }

  /** The faces in view at a sample, on the sixth output; the still (a JPEG) beside the payload as msg.still. */
  #tracks(e: TracksEvent): void {
    const { still, ...payload } = e;
    this.#node.send([null, null, null, null, null, { topic: 'tracks', payload, ...(still ? { still } : {}) }] as never);
  }

  /**
   * The room was lost for good (the watcher stopped itself): the node does not stay grey until a
   * message or a deploy, it starts again after a backoff, showing why on a red ring meanwhile.
   */
  #lost(reason: string): void {
    if (this.#closed || !this.#settings) return;
    this.#watcher = undefined;
    const delayMs = Math.min(RESTART_MAX_MS, RESTART_FIRST_MS * 2 ** Math.min(this.#restarts, 16));
    this.#restarts += 1;
    this.#node.status({ fill: 'red', shape: 'ring', text: `lost: ${reason}`.slice(0, 48) + `; again in ${Math.round(delayMs / 1000)} s` });
    const settings = this.#settings;
    clearTimeout(this.#restartTimer);
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = undefined;
      // In the control chain, so it never runs beside a start or stop a message asked for.
      this.#chain = this.#chain.then(async () => {
        if (this.#closed || this.#watcher) return;
        try {
          await this.#start(settings);
        } catch (err) {
          this.#lost(failureText(err));
        }
      });
    }, delayMs);
  }

  // Its own output, like matches and unknown faces: "who is here now" needs arrivals and departures,
  // not the watcher's state. Flows wired before arrivals existed see msg.topic 'left' as they did.
  #presence(e: ArrivedEvent | LeftEvent): void {
    this.#node.send([null, null, null, watchMessage(e), null] as never);
  }
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

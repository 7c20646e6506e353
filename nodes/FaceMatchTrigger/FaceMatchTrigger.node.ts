import {
  NodeConnectionTypes,
  type INodeType,
  type INodeTypeDescription,
  type ITriggerFunctions,
  type ITriggerResponse,
} from 'n8n-workflow';
import type { ClientError } from '../../shared/errors';
import { FaceWatcher, type MatchEvent, type StatusEvent, type UnknownEvent, type WatchEventName } from '../../shared/watch';
import { selfAuthorisedClients } from '../common/clients';
import { toNodeError } from '../common/errors';
import { properties } from './description';
import { eventItem } from './events';

/** Parameter names behind the watcher's option names, for error messages. */
const LABELS = {
  roomId: 'Room ID',
  collectionId: 'Collection ID',
  threshold: 'Threshold',
  cooldownSeconds: 'Cooldown (Seconds)',
  fps: 'Sample Rate (per Second)',
  budgetPerSecond: 'API Call Budget (per Second)',
  labels: 'Labels',
  streams: 'Options > Streams',
  events: 'Events',
};

type FaceOrStatus = MatchEvent | UnknownEvent | StatusEvent;

/** Starts a workflow when a known (or unknown) face appears in a live streaming room. */
export class FaceMatchTrigger implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Face Match Trigger',
    name: 'faceMatchTrigger',
    icon: { light: 'file:faceMatchTrigger.svg', dark: 'file:faceMatchTrigger.dark.svg' },
    group: ['trigger'],
    version: 1,
    defaultVersion: 1,
    subtitle: '={{"room " + $parameter["roomId"]}}',
    description: 'Starts the workflow when a face of a collection (or an unknown face) appears in a live streaming room',
    eventTriggerDescription: 'Waiting for a face to appear in the room',
    defaults: { name: 'Face Match Trigger' },
    inputs: [],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'visionStreamingApi', required: true }],
    properties,
  };

  async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
    const node = this.getNode();
    const selected = this.getNodeParameter('events', ['match']) as WatchEventName[];
    const options = this.getNodeParameter('options', {}) as { cooldownScope?: 'stream' | 'room'; decoder?: 'auto' | 'ffmpeg' | 'wasm'; drawBoxes?: boolean; streams?: string };
    const labelRows = (this.getNodeParameter('labels', {}) as { label?: { id?: string; name?: string }[] }).label ?? [];
    // Token failures reach the node as the core's own errors (nothing to remember from a transport).
    const state = {};
    const clients = await selfAuthorisedClients(this);
    let watcher: FaceWatcher;
    try {
      watcher = new FaceWatcher({
        vision: clients.vision,
        streaming: clients.streaming,
        roomId: String(this.getNodeParameter('roomId', '')).trim(),
        collectionId: String(this.getNodeParameter('collectionId', '')).trim(),
        threshold: this.getNodeParameter('threshold', 0.7) as number,
        cooldownSeconds: this.getNodeParameter('cooldownSeconds', 60) as number,
        fps: this.getNodeParameter('fps', 2) as number,
        budgetPerSecond: this.getNodeParameter('budgetPerSecond', 5) as number,
        labels: Object.fromEntries(labelRows.filter((r) => r.id).map((r) => [String(r.id).trim(), String(r.name ?? '')])),
        // Errors and status always come: they decide between "one bad event" and "gave up".
        events: ['match', 'unknown', 'status', 'error'],
        ...(options.cooldownScope ? { cooldownScope: options.cooldownScope } : {}),
        ...(options.decoder ? { decoder: options.decoder } : {}),
        drawBoxes: options.drawBoxes === true,
        ...(options.streams?.trim() ? { streams: options.streams.split(',').map((s) => s.trim()).filter(Boolean) } : {}),
      });
    } catch (err) {
      await clients.close();
      throw toNodeError(node, err, 0, LABELS, state);
    }

    const manual = this.getMode() === 'manual';
    let closing: Promise<void> | undefined;
    // Events before the first join belong to activation, which reports its own failure.
    let active = false;
    let delivered = false;
    let failed = false;
    let lastError: ClientError | undefined;
    // One owner releases everything, once: the watcher (socket, peer, decoders, timers), then the clients.
    const close = (): Promise<void> => {
      closing ??= (async () => {
        await watcher.stop();
        await clients.close();
      })();
      return closing;
    };
    const giveUp = (error: ClientError | undefined) => {
      if (!active || failed || closing) return;
      failed = true;
      const reason = error ?? lastError;
      this.emitError(reason ? toNodeError(node, reason, 0, LABELS, state) : toNodeError(node, new Error('the watcher stopped'), 0, LABELS, state));
      void close();
    };
    const deliver = async (event: FaceOrStatus) => {
      if (!active || closing || failed || (manual && delivered) || !selected.includes(event.event)) return;
      try {
        const item = await eventItem(this, event);
        if (closing || (manual && delivered)) return;
        delivered = true;
        // Read at call time: in manual mode n8n replaces emit after trigger() returns.
        this.emit([[item]]);
        // "Listen for test event": the first event is the answer; nothing more is watched.
        if (manual) void close();
      } catch (err) {
        this.saveFailedExecution(toNodeError(node, err, 0, LABELS, state));
      }
    };

    watcher.on('match', (e) => void deliver(e));
    watcher.on('unknown', (e) => void deliver(e));
    watcher.on('status', (e) => {
      // A stop nobody asked for: the watcher gave up (its session could not rejoin).
      if (e.state === 'stopped' && !closing) giveUp(undefined);
      else void deliver(e);
    });
    watcher.on('error', ({ error, stream_id }) => {
      lastError = error;
      if (!active) return;
      // Without a stream the failure is the session's own: the watcher stops after it.
      if (stream_id === undefined) giveUp(error);
      else if (!closing && !failed) this.saveFailedExecution(toNodeError(node, error, 0, LABELS, state));
    });

    try {
      // Activation waits for the first join: a bad room, collection or credential fails it here.
      await watcher.start();
    } catch (err) {
      closing ??= Promise.resolve();
      await watcher.stop();
      await clients.close();
      throw toNodeError(node, err, 0, LABELS, state);
    }
    active = true;
    return { closeFunction: close };
  }
}

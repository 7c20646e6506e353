import {
  NodeConnectionTypes,
  type NodeApiError,
  type NodeOperationError,
  type INodeType,
  type INodeTypeDescription,
  type ITriggerFunctions,
  type ITriggerResponse,
} from 'n8n-workflow';
import { TablePeopleStore } from '../../shared/people/table-store';
import { FaceWatcher, type ClipEvent, type ErrorSource, type VisitorStore, type WatchEventName } from '../../shared/watch';
import { selfAuthorisedClients } from '../common/self-authorised';
import { toNodeError } from '../common/errors';
import { historyLocation, testHistoryCredential } from '../common/history';
import { acquireHistory, type HistoryLease } from '../../shared/history/leases';
import type { HistoryStore } from '../../shared/history/types';
import type { WatchOptions } from '../../shared/watch';
import { listSearch } from '../common/locators';
import { N8N_API_CREDENTIAL, peopleListSearch, tableIdParameter, triggerRequest } from '../common/people-table';
import { clipItem, keepClipFiles, removeClipFile } from './clips';
import { PARAMETER_LABELS, properties } from './description';
import { eventItem, type ItemEvent } from './events';
import { watcherSettings } from './settings';

/**
 * The visitors the watcher enrolled, kept in the node's workflow static data: n8n saves it whenever
 * the trigger emits (and at activation).
 */
function staticDataStore(ctx: ITriggerFunctions): VisitorStore {
  const data = ctx.getWorkflowStaticData('node');
  return {
    load: () => data.visitors,
    save: (doc) => {
      data.visitors = { ...doc, visitors: doc.visitors.map((v) => ({ ...v })) };
    },
  };
}

/** The people table the trigger names faces by, when it uses one: read again by the watcher every few seconds. */
async function peopleTable(ctx: ITriggerFunctions, collectionId: string): Promise<TablePeopleStore | undefined> {
  if (!(ctx.getNodeParameter('usePeopleTable', false) as boolean)) return undefined;
  const tableId = tableIdParameter(ctx.getNodeParameter('peopleTable', '', { extractValue: true }));
  return new TablePeopleStore({ request: await triggerRequest(ctx), tableId, collectionId });
}

/**
 * The history the watcher keeps with Keep History: a lease of the History Store's history (shared
 * with History searches in this process), opened before the watch starts so that a database that
 * cannot be opened fails the activation with its reason.
 */
async function historyLease(ctx: ITriggerFunctions): Promise<HistoryLease | undefined> {
  return (ctx.getNodeParameter('keepHistory', false) as boolean) ? acquireHistory(await historyLocation(ctx)) : undefined;
}

/** The watcher's history option over an open store: how long visits and media stay. */
function historyOption(ctx: ITriggerFunctions, store: HistoryStore): NonNullable<WatchOptions['history']> {
  const days = ctx.getNodeParameter('historyDays', 30) as number;
  const gb = ctx.getNodeParameter('historyMediaGB', 2) as number;
  return { store, maxAgeDays: days, maxMediaBytes: Math.round(gb * 1e9) };
}

/** A watcher's error as n8n shows it, saying which part of the watcher failed (in its description and context). */
function withSource<E extends NodeApiError | NodeOperationError>(error: E, source: ErrorSource): E {
  error.context.source = source;
  error.description = `${error.description ? `${error.description} ` : ''}Source: ${source}.`;
  return error;
}

/** Starts a workflow when a known (or unknown) face appears in a live streaming room. */
export class FaceMatchTrigger implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Face Match Trigger',
    name: 'faceMatchTrigger',
    icon: { light: 'file:faceMatchTrigger.svg', dark: 'file:faceMatchTrigger.dark.svg' },
    group: ['trigger'],
    // 2: rooms and collections picked from a list (resource locators); 1 keeps plain text IDs.
    version: [1, 2],
    defaultVersion: 2,
    subtitle: '={{"room " + ($parameter["roomId"].value ?? $parameter["roomId"])}}',
    description: 'Starts the workflow when a face of a collection (or an unknown face) appears in a live streaming room',
    eventTriggerDescription: 'Waiting for a face to appear in the room',
    defaults: { name: 'Face Match Trigger' },
    inputs: [],
    outputs: [NodeConnectionTypes.Main],
    credentials: [
      { name: 'visionStreamingApi', required: true },
      { name: N8N_API_CREDENTIAL, required: true, displayOptions: { show: { usePeopleTable: [true] } } },
      { name: 'visionStreamingHistory', required: true, testedBy: 'testHistoryCredential', displayOptions: { show: { keepHistory: [true], historyStore: ['postgres'] } } },
    ],
    properties,
  };

  methods = { listSearch: { ...listSearch, ...peopleListSearch }, credentialTest: { testHistoryCredential } };

  async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
    const node = this.getNode();
    const fail = (err: unknown) => toNodeError(node, err, 0, PARAMETER_LABELS);
    const selected = this.getNodeParameter('events', ['match']) as WatchEventName[];
    const keepClips = keepClipFiles(this);
    const clients = await selfAuthorisedClients(this);
    let watcher: FaceWatcher;
    let lease: HistoryLease | undefined;
    try {
      const settings = watcherSettings(this);
      const people = await peopleTable(this, settings.collectionId);
      lease = await historyLease(this);
      const history = lease ? historyOption(this, await lease.store()) : undefined;
      // Errors and status always come: they tell "one bad analysis" from "the watch is over".
      watcher = new FaceWatcher({ ...settings, vision: clients.vision, streaming: clients.streaming, visitorStore: staticDataStore(this), ...(people ? { people } : {}), ...(history ? { history } : {}) });
    } catch (err) {
      await lease?.release();
      await clients.close();
      throw fail(err);
    }
    // Each step is idempotent: n8n may close twice, and a failed start closes too. The history is
    // given back after the watcher's stop, which writes every visit's end first.
    const closeFunction = async (): Promise<void> => {
      await watcher.stop();
      await lease?.release();
      await clients.close();
    };

    // Events before the first join belong to the start, which reports its own failure.
    let started = false;
    const deliver = async (event: ItemEvent): Promise<void> => {
      if (!started || !selected.includes(event.event)) return;
      try {
        const item = await eventItem(this, event);
        // emit is read at call time: in manual mode n8n swaps it in after trigger() returns.
        if (watcher.state !== 'stopped') this.emit([[item]]);
      } catch (err) {
        this.saveFailedExecution(fail(err));
      }
    };
    // With Clips, every clip is an item whatever Events says (as the command line prints it); its
    // file goes once the item holds the video, unless Keep Clip Files.
    const deliverClip = async (event: ClipEvent): Promise<void> => {
      try {
        if (!started) return;
        const item = await clipItem(this, event);
        if (watcher.state !== 'stopped') this.emit([[item]]);
      } catch (err) {
        this.saveFailedExecution(fail(err));
      } finally {
        if (!keepClips) await removeClipFile(event);
      }
    };
    watcher.on('clip', (e) => void deliverClip(e));
    watcher.on('match', (e) => void deliver(e));
    watcher.on('unknown', (e) => void deliver(e));
    watcher.on('arrived', (e) => void deliver(e));
    watcher.on('left', (e) => void deliver(e));
    watcher.on('status', (e) => {
      if (e.state !== 'stopped') void deliver(e);
      else if (started && e.reason === 'session_lost') this.emitError(withSource(fail(e.error ?? new Error('the watcher stopped')), 'session'));
    });
    // A failure of one stream's analysis, of the visitor book or of the people table (read at the
    // start too: the watch goes on with the people last read) is one failed execution; the
    // session's own failure ends in 'stopped' (emitError above).
    watcher.on('error', ({ error, source }) => {
      if (source === 'visitors' || source === 'people' || (started && source !== 'session')) this.saveFailedExecution(withSource(fail(error), source));
    });

    // The start waits for the first join: a bad room, collection or credential fails it here.
    const start = async (): Promise<void> => {
      try {
        await watcher.start();
      } catch (err) {
        await closeFunction();
        throw fail(err);
      }
      started = true;
    };
    // "Listen for test event": n8n starts the watch, takes the first event and closes the trigger.
    if (this.getMode() === 'manual') return { closeFunction, manualTriggerFunction: start };
    await start();
    return { closeFunction };
  }
}

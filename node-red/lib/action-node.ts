import type { Node, NodeAPI, NodeDef, NodeMessageInFlow } from 'node-red';
import { InputError } from '../../shared/errors';
import type { ServiceConnection } from './connection';
import { failureText, flowError } from './flow-error';

/** The config node as the flow nodes see it. */
export interface ServiceConfigNode extends Node {
  connection: ServiceConnection;
}

/** Settings every flow node has: its config node. */
export interface ServiceNodeDef extends NodeDef {
  service: string;
}

/** A message as a flow node reads it: any property may be there. */
export type FlowMessage = NodeMessageInFlow & Record<string, unknown>;

/** What one input message hands to a node's operation. */
export interface ActionContext<D extends ServiceNodeDef> {
  def: D;
  msg: FlowMessage;
  connection: ServiceConnection;
  RED: NodeAPI;
  /** Aborted when the node closes. */
  signal: AbortSignal;
}

/** What an operation gives back: the payload, extra message properties, and a short status text. */
export interface ActionResult {
  payload: unknown;
  properties?: Record<string, unknown>;
  status: string;
}

/** What a list gives: the list, its count in msg.count (beside `properties`), "N <noun>(s)" on the status. */
export function listResult(list: readonly unknown[], noun: string, properties: Record<string, unknown> = {}): ActionResult {
  return { payload: list, properties: { ...properties, count: list.length }, status: `${list.length} ${noun}(s)` };
}

/** What a create gives: what was made, and its id in msg[key]. */
export function createdResult(payload: unknown, key: string, id: string): ActionResult {
  return { payload, properties: { [key]: id }, status: 'created' };
}

/** Deletes by id, then gives the id in the payload (with `deleted: true`) and in msg[key]. */
export async function deleteById(key: string, id: string, remove: (id: string) => Promise<void>): Promise<ActionResult> {
  await remove(id);
  return { payload: { [key]: id, deleted: true }, properties: { [key]: id }, status: 'deleted' };
}

/** Looks up the config node a flow node names; undefined when none is set or it is missing. */
export function serviceConnection(RED: NodeAPI, id: string | undefined): ServiceConnection | undefined {
  if (!id) return undefined;
  const config = RED.nodes.getNode(id) as ServiceConfigNode | null;
  return config?.connection;
}

/**
 * Registers a flow node type that runs one operation per input message. The node registers
 * with its config node, shows a busy / done / failed status, hands failures to done() (so Catch
 * nodes see them with the error's safe fields) and deregisters on close.
 */
export function registerActionNode<D extends ServiceNodeDef>(
  RED: NodeAPI,
  type: string,
  busyText: string,
  run: (ctx: ActionContext<D>) => Promise<ActionResult>,
): void {
  function ActionNode(this: Node, def: D): void {
    RED.nodes.createNode(this, def);
    const node: Node = this; // eslint-disable-line @typescript-eslint/no-this-alias -- the handlers below are arrow functions of fixed arity
    const connection = serviceConnection(RED, def.service);
    const closing = new AbortController();
    if (connection) connection.register(node);
    else node.status({ fill: 'red', shape: 'ring', text: 'no service config' });

    node.on('input', (msg, send, done) => {
      if (!connection) {
        done(flowError(new InputError('invalid_input', `${type} needs a vision-streaming-config node`, { field: 'service', limit: 'a configured service' })));
        return;
      }
      node.status({ fill: 'blue', shape: 'dot', text: busyText });
      const ctx: ActionContext<D> = { def, msg: msg as FlowMessage, connection, RED, signal: closing.signal };
      let result: Promise<ActionResult>;
      try {
        result = run(ctx);
      } catch (err) {
        result = Promise.reject(err);
      }
      result.then(
        (out) => {
          if (closing.signal.aborted) return done();
          connection.report();
          Object.assign(msg, out.properties);
          msg.payload = out.payload;
          node.status({ fill: 'green', shape: 'dot', text: out.status });
          send(msg);
          done();
        },
        (err: unknown) => {
          if (closing.signal.aborted) return done();
          connection.report(err);
          node.status({ fill: 'red', shape: 'ring', text: failureText(err) });
          done(flowError(err));
        },
      );
    });

    node.on('close', (_removed: boolean, done: () => void) => {
      closing.abort();
      const left = connection ? connection.deregister(node) : Promise.resolve();
      left.then(done, done);
    });
  }
  RED.nodes.registerType(type, ActionNode);
}

/** A message property that overrides a node setting when present (not undefined, null or ''). */
export function override<T>(msg: FlowMessage, key: string, setting: T): unknown {
  const value = msg[key];
  return value === undefined || value === null || value === '' ? setting : value;
}

/** The operation to run: msg.operation over the node's setting (or `fallback`), one of `operations`. */
export function pickOperation<O extends string>(msg: FlowMessage, setting: string | undefined, fallback: O, operations: readonly O[]): O {
  const operation = override(msg, 'operation', setting || fallback);
  if (!operations.includes(operation as O)) {
    throw new InputError('invalid_input', `operation must be one of ${operations.join(', ')}; got ${JSON.stringify(String(operation)).slice(0, 40)}`, { field: 'operation', limit: operations.join(' | ') });
  }
  return operation as O;
}

/** A number setting from the editor ('' = not set). */
export function optionalNumber(value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return typeof value === 'number' ? value : Number(value);
}

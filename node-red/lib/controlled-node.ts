import type { Node } from 'node-red';
import type { FlowMessage } from './action-node';
import type { ServiceConnection } from './connection';
import { isClientError } from '../../shared/errors';
import { failureText, flowError } from './flow-error';

/** A node's owner of one long-lived thing (a watcher, a camera): started, switched and stopped by messages. */
export interface NodeControl {
  /** Acts on a control message (or the deploy's start). */
  apply(msg: FlowMessage): Promise<void>;
  /** Shows a failure on the node and hands it to Catch nodes. */
  report(err: unknown): void;
  /** Stops for good (the node closes). */
  close(): Promise<void>;
}

/**
 * Wires a node to its control, as every long-lived node of the package is wired: registered with the
 * config node's connection, started on deploy with `start` (else a grey ring), each input message
 * handed to the control (its failure to Catch nodes), and closed with the node before it deregisters.
 */
export function wireControl(node: Node, connection: ServiceConnection, control: NodeControl, start: FlowMessage | undefined): void {
  connection.register(node);
  if (start) control.apply(start).catch((err: unknown) => control.report(err));
  else node.status({ fill: 'grey', shape: 'ring', text: 'stopped' });
  // The runtime reads the handlers' arity: (msg, send, done) and (removed, done) exactly.
  node.on('input', (msg, _send, done) => {
    control.apply(msg as FlowMessage).then(
      () => done(),
      (err: unknown) => done(flowError(err)),
    );
  });
  node.on('close', (_removed: boolean, done: () => void) => {
    control
      .close()
      .then(() => connection.deregister(node))
      .then(done, done);
  });
}

/** True for a control message that says stop. */
export function isStop(msg: FlowMessage): boolean {
  return typeof msg.payload === 'string' && msg.payload.trim().toLowerCase() === 'stop';
}

/** True when a start ended because its owner stopped it (a stop message, the node closing): no failure. */
export function stoppedByOwner(err: unknown): boolean {
  return isClientError(err) && err.code === 'stopped';
}

/**
 * Starts a node's long-lived thing. A start that fails stops it and calls `failed` (the node lets go
 * of it); unless its owner ended the start (the node closed, a stop message), the failure shows on
 * the node (a red ring, the config node's connection) and is thrown for the caller to hand to Catch
 * nodes (done(err) for a message, report() on deploy).
 */
export async function startShown(node: Node, connection: ServiceConnection, thing: { start(): Promise<unknown>; stop(): Promise<void> }, o: { closed: () => boolean; failed: () => void }): Promise<void> {
  try {
    await thing.start();
    connection.report();
  } catch (err) {
    o.failed();
    await thing.stop().catch(() => undefined);
    // A ring now would land on the redeployed node or hide the stop's grey one.
    if (o.closed() || stoppedByOwner(err)) return;
    connection.report(err);
    node.status({ fill: 'red', shape: 'ring', text: failureText(err) });
    throw err;
  }
}

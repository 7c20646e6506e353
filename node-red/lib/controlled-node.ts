import type { Node } from 'node-red';
import type { FlowMessage } from './action-node';
import type { ServiceConnection } from './connection';
import { isClientError } from '../../shared/errors';
import { flowError } from './flow-error';

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

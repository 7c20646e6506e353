/** Connections a host holds for a credential set: one pool, one token source and the clients, reference-counted. */
export { acquireConnection, type ConnectionLease, type ConnectionSettings } from './lease';

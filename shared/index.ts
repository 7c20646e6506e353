/** Public API of the core client: host-agnostic, shared by the n8n and Node-RED nodes. */
export { ApiError, InputError, isClientError, type ApiErrorInit } from './errors';
export * from './auth';
export * from './http';
export * from './image';
export * from './vision';

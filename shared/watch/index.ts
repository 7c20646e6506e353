/** The face watcher: a live room in, face events out (plus the errors and token seams every entry point carries). */
export * from '../common';
export { FaceWatcher } from './face-watcher';
export type { WatchOptions } from './options';
export { WATCH_OPTIONS, type OptionSpec, type OptionHosts, type WatchOptionName } from './option-table';
export type { WatchEvent, WatchEventName, MatchEvent, UnknownEvent, StatusEvent, ErrorEvent, LeftEvent, StatusCounts, WatchState, StopReason, WatcherEvents } from './events';
export type { WatchStats, StreamStats, StreamCounters } from './stats';
export type { Box } from './geometry';
export { WatchError } from './errors';
export { MemoryVisitorStore, type VisitorStore, type VisitorDocument, type VisitorRecord } from './visitors';
export { setReceiveWorkers, receiveWorkers, type ReceiveWorkerInfo } from '../signaling/receive-pool';

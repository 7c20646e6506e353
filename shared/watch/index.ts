/** The face watcher: a live room in, face events out. */
export { FaceWatcher } from './face-watcher';
export type { WatchOptions } from './options';
export type { WatchEvent, WatchEventName, MatchEvent, UnknownEvent, StatusEvent, ErrorEvent, StatusCounts, WatchState, WatcherEvents } from './events';
export type { WatchStats, StreamStats, StreamCounters } from './stats';
export type { Box } from './geometry';
export { WatchError } from './errors';

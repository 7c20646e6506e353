/** The face watcher: a live room in, face events out (plus the errors and token seams every entry point carries). */
export * from '../common';
export { FaceWatcher } from './face-watcher';
export type { WatchOptions } from './options';
export { WATCH_OPTIONS, type OptionSpec, type WatchOptionName, type OptionValues, type OptionValueOf, type ResolvedOptionValues } from './option-table';
export type { WatchEvent, WatchEventName, MatchEvent, UnknownEvent, ArrivedEvent, StatusEvent, ErrorEvent, ErrorSource, LeftEvent, LeftReason, PresentEntry, FaceQuality, VisitKind, StatusCounts, WatchState, StopReason, WatcherEvents } from './events';
export type { WatchStats, StreamStats, StreamCounters } from './stats';
export type { Box } from './geometry';
export { WatchError, WATCH_ERROR_CODES, type WatchErrorCode } from './errors';
export { VisitorError, VISITOR_ERROR_CODES, isVisitorErrorCode, type VisitorErrorCode } from './visitor-errors';
export { MemoryVisitorStore, type VisitorStore, type VisitorDocument, type VisitorRecord } from './visitors';
export { PeopleDirectory, MemoryPeopleStore, PeopleIndex, PeopleError, personVerdict, DEFAULT_CLOSEST_BAR, type PeopleStore, type PeopleDocument, type Person, type PersonFace, type PersonRef, type PersonVerdict, type Closest } from '../people';
export { setReceiveWorkers, receiveWorkers, type ReceiveWorkerInfo } from '../signaling/receive-pool';

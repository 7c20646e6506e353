/** The face watcher: a live room in, face events out (plus the errors and token seams every entry point carries). */
export * from '../common';
export { FaceWatcher } from './face-watcher';
export type { WatchOptions } from './options';
export { WATCH_OPTIONS, type OptionSpec, type WatchOptionName, type OptionValues, type OptionValueOf, type ResolvedOptionValues } from './option-table';
export type { WatchEvent, WatchEventName, MatchEvent, UnknownEvent, ArrivedEvent, StatusEvent, ErrorEvent, ErrorSource, LeftEvent, LeftReason, PresentEntry, PreRollEntry, VisitOf, FaceQuality, VisitKind, StatusCounts, WatchState, StopReason, WatcherEvents, TracksEvent, TrackBox, TrackVerdict } from './events';
export { EVENT_FIELDS, QUALITY_FIELDS, PRESENT_FIELDS, COUNT_FIELDS, TRACKS_FIELDS, TRACK_BOX_FIELDS, fieldList, type EventField, type FieldDocs } from './event-fields';
export type { WatchStats, StreamStats, StreamCounters } from './stats';
export type { ClipEvent, ClipTrigger, ClipErrorCode, ClipEndReason } from '../clips/events';
export type { ClipContainer } from '../clips/mux';
export type { PreRollStats } from '../clips/pre-roll';
export type { Box } from './geometry';
export { WatchError, WATCH_ERROR_CODES, type WatchErrorCode } from './errors';
export { VisitorError, VISITOR_ERROR_CODES, isVisitorErrorCode, type VisitorErrorCode } from './visitor-errors';
export { MemoryVisitorStore, type VisitorStore, type VisitorDocument, type VisitorRecord } from './visitors';
export {
  PeopleDirectory,
  MemoryPeopleStore,
  PeopleIndex,
  PeopleError,
  PEOPLE_ERROR_CODES,
  COLLECTION_CAPACITY,
  personVerdict,
  DEFAULT_CLOSEST_BAR,
  readPeople,
  sealPeople,
  emptyPeople,
  checkName,
  type PeopleErrorCode,
  type PeopleDirectoryOptions,
  type PeopleStore,
  type PeopleDocument,
  type Person,
  type PersonFace,
  type PersonRef,
  type PersonSummary,
  type PersonVerdict,
  type Closest,
  type FaceSource,
  type PeopleList,
  type PhotoResult,
  type AddPersonInput,
  type AddPersonResult,
  type AddFaceInput,
  type AddFaceResult,
  type ForgetReceipt,
  type RemoveFaceResult,
  type MergeResult,
  type ImportResult,
} from '../people';
export { HistoryRecorder, HistoryRecorderError, type HistoryRecorderErrorCode, type HistoryRecorderOptions, type HistoryStatus } from '../history/recorder';
export type { HistoryOption } from '../history/option';
export { searchByFace, type FaceSearchInput, type FaceWho } from '../history/face-search';
export type { HistoryStore, HistoryQuery, HistoryPage, VisitRecord, VisitEventRecord, MediaRef, MediaKind, EraseReceipt, SweepReceipt, RetentionPolicy } from '../history/types';
export { setReceiveWorkers, receiveWorkers, type ReceiveWorkerInfo } from '../signaling/receive-pool';
export { setWeriftSpeedups, disableWeriftSpeedups } from '../signaling/werift-speedups/status';

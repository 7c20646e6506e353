/**
 * Public API of the package root: the clients, the signaling session, the publisher, errors and
 * types. Hosts that need only one service import `<package>/vision` or `<package>/streaming`,
 * which do not load werift.
 */
export * from './common';
export { acquireConnection, type ConnectionLease, type ConnectionSettings } from './connection';
export {
  VisionClient,
  VisionApi,
  downloadImage,
  MAX_IMAGE_BYTES,
  MAX_IMAGE_PIXELS,
  type VisionClientOptions,
  type DownloadLimits,
  type DownloadOptions,
  type ImageInput,
  type ImageMime,
} from './vision';
export type * from './vision/types';
export {
  StreamingClient,
  StreamingApi,
  type StreamingClientOptions,
  type StreamingCallOptions,
  type Room,
  type RoomState,
  type Ticket,
  type TicketDirection,
} from './streaming';
export {
  SignalingSession,
  SignalingError,
  type SessionOptions,
  type SessionEvents,
  type RejoinPolicy,
  type ConnectedInfo,
  type RejoiningInfo,
  type RejoinAdvice,
  type CloseReason,
  type SignalingErrorCode,
  type Role,
  type VideoSettings,
  type AudioSettings,
  type AudioCodec,
} from './signaling';
export { setReceiveWorkers, receiveWorkers, type ReceiveWorkerInfo } from './signaling/receive-pool';
export { setWeriftSpeedups, disableWeriftSpeedups } from './signaling/werift-speedups/status';
export type { EncodedFrame, VideoCodec } from './frames';
export {
  Publisher,
  openVideoSource,
  IvfFileSource,
  StaggeredSource,
  AnnexBFileSource,
  FfmpegSource,
  type PublisherOptions,
  type PublisherEvents,
  type PublisherStats,
  type OpenSourceOptions,
  type VideoSource,
  type SourceFrame,
  type FileSourceOptions,
  type EncodeSettings,
  type FfmpegInput,
  type FfmpegSourceOptions,
} from './publish';
export {
  CameraPublisher,
  maskUrl,
  type CameraOptions,
  type CameraSettings,
  type CameraState,
  type CameraStatus,
} from './publish';
export { PublishError, type PublishErrorCode } from './publish/errors';
export { findFfmpeg, FfmpegNotFoundError, type FfmpegLookup } from './media';
export {
  FaceWatcher,
  WatchError,
  type WatchOptions,
  type WatchEvent,
  type MatchEvent,
  type UnknownEvent,
  type StatusEvent,
  type ErrorEvent,
  type WatchStats,
} from './watch';
export {
  PeopleDirectory,
  MemoryPeopleStore,
  PeopleIndex,
  PeopleError,
  personVerdict,
  type PeopleStore,
  type PeopleDocument,
  type Person,
  type PersonFace,
  type PersonRef,
  type PersonVerdict,
} from './people';
export { roomEntries, collectionEntries, checkUuid, isUuid, UUID_PATTERN, type PickEntry } from './pick';

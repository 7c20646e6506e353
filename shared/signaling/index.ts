export {
  SignalingSession,
  type SessionOptions,
  type SessionEvents,
  type RejoinPolicy,
  type ConnectedInfo,
  type RejoiningInfo,
  type StreamAddedInfo,
  type RemoteStreamInfo,
  type ListenerErrorInfo,
} from './session';
export { SignalingConnection, type ConnectionOptions, type ConnectionEvents, type ConnectionTimeouts } from './connection';
export { SignalingError, CLOSE_REASONS, errorFromClose, isCloseReason, type CloseReason, type SignalingErrorCode, type RejoinAdvice, type SignalingErrorInit, type SignalingErrorDetails } from './close-reasons';
export { resolveConnectSettings, type ConnectSettings, type Role, type VideoSettings, type AudioSettings, type AudioCodec } from './connect';
export { rejoinDelay, type BackoffPolicy } from './backoff';
export { disableWeriftSpeedups, setWeriftSpeedups, weriftSpeedupsStatus, TESTED_WERIFT_VERSIONS, WERIFT_SPEEDUPS_ENV, type WeriftSpeedupsStatus } from './werift-speedups';
export { ThreadSession, type ThreadSessionOptions } from './session-thread';
export { setReceiveWorkers, receiveWorkers, receivePool, RECEIVE_WORKERS_ENV, type ReceivePool, type ReceiveWorkerInfo } from './receive-pool';

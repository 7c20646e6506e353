export type { EncodedFrame, VideoCodec } from './types';
export { FrameAssembler, type FrameAssemblerOptions, type KeyframeReason } from './assembler';
export { joinVp8Payloads, parseVp8Frame, type Vp8FrameInfo } from './vp8';
export { parseVp9Frame, type Vp9FrameInfo } from './vp9';
export { H264ParameterCache, type H264AccessUnit } from './h264';
export { parseSps, type SpsInfo } from './h264-sps';
export { splitAnnexB, joinAnnexB, nalType } from './annexb';
export { AccessUnitSplitter } from './access-units';
export { IvfReader, ivfFileHeader, ivfFrame, type IvfHeader, type IvfFrame } from './ivf';

import type { WatchOptionName } from '../shared/watch/option-table';

/** How the command line offers an option: its flag (without --) and what its value looks like; none for a switch. */
export interface OptionFlag {
  flag: string;
  value?: string;
}

/**
 * The flags of the watcher's options, in the order --help lists them (the table's). Each is also
 * read from the environment variable VS_ + the flag in upper snake case. Options not named here
 * are not offered.
 */
export const CLI_FLAGS = {
  events: { flag: 'events', value: 'LIST' },
  threshold: { flag: 'threshold', value: 'N' },
  cooldownSeconds: { flag: 'cooldown', value: 'SECONDS' },
  fps: { flag: 'fps', value: 'N' },
  budgetPerSecond: { flag: 'budget', value: 'N' },
  labels: { flag: 'labels', value: 'FILE' },
  rememberVisitors: { flag: 'remember-visitors' },
  visitorRetentionDays: { flag: 'visitor-retention-days', value: 'N' },
  maxVisitors: { flag: 'max-visitors', value: 'N' },
  leftAfterSeconds: { flag: 'left-after', value: 'SECONDS' },
  cooldownScope: { flag: 'cooldown-scope', value: 'stream|room' },
  streams: { flag: 'streams', value: 'ID,ID' },
  ignore: { flag: 'ignore', value: 'NAME,...' },
  changeThreshold: { flag: 'change-threshold', value: 'N' },
  minFaceSize: { flag: 'min-face-size', value: 'PX' },
  drawBoxes: { flag: 'boxes' },
  tracks: { flag: 'tracks' },
  stillEverySeconds: { flag: 'still-every', value: 'SECONDS' },
  preRollSeconds: { flag: 'pre-roll', value: 'SECONDS' },
  postRollSeconds: { flag: 'post-roll', value: 'SECONDS' },
  maxClipSeconds: { flag: 'max-clip', value: 'SECONDS' },
  clipOn: { flag: 'clip-on', value: 'LIST' },
  decoder: { flag: 'decoder', value: 'auto|ffmpeg|wasm' },
  codec: { flag: 'codec', value: 'VP8|VP9|H264' },
} as const satisfies Partial<Record<WatchOptionName, OptionFlag>>;

/** The flag of an option, or undefined when the command line does not offer it. */
export function cliFlag(name: WatchOptionName): OptionFlag | undefined {
  return (CLI_FLAGS as Partial<Record<WatchOptionName, OptionFlag>>)[name];
}

/** A flag's variable: VS_ and the flag in upper snake case. */
export function envOf(flag: string): string {
  return `VS_${flag.toUpperCase().replace(/-/g, '_')}`;
}

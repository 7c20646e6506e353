import { resolveWatchOptions, type ResolvedWatchOptions, type WatchOptions } from '../../../shared/watch/options';
import { StreamMeter } from '../../../shared/watch/stats';
import type { StreamWatch } from '../../../shared/watch/stream-watch';

/** Resolved watcher options with the defaults, for parts that only read options (no client is contacted). */
export function watchOptions(options: Partial<WatchOptions> = {}): ResolvedWatchOptions {
  return resolveWatchOptions({ vision: {} as never, streaming: {} as never, roomId: 'room-1', collectionId: 'collection-1', loopbackOnly: true, ...options });
}

/** What the reporter reads of a stream: its meter. */
export function meteredStream(): StreamWatch {
  return { meter: new StreamMeter() } as unknown as StreamWatch;
}

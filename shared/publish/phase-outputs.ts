// ffmpeg output options for a video encoded N times side by side with staggered key frames (see
// KeyFramePhases): one decode and one filter chain, split into N encoders, each written to a pipe.

/** The file descriptor ffmpeg writes phase i to: stdout, then 3, 4, ... */
export function phaseFd(i: number): number {
  return i === 0 ? 1 : i + 2;
}

/** How many phases a key-frame interval of `every` frames can hold (each needs a frame of its own). */
export function phaseCount(phases: number | undefined, every: number): number {
  return Math.max(1, Math.min(phases ?? 1, every));
}

/** Output options: one output filtered by `filters`, or a split into one mapped output per phase. */
export function phaseOutputs(filters: string, phases: number, perPhase: (i: number) => string[]): string[] {
  if (phases <= 1) return ['-an', '-vf', filters, ...perPhase(0), 'pipe:1'];
  const labels = Array.from({ length: phases }, (_, i) => `[p${i}]`);
  const outputs = labels.flatMap((label, i) => ['-map', label, ...perPhase(i), `pipe:${phaseFd(i)}`]);
  return ['-filter_complex', `[0:v]${filters},split=${phases}${labels.join('')}`, ...outputs];
}

/** Key frames of phase i of n at a fixed frame rate: every `every` frames, phase i offset by i/n of that. */
export function frameKeyFrames(every: number, i: number, n: number): string[] {
  if (i === 0) return ['-g', String(every), '-keyint_min', String(every)];
  // The encoder's own schedule kept out of the way (twice the interval); the forced ones set the phase.
  const offset = Math.round((i * every) / n);
  return ['-g', String(2 * every), '-force_key_frames', `expr:gte(n,n_forced*${every}+${offset})`];
}

/** Key frames of phase i of n for pictures at an irregular rate: one a second by time, phase i offset by i/n s. */
export function timeKeyFrames(i: number, n: number): string[] {
  const offset = Math.round((i / n) * 1000) / 1000;
  return ['-force_key_frames', i === 0 ? 'expr:gte(t,n_forced*1)' : `expr:gte(t,n_forced*1+${offset})`];
}

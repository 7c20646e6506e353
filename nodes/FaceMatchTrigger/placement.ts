import type { WatchOptionName } from '../../shared/watch/option-table';

/** Where an option sits: at the top level, under Options, or at the top level once Clips is on. */
export type N8nPlacement = 'main' | 'options' | 'clips';

/**
 * Where each watcher option sits among the trigger's parameters: at the top level ('main'), under
 * Options ('options'), or shown below Clips when it is on ('clips'). Options not named here are not
 * offered (the events are chosen by the trigger's own Events parameter).
 */
export const N8N_PLACEMENT = {
  threshold: 'main',
  cooldownSeconds: 'main',
  fps: 'main',
  budgetPerSecond: 'main',
  labels: 'main',
  rememberVisitors: 'options',
  visitorRetentionDays: 'options',
  maxVisitors: 'options',
  leftAfterSeconds: 'options',
  cooldownScope: 'options',
  streams: 'options',
  ignore: 'options',
  changeThreshold: 'options',
  minFaceSize: 'options',
  drawBoxes: 'options',
  preRollSeconds: 'clips',
  postRollSeconds: 'clips',
  maxClipSeconds: 'clips',
  clipOn: 'clips',
  decoder: 'options',
  codec: 'options',
} as const satisfies Partial<Record<WatchOptionName, N8nPlacement>>;

/** Where an option sits in the trigger, or undefined when the trigger does not offer it. */
export function n8nPlacement(name: WatchOptionName): N8nPlacement | undefined {
  return (N8N_PLACEMENT as Partial<Record<WatchOptionName, N8nPlacement>>)[name];
}

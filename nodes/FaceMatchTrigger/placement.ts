import type { WatchOptionName } from '../../shared/watch/option-table';

/**
 * Where each watcher option sits among the trigger's parameters: at the top level ('main') or
 * under Options ('options'). Options not named here are not offered (the events are chosen by the
 * trigger's own Events parameter).
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
  decoder: 'options',
  codec: 'options',
} as const satisfies Partial<Record<WatchOptionName, 'main' | 'options'>>;

/** Where an option sits in the trigger, or undefined when the trigger does not offer it. */
export function n8nPlacement(name: WatchOptionName): 'main' | 'options' | undefined {
  return (N8N_PLACEMENT as Partial<Record<WatchOptionName, 'main' | 'options'>>)[name];
}

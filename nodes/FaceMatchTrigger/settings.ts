import type { ITriggerFunctions } from 'n8n-workflow';
import { hostOptions, WATCH_OPTIONS, type HostValue, type OptionSpec, type WatchOptionName } from '../../shared/watch/option-table';
import type { WatchOptions } from '../../shared/watch';
import { triggerIdParameter } from '../common/locators';
import { n8nPlacement } from './placement';

type Settings = Omit<WatchOptions, 'vision' | 'streaming' | 'events'>;

/**
 * The watcher options of one activation, read from the node's parameters where the trigger
 * places them. Values are passed as they are: the core checks each one and names it.
 */
export function watcherSettings(ctx: ITriggerFunctions): Settings {
  const roomId = triggerIdParameter(ctx, 'roomId');
  const collectionId = triggerIdParameter(ctx, 'collectionId');
  const more = ctx.getNodeParameter('options', {}) as Record<string, unknown>;
  const read = (o: OptionSpec, where: 'main' | 'options'): unknown => (where === 'main' ? ctx.getNodeParameter(o.name, o.default) : more[o.name]);
  const values = WATCH_OPTIONS.flatMap((o): [WatchOptionName, HostValue | undefined][] => {
    const where = n8nPlacement(o.name);
    return where ? [[o.name, fromParameter(o, read(o, where))]] : [];
  });
  return { ...hostOptions(values), roomId, collectionId };
}

/** A parameter's value as the core takes it: lists from comma-separated text, labels from their rows. */
function fromParameter(o: OptionSpec, raw: unknown): HostValue | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (o.kind === 'list') {
    const items = String(raw)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    return items.length > 0 ? items : undefined;
  }
  if (o.kind === 'labels') {
    const rows = (raw as { label?: { id?: string; name?: string }[] }).label ?? [];
    return Object.fromEntries(rows.filter((r) => r.id).map((r) => [String(r.id).trim(), String(r.name ?? '')]));
  }
  // n8n stores numbers, booleans and choices as such; the core refuses anything else by name.
  return raw as HostValue;
}

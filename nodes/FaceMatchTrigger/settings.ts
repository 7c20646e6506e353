import type { ITriggerFunctions } from 'n8n-workflow';
import { hostOptions, WATCH_OPTIONS, type HostValue, type OptionSpec, type WatchOptionName } from '../../shared/watch/option-table';
import type { WatchOptions } from '../../shared/watch';
import { triggerIdParameter } from '../common/locators';
import { clipsFolder } from './clips';
import { n8nPlacement, type N8nPlacement } from './placement';

type Settings = Omit<WatchOptions, 'vision' | 'streaming' | 'events'>;

/**
 * The watcher options of one activation, read from the node's parameters where the trigger
 * places them. Values are passed as they are: the core checks each one and names it.
 */
export function watcherSettings(ctx: ITriggerFunctions): Settings {
  const roomId = triggerIdParameter(ctx, 'roomId');
  const collectionId = triggerIdParameter(ctx, 'collectionId');
  const more = ctx.getNodeParameter('options', {}) as Record<string, unknown>;
  const clips = clipsFolder(ctx);
  const read = (o: OptionSpec, where: N8nPlacement): unknown => (where === 'options' ? more[o.name] : ctx.getNodeParameter(o.name, o.default));
  const values = WATCH_OPTIONS.flatMap((o): [WatchOptionName, HostValue | undefined][] => {
    const where = n8nPlacement(o.name);
    // The clip settings are shown, and read, only with Clips on.
    return where && (where !== 'clips' || clips) ? [[o.name, fromParameter(o, read(o, where))]] : [];
  });
  return { ...hostOptions(values), roomId, collectionId, ...(clips ? { clips } : {}) };
}

/** A parameter's value as the core takes it: lists from comma-separated text, labels from their rows. */
function fromParameter(o: OptionSpec, raw: unknown): HostValue | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (o.kind === 'list') {
    // Picked from the choices (Clip On): the list as it is, empty too (the core names what it refuses).
    if (Array.isArray(raw)) return raw.map(String);
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

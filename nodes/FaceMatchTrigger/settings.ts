import type { ITriggerFunctions } from 'n8n-workflow';
import { WATCH_OPTIONS, type OptionSpec } from '../../shared/watch/option-table';
import type { WatchOptions } from '../../shared/watch';
import { triggerIdParameter } from '../common/locators';

type Settings = Omit<WatchOptions, 'vision' | 'streaming' | 'events'>;

/**
 * The watcher options of one activation, read from the node's parameters as the table places
 * them. Values are passed as they are: the core checks each one and names it.
 */
export function watcherSettings(ctx: ITriggerFunctions): Settings {
  const more = ctx.getNodeParameter('options', {}) as Record<string, unknown>;
  const settings: Record<string, unknown> = {
    roomId: triggerIdParameter(ctx, 'roomId'),
    collectionId: triggerIdParameter(ctx, 'collectionId'),
  };
  for (const o of WATCH_OPTIONS as readonly OptionSpec[]) {
    if (!o.hosts.n8n) continue;
    const raw = o.hosts.n8n === 'main' ? ctx.getNodeParameter(o.name, o.default) : more[o.name];
    const value = fromParameter(o, raw);
    if (value !== undefined) settings[o.name] = value;
  }
  return settings as unknown as Settings;
}

/** A parameter's value as the core takes it: lists from comma-separated text, labels from their rows. */
function fromParameter(o: OptionSpec, raw: unknown): unknown {
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
  return raw;
}

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { WIDGET_SOURCE } from './live-widget';

/**
 * Whether Dashboard 2.0 will find the live view's component in this Node-RED: it reads the user
 * directory's package.json and looks only at the dependencies named `node-red-dashboard-2-*`, so the
 * widget package must be listed there. Undefined when it cannot tell (no user directory or no
 * package.json to read): then nothing is said.
 */
export function widgetPackageListed(userDir: string | undefined): boolean | undefined {
  if (!userDir) return undefined;
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(path.join(userDir, 'package.json'), 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof manifest !== 'object' || manifest === null) return undefined;
  const m = manifest as { dependencies?: unknown };
  const deps = typeof m.dependencies === 'object' && m.dependencies !== null ? (m.dependencies as Record<string, unknown>) : {};
  return Object.hasOwn(deps, WIDGET_SOURCE.package);
}

/** The words the live node logs when the widget package is not where Dashboard 2.0 looks. */
export const WIDGET_MISSING = `The live view's widget is a package of its own that Dashboard 2.0 finds only when the user directory lists it: run "npm install ${WIDGET_SOURCE.package}" in the Node-RED user directory and restart Node-RED (until then the dashboard shows nothing for this node).`;

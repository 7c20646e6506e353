import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// n8n-core reads its folders and settings from the environment when its services are first built:
// this module is imported before n8n-core.
const userFolder = mkdtempSync(join(tmpdir(), 'n8n-engine-'));
process.env.N8N_USER_FOLDER = userFolder;
process.env.N8N_LOG_LEVEL ??= 'silent';
process.env.N8N_RUNNERS_ENABLED ??= 'false';
process.env.N8N_DIAGNOSTICS_ENABLED ??= 'false';

/** Removes the temporary n8n user folder; call once per test file in afterAll. */
export function removeUserFolder(): void {
  rmSync(userFolder, { recursive: true, force: true });
}

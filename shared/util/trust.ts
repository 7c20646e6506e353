import { constants, type Stats } from 'node:fs';

/** Group or others may write. */
const WRITABLE_BY_OTHERS = 0o022;

/** Why a file or folder is not trusted as ssh trusts its keys. */
export type TrustProblem = { kind: 'owner'; uid: number } | { kind: 'writable'; mode: string };

/**
 * Whether another user owns `stats` (root too unless `rootMayOwn`) or may write it: what could let
 * someone else plant what this command reads or writes there. Undefined when trusted, and where the
 * platform has no owners or modes (Windows, which has no O_NOFOLLOW either).
 */
export function trustProblem(stats: Stats, rootMayOwn = false): TrustProblem | undefined {
  const uid = process.getuid?.();
  if (uid === undefined || !constants.O_NOFOLLOW) return undefined;
  if (stats.uid !== uid && !(rootMayOwn && stats.uid === 0)) return { kind: 'owner', uid: stats.uid };
  if ((stats.mode & WRITABLE_BY_OTHERS) !== 0) return { kind: 'writable', mode: (stats.mode & 0o777).toString(8).padStart(4, '0') };
  return undefined;
}

import { checkPrivateFolder, fileFailure } from '../shared/util/private-folder';

export { fileFailure };

/**
 * Before the watch starts: the --snapshots folder exists (created mode 0700 when it does not: it
 * will hold pictures of people), is this user's and writable by no one else (as --visitors is
 * checked: another could read, replace or link away the pictures), and a file can really be
 * created in it; else an InputError naming --snapshots, so that no event has to go out without its files.
 */
export async function checkSnapshotFolder(folder: string): Promise<void> {
  await checkPrivateFolder(folder, '--snapshots', 'snapshots');
}

import { randomBytes } from 'node:crypto';
import { constants as fsConstants, lstatSync, type Stats } from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { SvcError } from '../errors.js';
import { ADAPTER_CODES } from './adapter-codes.js';

/**
 * Writes a file below a root directory (the sandbox, the outbox) so that it can never land
 * outside it, and so that a crash never leaves a partial file under the final name.
 *
 * - The root itself may be missing (it is created) but must not be a symbolic link: an agent that
 *   could swap `.svc/sandbox` for a link to `/` would otherwise own the whole disk. Its ancestors
 *   are the operator's business (macOS's `/var` is a link) and are not checked.
 * - Every component below the root is `lstat`ed: a symbolic link anywhere is refused, a
 *   non-directory parent is refused, and a target that is not a regular file is refused.
 * - The bytes go to a fresh temp file beside the target, opened `O_CREAT | O_EXCL | O_NOFOLLOW`
 *   (it cannot be a link planted in advance), fsynced, then renamed over the target. `rename`
 *   replaces a directory entry and follows no link at the destination, so even a link or hard
 *   link planted between check and rename is replaced, never written through. The directory is
 *   fsynced afterwards so the new entry survives a crash.
 *
 * Residual race: Node has no `openat`/`O_BENEATH`, so a process that can write below the root can
 * swap a checked parent directory for a link between the last check and the rename. The parents
 * are checked again after the temp file is written, which narrows the window; closing it needs a
 * root the agent cannot write to, which is the deployment rule in docs/adapters.md.
 *
 * The `lstat`s run synchronously: a delivery makes about a dozen, each a lookup of directory
 * entries the previous delivery just used, answered in microseconds, where each asynchronous one
 * costs a thread-pool round trip and waits behind the pool's fsyncs. What waits for the disk
 * (the syncs, the file itself) stays asynchronous.
 */

export type ConfinementArea = 'sandbox' | 'outbox';

export interface ConfinedTarget {
  area: ConfinementArea;
  /** Absolute path of the root directory. */
  root: string;
  /** Path below the root, one file name per segment, each already checked to be a plain name. */
  segments: readonly string[];
}

const AREA_CODES = {
  sandbox: { symlink: ADAPTER_CODES.sandboxSymlink, notDirectory: ADAPTER_CODES.sandboxNotDirectory, targetNotFile: ADAPTER_CODES.sandboxTargetNotFile },
  outbox: { symlink: ADAPTER_CODES.outboxSymlink, notDirectory: ADAPTER_CODES.outboxNotDirectory, targetNotFile: ADAPTER_CODES.outboxTargetNotFile },
} as const;

/**
 * Checks what exists of the target's path now, creating nothing: the read-only check that runs
 * before the ActionPass is verified, so an unsafe target is refused before anything is written.
 */
export async function checkConfinedTarget(target: ConfinedTarget): Promise<void> {
  await checkComponents(target, target.segments.length);
}

/**
 * lstat of the root and the first `count` segments, stopping at the first that does not exist.
 * Every component is a directory except the full target's last, which must be a regular file.
 */
async function checkComponents(target: ConfinedTarget, count: number): Promise<void> {
  const codes = AREA_CODES[target.area];
  const rootStat = lstatIfPresent(target.root);
  if (rootStat === undefined) return;
  if (rootStat.isSymbolicLink()) throw new SvcError(codes.symlink, `the ${target.area} root is a symbolic link`);
  if (!rootStat.isDirectory()) throw new SvcError(codes.notDirectory, `the ${target.area} root is not a directory`);
  let current = target.root;
  for (const [index, segment] of target.segments.slice(0, count).entries()) {
    current = path.join(current, segment);
    const stat = lstatIfPresent(current);
    if (stat === undefined) return;
    const shown = target.segments.slice(0, index + 1).join('/');
    if (stat.isSymbolicLink()) throw new SvcError(codes.symlink, `${target.area} path "${shown}" is a symbolic link`);
    const isFile = index === target.segments.length - 1;
    if (!isFile && !stat.isDirectory()) throw new SvcError(codes.notDirectory, `${target.area} path "${shown}" is not a directory`);
    if (isFile && !stat.isFile()) throw new SvcError(codes.targetNotFile, `${target.area} path "${shown}" exists and is not a regular file`);
  }
}

/** Creates the missing directories and writes `bytes` to the target durably (see above). */
export async function writeConfined(target: ConfinedTarget, bytes: Buffer, mode: number): Promise<void> {
  const noFollow = fsConstants.O_NOFOLLOW;
  // Without O_NOFOLLOW (Windows) the temp file could be opened through a planted link: fail closed.
  if (noFollow === undefined) throw new SvcError(ADAPTER_CODES.writeFailed, 'this platform cannot open a file without following symbolic links');
  const codes = AREA_CODES[target.area];
  const fileName = target.segments.at(-1);
  if (fileName === undefined) throw new SvcError(codes.targetNotFile, `no file named below the ${target.area} root`);

  const changedDirectories = new Set<string>();
  // An existing root directory needs no mkdir; anything else goes through it, and fails as it does.
  const firstCreated = lstatIfPresent(target.root)?.isDirectory() === true ? undefined : await fsp.mkdir(target.root, { recursive: true, mode: 0o700 });
  if (firstCreated !== undefined) {
    for (let created = target.root; created.length >= firstCreated.length; created = path.dirname(created)) changedDirectories.add(path.dirname(created));
  }
  await checkComponents(target, 0);
  let directory = target.root;
  for (const [index, segment] of target.segments.slice(0, -1).entries()) {
    directory = path.join(directory, segment);
    // Whatever exists already is not created (mkdir's EEXIST was ignored): the check below judges it.
    if (lstatIfPresent(directory) === undefined) {
      try {
        await fsp.mkdir(directory, { mode: 0o700 });
        changedDirectories.add(path.dirname(directory));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    // Checked one level at a time, before descending: a link found here must not let the next
    // mkdir create a directory outside the root.
    await checkComponents(target, index + 1);
  }

  const temp = path.join(directory, `.svc-${randomBytes(8).toString('hex')}.tmp`);
  const handle = await fsp.open(temp, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | noFollow, mode);
  try {
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await checkConfinedTarget(target);
    await fsp.rename(temp, path.join(directory, fileName));
  } catch (error) {
    await fsp.rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
  changedDirectories.add(directory);
  for (const changed of changedDirectories) await fsyncDirectory(changed);
}

function lstatIfPresent(file: string): Stats | undefined {
  return lstatSync(file, { throwIfNoEntry: false });
}

async function fsyncDirectory(directory: string): Promise<void> {
  const handle = await fsp.open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

import { randomBytes } from 'node:crypto';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/** Makes a rename or a new file in `dir` durable: the directory entry itself is fsynced. */
export async function fsyncDirectory(dir: string): Promise<void> {
  if (process.platform === 'win32') return; // directories cannot be opened for fsync there
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Replaces `file` with `text` atomically and durably: a temp file beside it (exclusive create, the
 * exact `mode` whatever the umask), written, fsynced, renamed over it, then the directory fsynced.
 * A crash leaves the old content or the new, never half. Errors are thrown as they come, for the
 * caller to name; the temp file is removed.
 */
export async function replaceFileDurably(file: string, text: string, mode: number): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  let handle: FileHandle | undefined;
  try {
    handle = await open(temp, 'wx', mode);
    await handle.chmod(mode);
    await handle.writeFile(text, 'utf8');
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temp, file);
    await fsyncDirectory(dir);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/**
 * Reading evidence files as exactly what they are: a link could point the check at other bytes
 * than a later reader sees, and opening a FIFO waits for a writer forever.
 */

/** A file read whole, or why it was not: not a regular file (a link, a FIFO, a directory...), or too large. */
export type SmallFile = { ok: true; bytes: Buffer } | { ok: false; problem: string; tooLarge: boolean };

/**
 * Opens `path` only as a regular file: O_NOFOLLOW refuses a symbolic link and O_NONBLOCK keeps
 * the open of a FIFO from waiting for a writer forever, and the type is then checked on the open
 * descriptor, so the file checked is the file read. Undefined for anything but a regular file.
 */
export async function openRegular(path: string): Promise<{ handle: FileHandle; size: number } | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') return undefined;
    throw error;
  }
  const info = await handle.stat();
  if (info.isFile()) return { handle, size: info.size };
  await handle.close();
  return undefined;
}

/** Reads a regular file of at most `maxBytes` whole. */
export async function readRegularFile(path: string, maxBytes: number): Promise<SmallFile> {
  const opened = await openRegular(path);
  if (!opened) return { ok: false, problem: 'is not a regular file (a symbolic link, FIFO, directory or device)', tooLarge: false };
  const { handle, size } = opened;
  const tooLarge: SmallFile = { ok: false, problem: `is larger than ${maxBytes} bytes`, tooLarge: true };
  try {
    if (size > maxBytes) return tooLarge;
    // One byte more than measured, to see a file that grew meanwhile without reading all of it.
    const buffer = Buffer.alloc(size + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > size) return { ok: false, problem: 'grew while it was read', tooLarge: false };
    return { ok: true, bytes: buffer.subarray(0, length) };
  } finally {
    await handle.close();
  }
}

import fs from 'node:fs';
import { promisify } from 'node:util';

/**
 * The file operations the ledger writer performs, in one place. The writer only ever touches the
 * disk through this interface, so tests can inject EIO/ENOSPC into a real file system and record
 * the exact sequence of writes and syncs to replay power-loss states.
 */
export interface LedgerFs {
  open(path: string, flags: string, mode?: number): Promise<number>;
  /** Positional write of the whole buffer. */
  write(fd: number, buffer: Buffer, position: number): Promise<void>;
  read(fd: number, buffer: Buffer, position: number): Promise<number>;
  fdatasync(fd: number): Promise<void>;
  fsync(fd: number): Promise<void>;
  ftruncate(fd: number, length: number): Promise<void>;
  close(fd: number): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  /** Creates a directory and its missing parents; returns the first one created, if any. */
  mkdir(path: string): Promise<string | undefined>;
  /** Makes a directory entry change (create, rename) durable. */
  fsyncDirectory(path: string): Promise<void>;
}


/**
 * Writes and reads go to the page cache and take microseconds, so they run synchronously: a
 * thread-pool round trip costs more than the call. Only the syncs, which wait for the disk, are
 * asynchronous, so the event loop keeps serving (and sealing the next batch) meanwhile.
 */
export const nodeLedgerFs: LedgerFs = {
  open: (path, flags, mode) => promisify(fs.open)(path, flags, mode ?? 0o600),
  async write(fd, buffer, position) {
    for (let done = 0; done < buffer.length; ) done += fs.writeSync(fd, buffer, done, buffer.length - done, position + done);
  },
  async read(fd, buffer, position) {
    return fs.readSync(fd, buffer, 0, buffer.length, position);
  },
  fdatasync: promisify(fs.fdatasync),
  fsync: promisify(fs.fsync),
  ftruncate: (fd, length) => promisify(fs.ftruncate)(fd, length),
  close: promisify(fs.close),
  rename: promisify(fs.rename),
  mkdir: (path) => promisify(fs.mkdir)(path, { recursive: true, mode: 0o700 }),
  async fsyncDirectory(path) {
    const fd = await promisify(fs.open)(path, 'r');
    try {
      await promisify(fs.fsync)(fd);
    } finally {
      await promisify(fs.close)(fd);
    }
  },
};

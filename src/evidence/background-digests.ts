import { createHash } from 'node:crypto';
import { openRegular } from '../fs/regular-file.js';

/**
 * The sha256 digests of some regular files, read one after another in the background: the
 * verifier hashes a bundle's projection files on its main thread while the worker threads run
 * the ledger passes, instead of after them. Only the reading moves earlier; each digest (or the
 * error reading its file) is looked at where the check always looked at it.
 */
export class BackgroundDigests {
  private readonly digests = new Map<string, Promise<string | undefined>>();
  private last: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(paths: readonly string[]) {
    for (const path of paths) {
      // One file at a time, whatever happened to the one before.
      const digest = this.last.then(() => (this.stopped ? undefined : hashRegularFile(path, () => this.stopped)));
      this.last = digest.catch(() => undefined);
      this.digests.set(path, digest);
    }
  }

  /** The sha256 hex of one of the files; undefined when it is not a regular file. Rejects as reading it failed. */
  digest(path: string): Promise<string | undefined> {
    const digest = this.digests.get(path);
    if (digest === undefined) throw new RangeError(`${path} is not one of the files being hashed`);
    return digest;
  }

  /** Stops reading (the digests still pending are then meaningless) and waits until no file is open. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.last;
  }
}

/**
 * The sha256 hex of a regular file, read through one buffer; undefined when it is not a regular
 * file. A stream would allocate a buffer per read, and this thread, idle but for the hashing,
 * would collect them rarely: they would pile up beside the workers' heaps.
 */
async function hashRegularFile(path: string, stopped: () => boolean): Promise<string | undefined> {
  const opened = await openRegular(path);
  if (!opened) return undefined;
  const { handle } = opened;
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(READ_BYTES);
  try {
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0 || stopped()) break;
      hash.update(buffer.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
  return hash.digest('hex');
}

const READ_BYTES = 1 << 20;

import { createHash, type Hash } from 'node:crypto';
import { readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { openRegular } from '../fs/regular-file.js';
import { SINK_BUFFER_BYTES } from './hash-sink.js';
import type { ReplayedBytesReceiver } from './replay-pass.js';

/**
 * A bundle's projection file, read beside the replay of the same projection: each piece of
 * replayed bytes is compared with the file's bytes at the same place, and only the file's bytes
 * are hashed. Verification needs the file's digest (against the attestation) and whether the
 * replay equals the file; hashing both the file and the replay, 1.4 GB each per million records,
 * did the same work twice, where comparing costs a tenth of hashing.
 *
 * The digests come out as if both were hashed: while the replay and the file agree, the replay's
 * digest is the file's hash so far; at the first piece where they differ (or the file cannot be
 * read), the file's hash is copied to go on as the replay's. The file's bytes after the replay's
 * end are read only when its digest is asked for, as they were when the whole file was hashed.
 *
 * It never rejects or throws while the replay goes on: a file that is not a regular one, or that
 * fails to open or read, is found out where verification asks for its digest, after the ledger's
 * own checks, as before.
 */
export class ProjectionFileCheck implements ReplayedBytesReceiver {
  private readonly fileHash = createHash('sha256');
  /** The replay's own hash, from the first piece that differs from the file; until then the file's stands for it. */
  private replayHash: Hash | undefined;
  /** The file's bytes hashed so far, which the next read starts after. */
  private position = 0;
  private readonly scratch: Buffer;
  private readError: Error | undefined;

  private constructor(
    private readonly opened: { handle: FileHandle } | 'not_regular' | Error,
    scratch: Buffer,
  ) {
    this.scratch = scratch;
    if (!(typeof opened === 'object' && 'handle' in opened)) this.replayHash = createHash('sha256');
  }

  /** Opens `path` as a regular file (links and FIFOs are not followed or waited on); never rejects. */
  static async open(path: string): Promise<ProjectionFileCheck> {
    const scratch = Buffer.allocUnsafe(SINK_BUFFER_BYTES);
    try {
      const opened = await openRegular(path);
      return new ProjectionFileCheck(opened ? { handle: opened.handle } : 'not_regular', scratch);
    } catch (error) {
      return new ProjectionFileCheck(error as Error, scratch);
    }
  }

  /** The next replayed bytes, in order. */
  update(bytes: Uint8Array): void {
    let at = 0;
    while (at < bytes.length && this.replayHash === undefined) {
      const part = bytes.subarray(at, at + this.scratch.length);
      this.compare(part);
      at += part.length;
    }
    // Past the first difference only the replay's own hash is kept up; the file is read on (and
    // hashed) when its digest is asked for.
    if (at < bytes.length) this.replayHash?.update(bytes.subarray(at));
  }

  /** The sha256 hex of the replayed bytes (every piece given to `update`). */
  digest(): string {
    return (this.replayHash ?? this.fileHash.copy()).digest('hex');
  }

  /**
   * The sha256 hex of the whole file; undefined when it is not a regular file. Rejects as opening
   * or reading it failed. Reads the rest of the file from where the comparison stopped.
   */
  async fileDigest(): Promise<string | undefined> {
    const opened = this.opened;
    if (opened === 'not_regular') return undefined;
    if (opened instanceof Error) throw opened;
    if (this.readError) throw this.readError;
    for (;;) {
      const { bytesRead } = await opened.handle.read(this.scratch, 0, this.scratch.length, this.position);
      if (bytesRead === 0) break;
      this.fileHash.update(this.scratch.subarray(0, bytesRead));
      this.position += bytesRead;
    }
    return this.fileHash.digest('hex');
  }

  /** Closes the file; nothing else may be asked of it afterwards. */
  async close(): Promise<void> {
    if (typeof this.opened === 'object' && 'handle' in this.opened) await this.opened.handle.close();
  }

  /** Compares `part` (at most the scratch's length) with the file's next bytes, hashing them if equal. */
  private compare(part: Uint8Array): void {
    const fileBytes = this.readFile(part.length);
    if (fileBytes === undefined || !fileBytes.equals(part)) {
      // The position stays where the file's hash stopped: the bytes read here are read again.
      this.replayHash = this.fileHash.copy().update(part);
      return;
    }
    this.fileHash.update(fileBytes);
    this.position += fileBytes.length;
  }

  /**
   * Up to `length` bytes of the file from `position`, read synchronously: the replayed piece's slot
   * is freed only once it is compared, and this thread has nothing else to do meanwhile. Fewer
   * bytes at the end of the file; undefined when reading fails (the error waits for fileDigest).
   */
  private readFile(length: number): Buffer | undefined {
    const opened = this.opened as { handle: FileHandle };
    let read = 0;
    try {
      while (read < length) {
        const bytesRead = readSync(opened.handle.fd, this.scratch, read, length - read, this.position + read);
        if (bytesRead === 0) break;
        read += bytesRead;
      }
    } catch (error) {
      this.readError = error as Error;
      return undefined;
    }
    return this.scratch.subarray(0, read);
  }
}

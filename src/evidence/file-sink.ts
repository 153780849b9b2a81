import { createHash, type Hash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';

/**
 * Writes a file from many small pieces with few syscalls, and hashes it on the way. Writes are
 * synchronous on purpose: the producer is a synchronous replay, and buffering into 1 MiB writes
 * keeps memory flat without any back-pressure plumbing.
 */
export class FileSink {
  private readonly fd: number;
  private readonly hash: Hash = createHash('sha256');
  private pending: (string | Buffer)[] = [];
  private pendingBytes = 0;
  bytes = 0;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'wx', 0o644);
  }

  write(piece: string | Buffer): void {
    this.pending.push(piece);
    this.pendingBytes += piece.length;
    if (this.pendingBytes >= 1 << 20) this.flush();
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const bytes = Buffer.concat(this.pending.map((piece) => (typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece)));
    this.pending = [];
    this.pendingBytes = 0;
    this.hash.update(bytes);
    this.bytes += bytes.length;
    for (let done = 0; done < bytes.length; ) done += writeSync(this.fd, bytes, done);
  }

  /** Flushes, fsyncs and closes; returns the sha256 hex of everything written. */
  close(): string {
    this.flush();
    fsyncSync(this.fd);
    closeSync(this.fd);
    return this.hash.digest('hex');
  }
}

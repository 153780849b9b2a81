import { createHash, type Hash } from 'node:crypto';

/**
 * Hashes projection lines in large pieces: one hash update per row costs more than the row.
 * Lines are encoded straight into one reused buffer, so no intermediate strings are built.
 */
export class HashSink {
  private readonly hash: Hash = createHash('sha256');
  private readonly buffer = Buffer.allocUnsafe(1 << 18);
  private used = 0;
  /** UTF-8 bytes written so far. */
  length = 0;

  write(line: string): void {
    // A UTF-8 encoding takes at most 3 bytes per UTF-16 code unit.
    if (this.used + line.length * 3 > this.buffer.length) {
      this.flush();
      if (line.length * 3 > this.buffer.length) {
        this.hash.update(line);
        this.length += Buffer.byteLength(line);
        return;
      }
    }
    const written = this.buffer.write(line, this.used);
    this.used += written;
    this.length += written;
  }

  digest(): string {
    this.flush();
    return this.hash.digest('hex');
  }

  private flush(): void {
    this.hash.update(this.buffer.subarray(0, this.used));
    this.used = 0;
  }
}

import { createHash, type Hash } from 'node:crypto';

const NEWLINE = 0x0a;

/** The size of the buffers a sink fills (and hands off, full or at the end). */
export const SINK_BUFFER_BYTES = 1 << 18;

/** Where a sink that does not hash its bytes itself sends them, and where it takes buffers from. */
export interface SinkHandOff {
  /** Takes a piece of the bytes, in order; the sink never writes to its buffer again. */
  pass(bytes: Buffer): void;
  /** A buffer of SINK_BUFFER_BYTES bytes that nothing else uses until it is passed on. */
  fresh(): Buffer;
}

/**
 * Hashes projection lines in large pieces: one hash update per row costs more than the row.
 * Lines are encoded straight into one reused buffer, so no intermediate strings are built.
 *
 * With `handOff`, each full buffer is handed to it instead of hashed here, and a fresh one is
 * taken from it: the replay thread, the slower of verification's two workers, passes its
 * projection bytes to the main thread (which is mostly idle) to hash. The pieces handed off, in
 * order, are exactly the bytes written; `end` hands off the last of them.
 */
export class HashSink {
  private readonly hash: Hash | undefined;
  private buffer: Buffer;
  private used = 0;
  /** UTF-8 bytes written so far. */
  length = 0;

  constructor(private readonly handOff?: SinkHandOff) {
    this.hash = handOff === undefined ? createHash('sha256') : undefined;
    this.buffer = handOff === undefined ? Buffer.allocUnsafe(SINK_BUFFER_BYTES) : handOff.fresh();
  }

  write(line: string): void {
    // A UTF-8 encoding takes at most 3 bytes per UTF-16 code unit.
    if (this.used + line.length * 3 > this.buffer.length) {
      this.flush();
      if (line.length * 3 > this.buffer.length) {
        this.writeBytes(Buffer.from(line, 'utf8'));
        return;
      }
    }
    const written = this.buffer.write(line, this.used);
    this.used += written;
    this.length += written;
  }

  /** `write(`${text}\n`)`, without making that string: the text is encoded, then the newline byte added. */
  writeLine(text: string): void {
    // A UTF-8 encoding takes at most 3 bytes per UTF-16 code unit; one more for the newline.
    const room = text.length * 3 + 1;
    if (this.used + room > this.buffer.length) {
      this.flush();
      if (room > this.buffer.length) {
        this.writeBytes(Buffer.from(`${text}\n`, 'utf8'));
        return;
      }
    }
    const written = this.buffer.write(text, this.used);
    this.buffer[this.used + written] = NEWLINE;
    this.used += written + 1;
    this.length += written + 1;
  }

  /** The sha256 hex of everything written; only for a sink that hashes itself. */
  digest(): string {
    if (this.hash === undefined) throw new TypeError('a sink that hands its bytes off has no digest of its own');
    this.flush();
    return this.hash.digest('hex');
  }

  /** Hands off what is still buffered; only for a sink that hands its bytes off. */
  end(): void {
    if (this.hash !== undefined) throw new TypeError('a sink that hashes its bytes itself has nothing to hand off');
    this.flush();
  }

  private flush(): void {
    if (this.used === 0) return;
    const bytes = this.buffer.subarray(0, this.used);
    this.used = 0;
    if (this.handOff === undefined) (this.hash as Hash).update(bytes);
    else {
      // The buffer handed off is the receiver's now: never written to again.
      this.handOff.pass(bytes);
      this.buffer = this.handOff.fresh();
    }
  }

  /**
   * The next bytes, already UTF-8 (a view's bytes row, or a line longer than the buffer: an OTLP
   * line holds a thousand log records). Handed off, they go through the buffers like any other
   * bytes: handed off as they stand, they would be a large copy for the receiving thread to
   * collect, where the buffers are reused. Read at once: the caller may reuse them afterwards.
   */
  writeBytes(bytes: Uint8Array): void {
    this.length += bytes.length;
    if (this.hash !== undefined && bytes.length > this.buffer.length) {
      this.flush();
      this.hash.update(bytes);
      return;
    }
    for (let at = 0; at < bytes.length; ) {
      const copied = Math.min(bytes.length - at, this.buffer.length - this.used);
      this.buffer.set(bytes.subarray(at, at + copied), this.used);
      at += copied;
      this.used += copied;
      if (this.used === this.buffer.length) this.flush();
    }
  }
}

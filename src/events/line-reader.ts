import { open } from 'node:fs/promises';

/** One line of a ledger file as raw bytes, located by its byte offset. */
export interface RawLine {
  offset: number;
  /** The line without its `\n`. Valid only until the reader yields the next chunk. */
  bytes: Buffer;
  /** False for a final fragment with no `\n`, or a line cut at `maxLineBytes`. */
  terminated: boolean;
  /** True when the line was longer than `maxLineBytes` and reading stopped there. */
  oversized: boolean;
}

export interface ReadLinesOptions {
  /** Start at this byte offset, which must be the start of a line. */
  start?: number;
  /** Stop before this byte offset (a snapshot of a file that is still growing). */
  end?: number;
  maxLineBytes?: number;
  chunkBytes?: number;
  /** Called with the bytes consumed so far, once per chunk (for progress and for digests). */
  onChunk?: (chunk: Buffer) => void;
  /**
   * Read every chunk into the same buffer (a new one only for a line longer than it), for a
   * reader that keeps no line's bytes past its chunk, as RawLine allows. A fresh buffer per chunk
   * is memory outside the heap that the collector frees only when it finds the buffer dead: a
   * thread reading a whole ledger held 10-15 MB of read buffers that way.
   */
  reuseBuffer?: boolean;
}

export const MAX_LINE_BYTES = 1 << 20;

/**
 * Streams a file as raw lines in chunks. Memory stays bounded by the chunk size plus one line,
 * whatever the file size: a hostile line longer than `maxLineBytes` ends the stream with an
 * `oversized` line instead of being buffered.
 */
export async function* readLines(path: string, options: ReadLinesOptions = {}): AsyncGenerator<RawLine[]> {
  const maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
  const chunkBytes = options.chunkBytes ?? 1 << 20;
  const handle = await open(path, 'r');
  try {
    const end = options.end ?? (await handle.stat()).size;
    let carry: Buffer = Buffer.alloc(0);
    let reusable: Buffer | undefined;
    let position = options.start ?? 0;
    while (position < end) {
      // The unfinished line left from the last chunk goes first, then the file is read in after
      // it: only that line is copied, not the whole chunk.
      const size = carry.length + Math.min(chunkBytes, end - position);
      let buffer: Buffer;
      if (reusable !== undefined && reusable.length >= size) {
        // The carry lies in this very buffer (the last chunk's): moved to its start.
        buffer = reusable;
        const carryStart = carry.byteOffset - buffer.byteOffset;
        buffer.copyWithin(0, carryStart, carryStart + carry.length);
        carry = buffer.subarray(0, carry.length);
      } else {
        buffer = Buffer.allocUnsafe(size);
        carry.copy(buffer);
        if (options.reuseBuffer) reusable = buffer;
      }
      const { bytesRead } = await handle.read(buffer, carry.length, size - carry.length, position);
      if (bytesRead === 0) break;
      options.onChunk?.(buffer.subarray(carry.length, carry.length + bytesRead));
      const data = buffer.subarray(0, carry.length + bytesRead);
      const dataOffset = position - carry.length;
      position += bytesRead;
      const lines: RawLine[] = [];
      let start = 0;
      for (let newline = data.indexOf(10, start); newline !== -1; newline = data.indexOf(10, start)) {
        if (newline - start > maxLineBytes) break;
        lines.push({ offset: dataOffset + start, bytes: data.subarray(start, newline), terminated: true, oversized: false });
        start = newline + 1;
      }
      carry = data.subarray(start);
      if (carry.length > maxLineBytes) {
        lines.push({ offset: dataOffset + start, bytes: carry.subarray(0, maxLineBytes + 1), terminated: false, oversized: true });
        yield lines;
        return;
      }
      if (lines.length > 0) yield lines;
    }
    if (carry.length > 0) yield [{ offset: position - carry.length, bytes: carry, terminated: false, oversized: false }];
  } finally {
    await handle.close();
  }
}

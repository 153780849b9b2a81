import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readLines, type RawLine } from '../../src/events/line-reader.js';
import { tempDir } from '../support/ledger.js';

const dir = await tempDir('svc-lines-');

interface SeenLine {
  offset: number;
  text: string;
  terminated: boolean;
  oversized: boolean;
}

async function readAll(bytes: Buffer, options: Parameters<typeof readLines>[1]): Promise<SeenLine[]> {
  const path = join(dir, 'lines.txt');
  await writeFile(path, bytes);
  const seen: SeenLine[] = [];
  for await (const lines of readLines(path, options)) {
    // Copy at once: a line's bytes are valid only until the reader yields the next chunk.
    seen.push(...lines.map((line: RawLine) => ({ offset: line.offset, text: line.bytes.toString('latin1'), terminated: line.terminated, oversized: line.oversized })));
  }
  return seen;
}

/** What readLines must yield for `text` read from `start`, by splitting the whole string. */
function expectedLines(text: string, start: number, maxLineBytes: number): SeenLine[] {
  const expected: SeenLine[] = [];
  let offset = start;
  while (offset < text.length) {
    const newline = text.indexOf('\n', offset);
    const end = newline === -1 ? text.length : newline;
    if (end - offset > maxLineBytes) {
      expected.push({ offset, text: text.slice(offset, offset + maxLineBytes + 1), terminated: false, oversized: true });
      return expected;
    }
    expected.push({ offset, text: text.slice(offset, end), terminated: newline !== -1, oversized: false });
    offset = end + 1;
  }
  return expected;
}

describe('readLines', () => {
  it('yields every line with its byte offset, whatever the chunk size, the start and the line limit', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.string({ unit: fc.constantFrom('a', 'b', '\n'), maxLength: 40 }), fc.constant('\n')), { maxLength: 30 }),
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 1, max: 50 }),
        fc.nat(),
        async (pieces, chunkBytes, maxLineBytes, startPick) => {
          const text = pieces.join('');
          // A start is the beginning of a line: 0 or just after a newline.
          const starts = [0, ...[...text.matchAll(/\n/g)].map((match) => (match.index as number) + 1)];
          const start = starts[startPick % starts.length] as number;
          const seen = await readAll(Buffer.from(text, 'latin1'), { start, chunkBytes, maxLineBytes });
          expect(seen).toEqual(expectedLines(text, start, maxLineBytes));
        },
      ),
      { numRuns: 400, seed: 20261122 },
    );
  });

  it('yields the same lines and chunks reading into one reused buffer (reuseBuffer) as into a fresh one per chunk', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Lines shorter and longer than a chunk, an unterminated tail, lines past the limit.
        fc.array(fc.oneof(fc.string({ unit: fc.constantFrom('a', 'b', '\n'), maxLength: 40 }), fc.constant('\n'), fc.string({ unit: fc.constantFrom('c', 'd'), minLength: 60, maxLength: 200 })), { maxLength: 30 }),
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 1, max: 250 }),
        fc.nat(),
        async (pieces, chunkBytes, maxLineBytes, endPick) => {
          const text = pieces.join('');
          // Past the file's size too: the last read then finds nothing, and the tail is what was carried.
          const end = endPick % (text.length + 10);
          const chunks = { fresh: [] as string[], reused: [] as string[] };
          const fresh = await readAll(Buffer.from(text, 'latin1'), { end, chunkBytes, maxLineBytes, onChunk: (chunk) => chunks.fresh.push(chunk.toString('latin1')) });
          const reused = await readAll(Buffer.from(text, 'latin1'), { end, chunkBytes, maxLineBytes, reuseBuffer: true, onChunk: (chunk) => chunks.reused.push(chunk.toString('latin1')) });
          expect(reused).toEqual(fresh);
          expect(reused).toEqual(expectedLines(text.slice(0, end), 0, maxLineBytes));
          expect(chunks.reused).toEqual(chunks.fresh);
        },
      ),
      { numRuns: 400, seed: 20261127 },
    );
  });

  it('stops at `end` and reports the bytes it read, once each, through onChunk', async () => {
    const text = 'first\nsecond line\nthird\nfourth, unfinished';
    const chunks: string[] = [];
    const seen = await readAll(Buffer.from(text), { end: 18, chunkBytes: 4, onChunk: (chunk) => chunks.push(chunk.toString()) });
    expect(seen).toEqual(expectedLines(text.slice(0, 18), 0, 1 << 20));
    expect(chunks.join('')).toBe(text.slice(0, 18));
  });
});

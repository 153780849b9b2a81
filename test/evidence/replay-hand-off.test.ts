import { createHash } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { HashSink, SINK_BUFFER_BYTES } from '../../src/evidence/hash-sink.js';
import { digestReplayPass, type ReplayDigest, type ReplayDigestOptions } from '../../src/evidence/replay-pass.js';
import { SlotReader, SlotWriter, sinkSlotMemory, SLOT_COUNT } from '../../src/evidence/sink-slots.js';
import { PROJECTION_FILES } from '../../src/projections/replay.js';
import { appendSampleFlows, openLedger, tempDir } from '../support/ledger.js';

/**
 * verify-export's replay worker hands its projection bytes to the main thread to hash, through
 * slots of shared memory, instead of hashing them itself. These hold the new path to the old
 * one: the same bytes, digests, lengths and verdicts.
 */

// Text of every kind a projection line can hold: ASCII, multi-byte characters, lone surrogates
// (which UTF-8 writes as U+FFFD), and lines longer than a sink's buffer (an OTLP line holds a
// thousand log records), which the sink hands off through several buffers.
const lineArbitrary = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 300 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
  { weight: 1, arbitrary: fc.tuple(fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 30_000 })).map(([piece, times]) => piece.repeat(times)) },
);

describe('HashSink handing its bytes off through shared slots', () => {
  it('hands off exactly the bytes it would hash, in order, and counts the same length', () => {
    fc.assert(
      fc.property(fc.array(lineArbitrary, { maxLength: 60 }), fc.integer({ min: 1, max: 6 }), (lines, sinkCount) => {
        const memory = sinkSlotMemory();
        const writer = new SlotWriter(memory);
        const reader = new SlotReader(memory);
        const handedOff: Buffer[][] = Array.from({ length: sinkCount }, () => []);
        // The receiving side as the main thread runs it: read the slot, then free it (here at
        // once, so a sink that took every slot would wait forever: the test would hang).
        const sinks = handedOff.map(
          (pieces) =>
            new HashSink({
              pass: (bytes) => {
                const slot = writer.slotOf(bytes);
                expect(slot).toBeDefined();
                pieces.push(Buffer.from(reader.bytes(slot as number, bytes.length) as Uint8Array));
                reader.free(slot as number);
              },
              fresh: () => writer.take(),
            }),
        );
        const hashing = handedOff.map(() => new HashSink());
        lines.forEach((line, index) => {
          (sinks[index % sinkCount] as HashSink).write(line);
          (hashing[index % sinkCount] as HashSink).write(line);
        });
        sinks.forEach((sink) => sink.end());
        handedOff.forEach((pieces, index) => {
          const expected = Buffer.from(lines.filter((_, at) => at % sinkCount === index).join(''), 'utf8');
          const bytes = Buffer.concat(pieces);
          expect(bytes.equals(expected)).toBe(true);
          expect(pieces.every((piece) => piece.length > 0 && piece.length <= SINK_BUFFER_BYTES)).toBe(true);
          expect((sinks[index] as HashSink).length).toBe(expected.length);
          expect((hashing[index] as HashSink).length).toBe(expected.length);
          expect((hashing[index] as HashSink).digest()).toBe(createHash('sha256').update(bytes).digest('hex'));
        });
      }),
      { numRuns: 150 },
    );
  });

  it('a hashing sink hashes as before: the UTF-8 bytes of its lines, whatever their length', () => {
    fc.assert(
      fc.property(fc.array(lineArbitrary, { maxLength: 40 }), (lines) => {
        const sink = new HashSink();
        for (const line of lines) sink.write(line);
        const reference = createHash('sha256');
        for (const line of lines) reference.update(line);
        expect(sink.digest()).toBe(reference.digest('hex'));
        expect(sink.length).toBe(lines.reduce((sum, line) => sum + Buffer.byteLength(line), 0));
      }),
      { numRuns: 150 },
    );
  });
});

describe('shared sink slots', () => {
  it('gives out every slot once, then waits until one is freed, and names the slot of a buffer', () => {
    const memory = sinkSlotMemory();
    const writer = new SlotWriter(memory);
    const reader = new SlotReader(memory);
    const taken = Array.from({ length: SLOT_COUNT }, () => writer.take());
    const slots = taken.map((buffer) => writer.slotOf(buffer));
    expect(new Set(slots).size).toBe(SLOT_COUNT);
    expect(taken.every((buffer) => buffer.length === SINK_BUFFER_BYTES)).toBe(true);
    expect(writer.slotOf(Buffer.alloc(16))).toBeUndefined();
    expect(writer.slotOf((taken[0] as Buffer).subarray(1))).toBeUndefined();
    taken[3]?.write('abc');
    expect(Buffer.from(reader.bytes(slots[3] as number, 3) as Uint8Array).toString()).toBe('abc');
    expect(reader.bytes(SLOT_COUNT, 1)).toBeUndefined();
    expect(reader.bytes(0, SINK_BUFFER_BYTES + 1)).toBeUndefined();
    reader.free(slots[5] as number);
    expect(writer.slotOf(writer.take())).toBe(slots[5]);
  });
});

// The worker itself runs only compiled (runOnWorker falls back to this thread without it): the
// compiled module, which the unit tests' build (npm test) makes, hands off to it for real.
const compiled = new URL('../../dist/src/evidence/replay-pass.js', import.meta.url);

describe('the replay worker handing off its projection bytes', () => {
  let ledger: Buffer;
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir();
    const path = join(dir, 'ledger.jsonl');
    // Enough records (over 1,000) for an OTLP line longer than a sink's buffer.
    const writer = await openLedger(path, { checkpointEveryRecords: 100 });
    await appendSampleFlows(writer, 60);
    await writer.close();
    ledger = await readFile(path);
  });

  it('reports what the replay in this thread reports, on the ledger as written and tampered', async () => {
    const { digestReplayPassInWorker } = (await import(compiled.href)) as { digestReplayPassInWorker: (path: string, options: ReplayDigestOptions) => Promise<ReplayDigest> };
    const lines = ledger.toString('latin1').split('\n').slice(0, -1);
    expect(lines.length).toBeGreaterThan(1000);
    const tamper = fc.oneof(
      fc.constant((bytes: Buffer) => bytes),
      // A byte changed anywhere: bad JSON, a changed value, a cut line.
      fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })).map(([at, byte]) => (bytes: Buffer) => {
        const copy = Buffer.from(bytes);
        copy[at % copy.length] = byte;
        return copy;
      }),
      // A line dropped or repeated.
      fc.tuple(fc.nat(), fc.boolean()).map(([at, repeat]) => () => {
        const index = at % lines.length;
        const changed = [...lines.slice(0, index), ...(repeat ? [lines[index], lines[index]] : []), ...lines.slice(index + 1)];
        return Buffer.from(`${changed.join('\n')}\n`, 'latin1');
      }),
      // The file cut short.
      fc.nat().map((at) => (bytes: Buffer) => bytes.subarray(0, at % bytes.length)),
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(tamper, fc.constantFrom(undefined, 1 << 12, 1 << 16), async (change, chunkBytes) => {
        run += 1;
        const path = join(dir, `tampered-${run}.jsonl`);
        await writeFile(path, change(ledger));
        const options: ReplayDigestOptions = { end: (await stat(path)).size, projections: PROJECTION_FILES, ...(chunkBytes !== undefined && { chunkBytes }) };
        const handedOff = await digestReplayPassInWorker(path, options);
        expect(handedOff).toEqual(await digestReplayPass(path, options));
      }),
      { numRuns: 20 },
    );
  });
});

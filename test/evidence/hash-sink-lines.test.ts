import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LedgerRecord } from '../../src/events/catalogue.js';
import { HashSink } from '../../src/evidence/hash-sink.js';
import { runLedgerPass } from '../../src/evidence/ledger-pass.js';
import { digestReplayPass } from '../../src/evidence/replay-pass.js';
import { SlotReader, SlotWriter, sinkSlotMemory } from '../../src/evidence/sink-slots.js';
import { PROJECTION_FILES, Replay, type ByteProjectionSink } from '../../src/projections/replay.js';
import { appendSampleFlows, flowContext, openLedger, tempDir } from '../support/ledger.js';

/**
 * The replay hands a row serialized as one string to a sink with `writeLine` as its text alone,
 * and the sink adds the newline, instead of making `${text}\n`; and the replay pass decodes an
 * ASCII line as latin1. Both are held to the simple path: the same bytes.
 */

// Text of every kind: ASCII, multi-byte characters, lone surrogates (which UTF-8 writes as
// U+FFFD), and runs longer than a sink's buffer.
const textArbitrary = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 300 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
  { weight: 1, arbitrary: fc.tuple(fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 30_000 })).map(([piece, times]) => piece.repeat(times)) },
);

type Write = { kind: 'line' | 'text'; text: string } | { kind: 'bytes'; bytes: Buffer };

const writesArbitrary = fc.array(
  fc.oneof(
    textArbitrary.map((text): Write => ({ kind: 'line', text })),
    textArbitrary.map((text): Write => ({ kind: 'text', text })),
    textArbitrary.map((text): Write => ({ kind: 'bytes', bytes: Buffer.from(text, 'utf8') })),
  ),
  { maxLength: 50 },
);

/** `write` for a line, the simple path writeLine replaces. */
function writeSimply(sink: HashSink, write: Write): void {
  if (write.kind === 'bytes') sink.writeBytes(write.bytes);
  else sink.write(write.kind === 'line' ? `${write.text}\n` : write.text);
}

function writeWithLines(sink: HashSink, write: Write): void {
  if (write.kind === 'bytes') sink.writeBytes(write.bytes);
  else if (write.kind === 'line') sink.writeLine(write.text);
  else sink.write(write.text);
}

describe('HashSink.writeLine', () => {
  it('hashes what write of the text and its newline hashes, and counts the same length', () => {
    fc.assert(
      fc.property(writesArbitrary, (writes) => {
        const simple = new HashSink();
        const lines = new HashSink();
        for (const write of writes) {
          writeSimply(simple, write);
          writeWithLines(lines, write);
        }
        expect(lines.length).toBe(simple.length);
        expect(lines.digest()).toBe(simple.digest());
      }),
      { numRuns: 150 },
    );
  });

  it('hands off the bytes write of the text and its newline hands off', () => {
    fc.assert(
      fc.property(writesArbitrary, (writes) => {
        const handedOff = (writeOne: (sink: HashSink, write: Write) => void): Buffer => {
          const memory = sinkSlotMemory();
          const writer = new SlotWriter(memory);
          const reader = new SlotReader(memory);
          const pieces: Buffer[] = [];
          const sink = new HashSink({
            pass: (bytes) => {
              const slot = writer.slotOf(bytes) as number;
              pieces.push(Buffer.from(reader.bytes(slot, bytes.length) as Uint8Array));
              reader.free(slot);
            },
            fresh: () => writer.take(),
          });
          for (const write of writes) writeOne(sink, write);
          sink.end();
          return Buffer.concat(pieces);
        };
        expect(handedOff(writeWithLines).equals(handedOff(writeSimply))).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});

const validRecords = (await readFile('testdata/ledgers/valid/ledger.jsonl', 'utf8'))
  .trimEnd()
  .split('\n')
  .map((line) => JSON.parse(line) as LedgerRecord);

type Mutable = Record<string, unknown> & { seq: number; type: string; data: Record<string, unknown> };

/** The valid ledger's records, with free text of any kind where the views write free text. */
const recordsArbitrary = fc.tuple(fc.array(textArbitrary, { minLength: 1, maxLength: 8 }), textArbitrary).map(([texts, origin]) =>
  validRecords.map((original, at) => {
    const record = structuredClone(original) as unknown as Mutable;
    const text = texts[at % texts.length] as string;
    if (record.type === 'ledger.genesis') record.data.origin = origin;
    if (record.type === 'policy.decided') record.data.ruleId = text;
    if (record.type === 'approval.granted') record.data.approvedBy = text;
    return record as unknown as LedgerRecord;
  }),
);

describe('a replay into sinks with writeLine', () => {
  it('writes every projection as the bytes a plain sink gets as text', () => {
    fc.assert(
      fc.property(recordsArbitrary, (records) => {
        const texts = new Map(PROJECTION_FILES.map((file) => [file, [] as string[]]));
        const plain = new Replay(Object.fromEntries(PROJECTION_FILES.map((file) => [file, (line: string) => texts.get(file)?.push(line)])));
        const hashing = new Map(PROJECTION_FILES.map((file) => [file, new HashSink()]));
        const withLines = new Replay(
          Object.fromEntries(
            [...hashing].map(([file, sink]): [string, ByteProjectionSink] => [file, Object.assign((line: string) => sink.write(line), { writeBytes: (bytes: Uint8Array) => sink.writeBytes(bytes), writeLine: (text: string) => sink.writeLine(text) })]),
          ),
        );
        const checked = records.map((record, at) => ({ record, offset: at, length: 1, leafHash: Buffer.alloc(32) }));
        plain.apply(checked);
        plain.finish();
        withLines.apply(checked);
        withLines.finish();
        for (const file of PROJECTION_FILES) {
          const expected = Buffer.from((texts.get(file) as string[]).join(''), 'utf8');
          const sink = hashing.get(file) as HashSink;
          expect(sink.length).toBe(expected.length);
          expect(sink.digest()).toBe(createHash('sha256').update(expected).digest('hex'));
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('the replay pass over ASCII and non-ASCII lines', () => {
  it('digests the projections that a replay of the checked records writes', async () => {
    const dir = await tempDir();
    const path = join(dir, 'ledger.jsonl');
    // A non-ASCII origin (the genesis line) and payloads (the lines of an action), among ASCII lines.
    const writer = await openLedger(path, { origin: 'svc.test/org:äcme/fixture' });
    await appendSampleFlows(writer, 3);
    await appendSampleFlows(writer, 2, { ...flowContext(), tenant: 'org:ñandú €' });
    await writer.close();
    const ledger = await readFile(path);
    expect(ledger.toString('latin1').split('\n').some((line) => /[^\x00-\x7f]/.test(line))).toBe(true);

    const texts = new Map(PROJECTION_FILES.map((file) => [file, [] as string[]]));
    const checked = await runLedgerPass(path, { sinks: Object.fromEntries(PROJECTION_FILES.map((file) => [file, (line: string) => texts.get(file)?.push(line)])) });
    expect(checked.defect).toBeUndefined();
    for (const chunkBytes of [undefined, 1 << 10]) {
      const replayed = await digestReplayPass(path, { end: (await stat(path)).size, projections: PROJECTION_FILES, ...(chunkBytes !== undefined && { chunkBytes }) });
      for (const file of PROJECTION_FILES) expect(replayed.digests[file]).toBe(createHash('sha256').update((texts.get(file) as string[]).join(''), 'utf8').digest('hex'));
    }
  });
});

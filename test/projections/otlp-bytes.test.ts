import { readFile } from 'node:fs/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LedgerRecord } from '../../src/events/catalogue.js';
import { HashSink } from '../../src/evidence/hash-sink.js';
import { otlpLogsView } from '../../src/projections/otlp.js';
import { Replay, type ByteProjectionSink } from '../../src/projections/replay.js';
import { evolve, initialState } from '../../src/projections/state.js';
import type { Row } from '../../src/projections/view.js';
import { referenceOtlpLogsView } from '../support/otlp-reference.js';

/**
 * The OTLP view builds each line as UTF-8 bytes instead of a string. Held to the view as it was
 * (test/support/otlp-reference.ts): the same text for every line, over records with free text of
 * any kind where the view writes it, groups cut at any seq, and a replay's sinks with and
 * without `writeBytes` write the same bytes.
 */

const validRecords = (await readFile('testdata/ledgers/valid/ledger.jsonl', 'utf8'))
  .trimEnd()
  .split('\n')
  .map((line) => JSON.parse(line) as LedgerRecord);

type Mutable = Record<string, unknown> & { seq: number; data: Record<string, unknown> };

// Free text the OTLP view writes (reasons, the origin through jsonString): ASCII, escapes,
// multi-byte characters, lone surrogates, and long runs (a line of megabytes).
const freeText = fc.oneof(
  fc.string({ unit: 'grapheme-ascii', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.tuple(fc.string({ unit: 'binary', minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 5_000 })).map(([text, times]) => text.repeat(times)),
);

/** Records built from the valid ledger's, renumbered from `firstSeq`, with free text put in. */
const recordsArbitrary = fc.tuple(fc.array(fc.tuple(fc.nat(validRecords.length - 1), freeText), { minLength: 1, maxLength: 120 }), fc.constantFrom(0, 1, 990, 1_999), freeText).map(([picks, firstSeq, origin]) =>
  picks.map(([index, text], at) => {
    const record = structuredClone(validRecords[index]) as unknown as Mutable;
    record.seq = at === 0 ? 0 : firstSeq + at;
    if (record.type === 'ledger.genesis') record.data.origin = origin;
    if (record.type === 'policy.decided') record.data.reasons = [text, 'r'];
    return record as unknown as LedgerRecord;
  }),
);

/** A row's text, read at once (a bytes row is valid until the view is called again). */
const textOf = (row: Row): string => (row instanceof Uint8Array ? Buffer.from(row).toString('utf8') : (row as string));

describe('the OTLP view building its lines as bytes', () => {
  it('writes the text the string-building view wrote, line for line', () => {
    fc.assert(
      fc.property(recordsArbitrary, (records) => {
        const view = otlpLogsView();
        const reference = referenceOtlpLogsView();
        const state = initialState();
        const lines: string[] = [];
        const expected: string[] = [];
        for (const record of records) {
          lines.push(...view.rows(state, record, '').map(textOf));
          expected.push(...reference.rows(state, record, '').map(textOf));
          evolve(state, record);
        }
        lines.push(...(view.finish?.(state) ?? []).map(textOf));
        expected.push(...(reference.finish?.(state) ?? []).map(textOf));
        expect(lines).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('reaches a sink with writeBytes as the same bytes a plain sink gets as text', () => {
    fc.assert(
      fc.property(recordsArbitrary, (records) => {
        let text = '';
        const plain = new Replay({ 'otlp-logs.jsonl': (line: string) => (text += line) });
        const hashing = new HashSink();
        const pieces: Buffer[] = [];
        const bytesSink: ByteProjectionSink = Object.assign((line: string) => pieces.push(Buffer.from(line, 'utf8')), { writeBytes: (bytes: Uint8Array) => pieces.push(Buffer.from(bytes)) });
        const withBytes = new Replay({ 'otlp-logs.jsonl': bytesSink, 'siem.jsonl': Object.assign((line: string) => hashing.write(line), { writeBytes: (bytes: Uint8Array) => hashing.writeBytes(bytes) }) });
        const checked = records.map((record, at) => ({ record, offset: at, length: 1, leafHash: Buffer.alloc(32) }));
        plain.apply(checked);
        plain.finish();
        withBytes.apply(checked);
        withBytes.finish();
        expect(Buffer.concat(pieces).equals(Buffer.from(text, 'utf8'))).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});

import { readFile } from 'node:fs/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, isCanonicalText } from '../../src/events/canonical.js';
import { envelopePrevHash, envelopeTypeIs, readEnvelopeFields } from '../../src/events/envelope-fields.js';

const ledgerLines = (await readFile('testdata/ledgers/valid/ledger.jsonl', 'utf8')).trimEnd().split('\n');
const ENVELOPE_KEYS = ['data', 'prevHash', 'seq', 'stream', 'ts', 'type', 'v'];

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A ledger line with one character replaced, inserted or removed, from the characters the reader's rules hinge on. */
const editedLine = fc
  .tuple(fc.constantFrom(...ledgerLines), fc.nat(), fc.constantFrom('', ' ', '0', '9', '-', 'a', 'f', 'g', 'A', '"', '\\', ',', ':', '{', '}', '[', ']', '.', 'e', 'é', '\ud83d\ude00', 'x"'), fc.boolean())
  .map(([line, at, text, insert]) => {
    const index = at % (line.length + 1);
    return `${line.slice(0, index)}${text}${line.slice(insert ? index : index + 1)}`;
  });

describe('readEnvelopeFields', () => {
  it('reads seq, prevHash and type of every line of the valid ledger as JSON.parse does', () => {
    for (const line of ledgerLines) {
      const bytes = Buffer.from(line, 'utf8');
      const fields = readEnvelopeFields(bytes);
      const record = JSON.parse(line) as { seq: number; prevHash: string; type: string };
      expect(fields, line).toBeDefined();
      if (!fields) continue;
      expect(fields.seq).toBe(record.seq);
      expect(envelopePrevHash(fields)).toBe(record.prevHash);
      expect(fields.text).toBe(line);
      expect(envelopeTypeIs(fields, record.type)).toBe(true);
      expect(envelopeTypeIs(fields, `${record.type}x`)).toBe(false);
      expect(envelopeTypeIs(fields, record.type.slice(0, -1))).toBe(false);
    }
  });

  it('answers only for canonical lines of exactly the seven envelope keys, and then as JSON.parse reads them (20,000 edited lines)', () => {
    let answered = 0;
    fc.assert(
      fc.property(editedLine, (line) => {
        const bytes = Buffer.from(line, 'utf8');
        const fields = readEnvelopeFields(bytes);
        const parsed = parse(line);
        // The reader presumes JSON, as its caller must make sure: nothing to compare otherwise.
        if (fields === undefined || parsed === undefined) return;
        answered += 1;
        expect(isCanonicalText(line, parsed), line).toBe(true);
        const record = parsed as Record<string, unknown>;
        expect(Object.keys(record), line).toEqual(ENVELOPE_KEYS);
        expect(fields.seq, line).toBe(record.seq);
        expect(fields.text, line).toBe(line);
        expect(envelopePrevHash(fields), line).toBe(record.prevHash);
        expect(typeof record.type, line).toBe('string');
        expect(line.slice(fields.typeStart, fields.typeEnd), line).toBe(JSON.stringify(record.type).slice(1, -1));
      }),
      { numRuns: 20_000, seed: 11 },
    );
    // Edits inside string values keep many lines valid: the property must have been put to work.
    expect(answered).toBeGreaterThan(2_000);
  });

  it('answers the same with an expected prevHash, and says whether the line has exactly that one (20,000 edited lines)', () => {
    const hashes = ledgerLines.map((line) => (JSON.parse(line) as { prevHash: string }).prevHash);
    let expectedSeen = 0;
    fc.assert(
      fc.property(editedLine, fc.constantFrom(...hashes), (line, otherHash) => {
        const bytes = Buffer.from(line, 'utf8');
        const without = readEnvelopeFields(bytes);
        // The line's own prevHash as it was before the edit, if the edit left it alone, and another.
        const own = /"prevHash":"(sha256:[0-9a-f]{64})"/.exec(line)?.[1];
        for (const expected of own === undefined ? [otherHash] : [own, otherHash]) {
          const fields = readEnvelopeFields(bytes, expected);
          if (without === undefined) {
            expect(fields, line).toBeUndefined();
            continue;
          }
          expect(fields, line).toEqual({ ...without, prevHashIsExpected: envelopePrevHash(without) === expected });
          if (fields?.prevHashIsExpected) expectedSeen += 1;
        }
      }),
      { numRuns: 20_000, seed: 12 },
    );
    expect(expectedSeen).toBeGreaterThan(2_000);
  });

  it('does not take an expected prevHash for a prevHash of another form that starts with it', () => {
    const line = ledgerLines[1] as string;
    const record = JSON.parse(line) as Record<string, unknown>;
    const prevHash = record.prevHash as string;
    // Uppercase digits, one digit more, one fewer: never of the form, whatever the caller expects.
    for (const other of [prevHash.toUpperCase().replace('SHA256', 'sha256'), `${prevHash}0`, prevHash.slice(0, -1)]) {
      const edited = canonicalJson({ ...record, prevHash: other });
      expect(readEnvelopeFields(Buffer.from(edited, 'utf8'), prevHash), edited).toBeUndefined();
    }
  });

  it('answers undefined for lines of another shape', () => {
    const line = ledgerLines[1] as string;
    const record = JSON.parse(line) as Record<string, unknown>;
    const others = [
      JSON.stringify({ ...record, extra: 1 }),
      JSON.stringify({ data: record.data, prevHash: record.prevHash, seq: record.seq, stream: record.stream, ts: record.ts, type: record.type }),
      JSON.stringify({ ...record, prevHash: (record.prevHash as string).toUpperCase().replace('SHA256', 'sha256') }),
      JSON.stringify({ ...record, seq: 1.5 }),
      JSON.stringify({ ...record, seq: '1' }),
      JSON.stringify({ ...record, type: 7 }),
      // Outside the BMP: the scan's key order is by UTF-16 code units, which such characters break.
      JSON.stringify({ ...record, data: { ...(record.data as object), '\ud83d\ude00': 1 } }),
      `${line} `,
      line.slice(0, -1),
      '',
      '{}',
    ];
    for (const other of others) expect(readEnvelopeFields(Buffer.from(other, 'utf8')), other).toBeUndefined();
    expect(readEnvelopeFields(Buffer.from([...Buffer.from(line.slice(0, 20)), 0xff, ...Buffer.from(line.slice(21))])), 'not UTF-8').toBeUndefined();
  });

  it('reads seq as Number does, negative, zero and at the 15-digit limit of the scan', () => {
    const record = JSON.parse(ledgerLines[1] as string) as Record<string, unknown>;
    for (const seq of [0, 7, -7, 10, 1_000_000, 999_999_999_999_999, -999_999_999_999_999]) {
      const line = canonicalJson({ ...record, seq });
      expect(readEnvelopeFields(Buffer.from(line, 'utf8'))?.seq, line).toBe(seq);
    }
    expect(readEnvelopeFields(Buffer.from(canonicalJson({ ...record, seq: 1_000_000_000_000_000 }), 'utf8')), '16 digits').toBeUndefined();
  });

  it('reads lines with characters beyond ASCII in the BMP', () => {
    const record = JSON.parse(ledgerLines[1] as string) as Record<string, unknown>;
    const line = canonicalJson({ ...record, data: { ...(record.data as object), note: 'é\u2028\uffff' } });
    const fields = readEnvelopeFields(Buffer.from(line, 'utf8'));
    expect(fields?.text).toBe(line);
    expect(fields?.seq).toBe(record.seq);
  });
});

import { isUtf8 } from 'node:buffer';
import { readFile } from 'node:fs/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCanonicalText } from '../../src/events/canonical.js';
import { checkRecord } from '../../src/events/catalogue.js';
import { ChainChecker, isDefect, parseRecordLine } from '../../src/events/chain-checker.js';

const ledgerLines = (await readFile('testdata/ledgers/valid/ledger.jsonl', 'utf8')).trimEnd().split('\n');

describe('ChainChecker.fromSnapshot', () => {
  it('resumes from a snapshot, and refuses one whose head hash is not of the sha256 form (checkDeferringRecord relies on it)', () => {
    const checker = new ChainChecker();
    let offset = 0;
    for (const line of ledgerLines.slice(0, 3)) {
      const bytes = Buffer.from(line, 'utf8');
      expect(isDefect(checker.check({ offset, bytes, terminated: true, oversized: false }))).toBe(false);
      offset += bytes.length + 1;
    }
    const snapshot = checker.snapshot();
    const resumed = ChainChecker.fromSnapshot(snapshot);
    const next = Buffer.from(ledgerLines[3] as string, 'utf8');
    expect(resumed.checkDeferringRecord({ offset, bytes: next, terminated: true, oversized: false })).toBeUndefined();
    expect(resumed.size).toBe(4);
    for (const headHash of [snapshot.headHash.toUpperCase(), `${snapshot.headHash}0`, snapshot.headHash.slice(0, -1)]) {
      expect(() => ChainChecker.fromSnapshot({ ...snapshot, headHash }), headHash).toThrow(RangeError);
    }
  });
});

/** parseRecordLine's verdict the plain way: every line decoded as UTF-8, its form decided against its parse. */
function referenceParse(bytes: Buffer): ReturnType<typeof parseRecordLine> {
  if (!isUtf8(bytes)) return { code: 'not_canonical', message: 'line is not valid UTF-8' };
  const text = bytes.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { code: 'not_canonical', message: 'line is not JSON' };
  }
  if (!isCanonicalText(text, parsed)) return { code: 'not_canonical', message: 'line is not the RFC 8785 canonical form of its own parse' };
  const checked = checkRecord(parsed);
  return checked.ok ? { record: checked.record } : { code: 'record_invalid', message: checked.message };
}

describe('parseRecordLine', () => {
  it('gives the verdict of the plain UTF-8 path for ASCII and non-ASCII lines alike (valid lines with bytes changed)', () => {
    // ASCII bytes, two- and four-byte characters, a lone surrogate as raw UTF-8 (invalid) and as
    // an escape, bytes that are no UTF-8, and the characters the canonical form turns on.
    const replacements = ['', 'a', '"', '\\', ' ', '0', 'é', '日', '😀', '\\ud800', '\\u00e9', '\n', '\u2028'].map((text) => Buffer.from(text, 'utf8'));
    const replacement = fc.oneof(fc.constantFrom(...replacements), fc.constantFrom(Buffer.from([0x80]), Buffer.from([0xff]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xc3])));
    fc.assert(
      fc.property(fc.nat(ledgerLines.length - 1), fc.nat(), replacement, (lineIndex, at, inserted) => {
        const line = Buffer.from(ledgerLines[lineIndex] as string, 'utf8');
        const index = at % (line.length + 1);
        for (const bytes of [line, Buffer.concat([line.subarray(0, index), inserted, line.subarray(index + 1)]), Buffer.concat([line.subarray(0, index), inserted, line.subarray(index)])]) {
          expect(parseRecordLine(bytes), bytes.toString('utf8')).toEqual(referenceParse(bytes));
        }
      }),
      { numRuns: 3_000, seed: 7 },
    );
  });
});

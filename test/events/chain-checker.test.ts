import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ChainChecker, isDefect } from '../../src/events/chain-checker.js';

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

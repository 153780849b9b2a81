import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { LedgerRecord } from '../../src/events/catalogue.js';
import { describeRecord } from '../../src/projections/timeline.js';

const records = (await readFile('testdata/ledgers/valid/ledger.jsonl', 'utf8'))
  .trimEnd()
  .split('\n')
  .map((line) => JSON.parse(line) as LedgerRecord);

describe('describeRecord', () => {
  it('describes every record of the valid fixture in one line', () => {
    for (const record of records) expect(describeRecord(record)).toMatch(/^[^\n]+$/);
  });

  it('prints an expiry no Date can hold as its number instead of throwing', () => {
    const issued = structuredClone(records.find((record) => record.type === 'actionpass.issued')) as Extract<LedgerRecord, { type: 'actionpass.issued' }>;
    issued.data.claims.exp = 1e15;
    expect(describeRecord(issued)).toContain('expires 1000000000000000');
    issued.data.claims.exp = 1_795_316_239;
    expect(describeRecord(issued)).toContain('expires 2026-11-22T');
  });
});

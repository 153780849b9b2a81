import { readFile } from 'node:fs/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRecord, expectedStream, ledgerRecordSchema, type LedgerRecord } from '../../src/events/catalogue.js';

const lines = (await readFile('testdata/ledgers/valid/ledger.jsonl', 'utf8')).trimEnd().split('\n');
const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);

/** The declarative verdict: the zod union plus the stream rule. */
function declarative(value: unknown): boolean {
  const parsed = ledgerRecordSchema().safeParse(value);
  return parsed.success && expectedStream(parsed.data as LedgerRecord) === (parsed.data as LedgerRecord).stream;
}

const envelopeKeys = ['data', 'prevHash', 'seq', 'stream', 'ts', 'type', 'v', 'extra'];
const oddValues = fc.oneof(fc.constant(undefined), fc.constant(null), fc.constantFrom(0, 1, -1, 1.5, 2 ** 53, 2 ** 53 - 1), fc.integer({ min: -2, max: 2 ** 54 }), fc.double(), fc.string(), fc.constantFrom('ledger', 'action:act_allow_0', 'sha256:' + '0'.repeat(64), '2026-11-21T10:00:00.000Z', 'policy.decided', 'ledger.genesis'), fc.array(fc.string(), { maxLength: 2 }), fc.object({ maxDepth: 1 }));

describe('checkRecord', () => {
  it('accepts every record of the valid fixture, like the declarative schema', () => {
    for (const record of records) {
      expect(checkRecord(record).ok).toBe(true);
      expect(declarative(record)).toBe(true);
    }
  });

  it('agrees with ledgerRecordSchema on 20,000 mutated records (envelope and data)', () => {
    fc.assert(
      fc.property(fc.nat(records.length - 1), fc.constantFrom(...envelopeKeys), fc.option(fc.string({ maxLength: 12 })), oddValues, (index, key, dataKey, value) => {
        const record = structuredClone(records[index]) as Record<string, unknown>;
        if (dataKey !== null && typeof record.data === 'object' && record.data !== null) {
          const data = record.data as Record<string, unknown>;
          const keys = Object.keys(data);
          // Either overwrite an existing data field or add an unknown one.
          data[keys[dataKey.length % keys.length] ?? dataKey] = value;
        } else if (value === undefined) delete record[key];
        else record[key] = value;
        expect(checkRecord(record).ok).toBe(declarative(record));
      }),
      { numRuns: 20_000, seed: 5 },
    );
  });
});

describe('ActionPass claims in actionpass.issued', () => {
  const issued = records.find((record) => record.type === 'actionpass.issued') as { data: { claims: Record<string, unknown> } };

  it('bounds iat, nbf and exp to NumericDates up to 9999-12-31T23:59:59Z, so every one prints as a date', () => {
    for (const field of ['iat', 'nbf', 'exp']) {
      for (const [value, ok] of [[253_402_300_799, true], [253_402_300_800, false], [1e15, false], [-1, false]] as const) {
        const record = structuredClone(issued);
        record.data.claims[field] = value;
        expect(checkRecord(record).ok, `${field} ${value}`).toBe(ok);
        expect(declarative(record), `${field} ${value}`).toBe(ok);
      }
    }
  });
});

describe('ts', () => {
  it('is RFC 3339 UTC with milliseconds naming a real instant', () => {
    const record = structuredClone(records[1]) as Record<string, unknown>;
    const cases: [string, boolean][] = [
      ['2026-11-21T10:00:00.000Z', true],
      ['2024-02-29T23:59:59.999Z', true],
      ['2000-02-29T00:00:00.000Z', true],
      ['2026-02-29T10:00:00.000Z', false],
      ['1900-02-29T10:00:00.000Z', false],
      ['2026-02-30T10:00:00.000Z', false],
      ['2026-04-31T10:00:00.000Z', false],
      ['2026-13-01T10:00:00.000Z', false],
      ['2026-00-10T10:00:00.000Z', false],
      ['2026-01-00T10:00:00.000Z', false],
      ['2026-01-01T24:00:00.000Z', false],
      ['2026-01-01T10:60:00.000Z', false],
      ['2026-01-01T10:00:60.000Z', false],
      ['2026-01-01T10:00:00Z', false],
    ];
    for (const [ts, ok] of cases) {
      record.ts = ts;
      expect(checkRecord(record).ok, ts).toBe(ok);
      expect(declarative(record), ts).toBe(ok);
    }
  });
});

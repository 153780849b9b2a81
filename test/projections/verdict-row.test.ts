import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/events/canonical.js';
import type { EquivalenceVerdict } from '../../src/projections/equivalence.js';
import { verdictRow } from '../../src/projections/executions.js';

// Texts with what JSON escapes, and beyond ASCII: verdict values come from canonical records, so no lone surrogates.
const text = fc.string({ unit: fc.constantFrom('a', 'Z', '0', ':', '"', '\\', '\n', '\u0001', 'é', '😀'), maxLength: 8 });
const seq = fc.nat();

const verdict: fc.Arbitrary<EquivalenceVerdict> = fc.record(
  {
    seq,
    actionId: text,
    status: fc.constantFrom('equivalent', 'blocked', 'violated'),
    approvedPayloadHash: text,
    executedPayloadHash: text,
    passPayloadHash: text,
    passSeq: seq,
    approvalId: text,
    approvalPayloadHash: text,
    approvalRequestedSeq: seq,
    approvalGrantedSeq: seq,
    reason: text,
    problem: text,
  },
  { requiredKeys: ['seq', 'actionId', 'status', 'approvedPayloadHash', 'executedPayloadHash'] },
);

describe('verdictRow', () => {
  it('is written by JSON.stringify exactly as canonicalJson writes the verdict, whichever members it has', () => {
    fc.assert(
      fc.property(verdict, (value) => {
        expect(JSON.stringify(verdictRow(value))).toBe(canonicalJson(value));
      }),
      { numRuns: 2_000, seed: 3 },
    );
  });
});

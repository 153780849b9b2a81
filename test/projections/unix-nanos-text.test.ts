import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UnixNanosText } from '../../src/projections/unix-nanos-text.js';

/** A record ts: RFC 3339 UTC with milliseconds, over a few centuries. */
const recordTs = fc.date({ min: new Date('1970-01-01T00:00:00.000Z'), max: new Date('2400-01-01T00:00:00.000Z'), noInvalidDate: true }).map((date) => date.toISOString());

describe('UnixNanosText', () => {
  it('answers what Date.parse says for every ts, over runs of repeated and alternating texts', () => {
    fc.assert(
      fc.property(fc.array(recordTs, { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { minLength: 1, maxLength: 60 }), (distinct, picks) => {
        const times = new UnixNanosText();
        for (const pick of picks) {
          const ts = distinct[pick % distinct.length] as string;
          expect(times.of(ts)).toBe(`"${Date.parse(ts)}000000"`);
        }
      }),
    );
  });

  it('writes a time before 1970 and a millisecond-precise one as their nanoseconds', () => {
    const times = new UnixNanosText();
    expect(times.of('1969-12-31T23:59:59.999Z')).toBe('"-1000000"');
    expect(times.of('2026-11-26T06:18:12.149Z')).toBe('"1795673892149000000"');
  });
});

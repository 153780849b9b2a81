import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isRfc3339MillisUtc, recordTimeMs, rfc3339FieldsInRange } from '../../src/events/rfc3339.js';

/** The fields read with slice and Number(), as rfc3339FieldsInRange once did: the reference. */
function referenceInRange(text: string): boolean {
  const year = Number(text.slice(0, 4));
  const month = Number(text.slice(5, 7));
  const day = Number(text.slice(8, 10));
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && !leap ? 28 : ([31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0);
  if (!(day >= 1 && day <= days)) return false;
  if (text[10] !== 'T') return true;
  return Number(text.slice(11, 13)) <= 23 && Number(text.slice(14, 16)) <= 59 && (text[16] !== ':' || Number(text.slice(17, 19)) <= 59);
}

const digits = (count: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: count, maxLength: count });
// Years around leap rules (1900, 2000, 2024, 2100), months and days around their ends, any time fields.
const year = fc.oneof(digits(4), fc.constantFrom('1900', '2000', '2024', '2025', '2100', '0000', '9999'));
const twoDigits = fc.oneof({ arbitrary: digits(2), weight: 1 }, { arbitrary: fc.constantFrom('00', '01', '02', '12', '13', '23', '24', '28', '29', '30', '31', '32', '59', '60', '99'), weight: 4 });
const shaped = fc
  .tuple(year, twoDigits, twoDigits, twoDigits, twoDigits, twoDigits, digits(3), fc.constantFrom('date', 'minutes', 'seconds', 'millis'))
  .map(([y, mo, d, h, mi, s, ms, form]) => {
    const date = `${y}-${mo}-${d}`;
    if (form === 'date') return date;
    if (form === 'minutes') return `${date}T${h}:${mi}Z`;
    if (form === 'seconds') return `${date}T${h}:${mi}:${s}+01:00`;
    return `${date}T${h}:${mi}:${s}.${ms}Z`;
  });

describe('rfc3339FieldsInRange', () => {
  it('answers as slicing the fields and reading them with Number() did, on 20,000 texts of the shapes its callers match', () => {
    let inRange = 0;
    fc.assert(
      fc.property(shaped, (text) => {
        const expected = referenceInRange(text);
        expect(rfc3339FieldsInRange(text), text).toBe(expected);
        if (expected) inRange += 1;
      }),
      { numRuns: 20_000, seed: 3339 },
    );
    expect(inRange).toBeGreaterThan(500);
  });

  it('knows leap days and month ends', () => {
    expect(isRfc3339MillisUtc('2024-02-29T23:59:59.999Z')).toBe(true);
    expect(isRfc3339MillisUtc('2100-02-29T00:00:00.000Z')).toBe(false);
    expect(isRfc3339MillisUtc('2000-02-29T00:00:00.000Z')).toBe(true);
    expect(isRfc3339MillisUtc('2026-04-31T00:00:00.000Z')).toBe(false);
    expect(isRfc3339MillisUtc('2026-12-31T24:00:00.000Z')).toBe(false);
    expect(isRfc3339MillisUtc('2026-12-31T23:60:00.000Z')).toBe(false);
    expect(isRfc3339MillisUtc('2026-12-31T23:59:60.000Z')).toBe(false);
    expect(isRfc3339MillisUtc('2026-00-10T00:00:00.000Z')).toBe(false);
    expect(isRfc3339MillisUtc('2026-01-00T00:00:00.000Z')).toBe(false);
  });
});

describe('recordTimeMs', () => {
  it('is Date.parse for every text, however texts repeat and alternate', () => {
    const stamps = fc.oneof(
      fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
      fc.constantFrom('', 'not a time', '2026-02-30T00:00:00.000Z', '2026-11-26T15:58:11.123Z', '2026-11-26T15:58:11.124Z'),
    );
    fc.assert(
      fc.property(fc.array(stamps, { minLength: 1, maxLength: 20 }), (texts) => {
        // Each text twice in a row (the memo's hit), then in the order given (its misses).
        for (const text of [...texts.flatMap((text) => [text, text]), ...texts]) expect(Object.is(recordTimeMs(text), Date.parse(text))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe('isRfc3339MillisUtc, remembering the last text it accepted', () => {
  const pattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

  it('answers as the pattern and the range checks do, whatever came just before: repeats, near misses and other texts (5,000 sequences)', () => {
    const accepted = '2026-11-21T10:00:00.000Z';
    const nearMisses = [`${accepted} `, ` ${accepted}`, accepted.slice(0, -1), accepted.replace('Z', 'z'), accepted.replace('T', 't'), `${accepted}\n`, accepted.replace('2026', '２026'), '2026-11-21T10:00:00.000+00:00', '', '2026-02-30T10:00:00.000Z'];
    const stamps = fc.oneof(fc.constantFrom(accepted, ...nearMisses), shaped, fc.date({ noInvalidDate: true }).map((date) => date.toISOString()));
    fc.assert(
      fc.property(fc.array(stamps, { minLength: 1, maxLength: 20 }), (texts) => {
        for (const text of texts.flatMap((text) => [text, text])) expect(isRfc3339MillisUtc(text), text).toBe(pattern.test(text) && rfc3339FieldsInRange(text));
      }),
      { numRuns: 5_000, seed: 3340 },
    );
  });
});

/** The one form of `ts` in a ledger record: RFC 3339, UTC, with milliseconds. */
const RFC3339_MILLIS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * RFC 3339 UTC with milliseconds naming a real instant: `2026-02-30T…` or hour 24 has the shape
 * but is no time, and would print as NaN in the OTLP and SIEM projections.
 */
export function isRfc3339MillisUtc(ts: string): boolean {
  if (ts === lastAcceptedTs) return true;
  if (!(RFC3339_MILLIS_UTC.test(ts) && rfc3339FieldsInRange(ts))) return false;
  lastAcceptedTs = ts;
  return true;
}

/**
 * The last text `isRfc3339MillisUtc` accepted. Records sealed in one millisecond share their `ts`
 * (the writer hands out one string per millisecond), and a verifier checks them in a row: one
 * string comparison then finds the answer, instead of the pattern and the range checks. Only an
 * accepted text is kept (the empty start value is none), so the answer is the same.
 */
let lastAcceptedTs = '';

/**
 * Whether the fields of text shaped like RFC 3339 (`YYYY-MM-DD`, optionally `Thh:mm` and `:ss`)
 * are in range: a day the month has, hours to 23, minutes and seconds to 59. `Date.parse`
 * quietly moves 2026-02-30 to March. Read at fixed offsets, digit by digit rather than by
 * slicing and Number(): this runs on every record verified. Every caller has matched the shape
 * first, so the fields are ASCII digits, which both ways read alike.
 */
export function rfc3339FieldsInRange(text: string): boolean {
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && !leap ? 28 : (DAYS_IN_MONTH[month - 1] ?? 0);
  if (!(day >= 1 && day <= days)) return false;
  if (text[10] !== 'T') return true;
  return digitsAt(text, 11, 2) <= 23 && digitsAt(text, 14, 2) <= 59 && (text[16] !== ':' || digitsAt(text, 17, 2) <= 59);
}

/** The number the `count` decimal digits at `at` spell; NaN if any of them is not one (which compares false). */
function digitsAt(text: string, at: number, count: number): number {
  let value = 0;
  for (let index = at; index < at + count; index += 1) {
    const digit = text.charCodeAt(index) - 0x30;
    if (!(digit >= 0 && digit <= 9)) return Number.NaN;
    value = value * 10 + digit;
  }
  return value;
}

let lastParsedTs = '';
let lastParsedMs = Number.NaN;

/**
 * `Date.parse(ts)` of a record's `ts`, remembering the last text parsed: the records sealed in one
 * millisecond share their `ts` (the writer hands out one string per millisecond), and each record
 * is folded by the budget counter and the runtime state, which both need its time. Parsing costs
 * far more than the string comparison that finds the answer already known.
 */
export function recordTimeMs(ts: string): number {
  if (ts !== lastParsedTs) {
    lastParsedMs = Date.parse(ts);
    lastParsedTs = ts;
  }
  return lastParsedMs;
}

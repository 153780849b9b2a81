/**
 * `isPlainCanonicalForm` (canonical-form.ts) read off a line's UTF-8 bytes instead of its decoded
 * text, so that a checker which does not parse the line need not decode it either. The rules are
 * the text scan's; what differs is how they are read from bytes:
 *
 * - The bytes must be valid UTF-8 (the caller checks with `isUtf8`), so no lone surrogate can be
 *   in the text; a character outside the BMP (a 4-byte sequence, two UTF-16 code units) is not
 *   shown here, as the text scan does not show surrogate pairs.
 * - Without such characters, comparing keys byte by byte orders them by code point, which is
 *   their UTF-16 code unit order: UTF-8 preserves code point order, and below U+10000 code points
 *   are code units.
 * - A quote or backslash byte is always that character: UTF-8 continuation and lead bytes are
 *   all >= 0x80.
 *
 * Like the text scan it presumes the bytes are JSON that JSON.parse accepts (a `t` where a value
 * starts is `true`): its "true" means "canonical if it parses", and whoever uses it must see
 * that the line parses.
 */
export class CanonicalByteScan {
  constructor(private readonly bytes: Uint8Array) {}

  /** The index after the value that starts at `at`, or -1 when it is not shown plain and canonical. */
  value(at: number, depth: number): number {
    const c = this.bytes[at];
    if (c === QUOTE) return this.string(at);
    if (c === OPEN_BRACE) return depth < MAX_DEPTH ? this.object(at, depth + 1) : -1;
    if (c === OPEN_BRACKET) return depth < MAX_DEPTH ? this.array(at, depth + 1) : -1;
    if (c === MINUS || (c !== undefined && c >= ZERO && c <= NINE)) return this.integer(at);
    // The parse succeeds, so these letters start the literals.
    if (c === 0x74 || c === 0x6e) return at + 4; // true, null
    if (c === 0x66) return at + 5; // false
    return -1;
  }

  /** The index after the string that starts at `at` (its opening quote), or -1. */
  string(at: number): number {
    const bytes = this.bytes;
    const length = bytes.length;
    for (let index = at + 1; index < length; index += 1) {
      const c = bytes[index] as number;
      if (c === QUOTE) return index + 1;
      if (c >= FOUR_BYTE_LEAD) return -1;
      if (c === BACKSLASH) {
        const escaped = bytes[index + 1];
        // The escapes JSON.stringify writes itself; \u, \/ and the rest are not shown here.
        if (escaped !== QUOTE && escaped !== BACKSLASH && escaped !== 0x62 && escaped !== 0x66 && escaped !== 0x6e && escaped !== 0x72 && escaped !== 0x74) return -1;
        index += 1;
      }
    }
    return -1;
  }

  /** The index after the integer that starts at `at`, or -1 for one that does not print back as written. */
  integer(at: number): number {
    const bytes = this.bytes;
    const negative = bytes[at] === MINUS;
    const digitsStart = negative ? at + 1 : at;
    let end = digitsStart;
    for (let c = bytes[end]; c !== undefined && c >= ZERO && c <= NINE; c = bytes[end]) end += 1;
    const digits = end - digitsStart;
    if (digits === 0 || digits > MAX_INTEGER_DIGITS) return -1;
    if (bytes[digitsStart] === ZERO && (digits > 1 || negative)) return -1;
    // A fraction or an exponent: not shown here.
    const after = bytes[end];
    if (after === 0x2e || after === 0x65 || after === 0x45) return -1;
    return end;
  }

  private object(at: number, depth: number): number {
    const bytes = this.bytes;
    let next = at + 1;
    if (bytes[next] === CLOSE_BRACE) return next + 1;
    let previousStart = -1;
    let previousEnd = -1;
    for (;;) {
      if (bytes[next] !== QUOTE) return -1;
      const keyStart = next + 1;
      const keyEnd = this.keyEnd(keyStart);
      if (keyEnd === -1) return -1;
      if (previousStart !== -1 && !this.precedes(previousStart, previousEnd, keyStart, keyEnd)) return -1;
      previousStart = keyStart;
      previousEnd = keyEnd;
      if (bytes[keyEnd + 1] !== COLON) return -1;
      next = this.value(keyEnd + 2, depth);
      if (next === -1) return -1;
      const c = bytes[next];
      if (c === CLOSE_BRACE) return next + 1;
      if (c !== COMMA) return -1;
      next += 1;
    }
  }

  private array(at: number, depth: number): number {
    const bytes = this.bytes;
    let next = at + 1;
    if (bytes[next] === CLOSE_BRACKET) return next + 1;
    for (;;) {
      next = this.value(next, depth);
      if (next === -1) return -1;
      const c = bytes[next];
      if (c === CLOSE_BRACKET) return next + 1;
      if (c !== COMMA) return -1;
      next += 1;
    }
  }

  /** Where a key that starts at `start` (after its quote) ends: at its closing quote. -1 for an empty key, a key with an escape or one starting with a digit. */
  private keyEnd(start: number): number {
    const bytes = this.bytes;
    const first = bytes[start];
    if (first === undefined || first === QUOTE || (first >= ZERO && first <= NINE)) return -1;
    const length = bytes.length;
    for (let index = start; index < length; index += 1) {
      const c = bytes[index] as number;
      if (c === QUOTE) return index;
      if (c === BACKSLASH || c >= FOUR_BYTE_LEAD) return -1;
    }
    return -1;
  }

  /** Whether the key at [aStart, aEnd) sorts strictly before the key at [bStart, bEnd), byte by byte (see the class comment). */
  private precedes(aStart: number, aEnd: number, bStart: number, bEnd: number): boolean {
    const bytes = this.bytes;
    const aLength = aEnd - aStart;
    const bLength = bEnd - bStart;
    const common = aLength < bLength ? aLength : bLength;
    for (let index = 0; index < common; index += 1) {
      const a = bytes[aStart + index] as number;
      const b = bytes[bStart + index] as number;
      if (a !== b) return a < b;
    }
    return aLength < bLength;
  }
}

/** Whether `bytes` (valid UTF-8 that JSON.parse accepts) are shown to be the RFC 8785 form of their own parse. */
export function isPlainCanonicalBytes(bytes: Uint8Array): boolean {
  return new CanonicalByteScan(bytes).value(0, 0) === bytes.length;
}

const MAX_DEPTH = 128;
/** Integers of up to 15 digits are exact in a double and print back as written. */
const MAX_INTEGER_DIGITS = 15;
/** The lead byte of a 4-byte UTF-8 sequence: a character outside the BMP. */
const FOUR_BYTE_LEAD = 0xf0;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

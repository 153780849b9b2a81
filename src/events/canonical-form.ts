/**
 * Reads off a JSON text whether it is written in the RFC 8785 form of its own parse, without
 * serializing the parse again: JSON.stringify costs as much as JSON.parse on a ledger line, and
 * a verifier checks millions. The text must be one JSON.parse accepted (so it is well formed, and
 * a `t` where a value starts is `true`).
 *
 * It answers true only for a text of this plain shape, which JSON.stringify of the parse writes
 * back unchanged, and whose object keys strictly increase by UTF-16 code units, which is JCS:
 *
 * - no whitespace between tokens;
 * - strings with no escapes other than \" \\ \b \f \n \r \t, and no surrogate code units;
 * - numbers that are integers of at most 15 digits, without leading zeros, not -0 (exact
 *   doubles, which print back digit for digit);
 * - keys with no escape at all and not starting with a digit (V8 enumerates integer-like keys
 *   first, whatever the text's order).
 *
 * Anything else (an exponent, a \u escape, an emoji, nesting deeper than MAX_DEPTH) answers
 * false, meaning "not shown here": `isCanonicalText` then decides the slow way.
 */
export function isPlainCanonicalForm(text: string, ascii = false): boolean {
  // `ascii`: the caller decoded the text from bytes it found to be ASCII, so it has no surrogates to look for.
  if (!ascii && SURROGATE.test(text)) return false;
  return new CanonicalFormScan(text).value(0, 0) === text.length;
}

export const SURROGATE = /[\ud800-\udfff]/;
const MAX_DEPTH = 128;
/** Integers of up to 15 digits are exact in a double and print back as written. */
const MAX_INTEGER_DIGITS = 15;

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

/**
 * The scan: each method takes the index a token starts at and returns the index after it, or -1
 * for "not shown". It presumes what `isPlainCanonicalForm` presumes, and a text without
 * surrogates (`isPlainCanonicalForm` checks that first).
 */
export class CanonicalFormScan {
  /** With no backslash anywhere, a string ends at the next quote. */
  private readonly hasEscapes: boolean;

  constructor(private readonly text: string) {
    this.hasEscapes = text.includes('\\');
  }

  value(at: number, depth: number): number {
    const text = this.text;
    const c = text.charCodeAt(at);
    if (c === QUOTE) return this.string(at);
    if (c === OPEN_BRACE) return depth < MAX_DEPTH ? this.object(at, depth + 1) : -1;
    if (c === OPEN_BRACKET) return depth < MAX_DEPTH ? this.array(at, depth + 1) : -1;
    if (c === MINUS || (c >= ZERO && c <= NINE)) return this.integer(at);
    // The parse succeeded, so these letters start the literals.
    if (c === 0x74 || c === 0x6e) return at + 4; // true, null
    if (c === 0x66) return at + 5; // false
    return -1;
  }

  private object(at: number, depth: number): number {
    const text = this.text;
    let next = at + 1;
    if (text.charCodeAt(next) === CLOSE_BRACE) return next + 1;
    let previousStart = -1;
    let previousEnd = -1;
    for (;;) {
      if (text.charCodeAt(next) !== QUOTE) return -1;
      const keyStart = next + 1;
      const keyEnd = this.keyEnd(keyStart);
      if (keyEnd === -1) return -1;
      if (previousStart !== -1 && !this.precedes(previousStart, previousEnd, keyStart, keyEnd)) return -1;
      previousStart = keyStart;
      previousEnd = keyEnd;
      if (text.charCodeAt(keyEnd + 1) !== COLON) return -1;
      next = this.value(keyEnd + 2, depth);
      if (next === -1) return -1;
      const c = text.charCodeAt(next);
      if (c === CLOSE_BRACE) return next + 1;
      if (c !== COMMA) return -1;
      next += 1;
    }
  }

  private array(at: number, depth: number): number {
    const text = this.text;
    let next = at + 1;
    if (text.charCodeAt(next) === CLOSE_BRACKET) return next + 1;
    for (;;) {
      next = this.value(next, depth);
      if (next === -1) return -1;
      const c = text.charCodeAt(next);
      if (c === CLOSE_BRACKET) return next + 1;
      if (c !== COMMA) return -1;
      next += 1;
    }
  }

  /** Where a key that starts at `start` (after its quote) ends: at its closing quote. -1 for an empty key, a key with an escape or one starting with a digit. */
  private keyEnd(start: number): number {
    const text = this.text;
    const first = text.charCodeAt(start);
    if (first === QUOTE || (first >= ZERO && first <= NINE)) return -1;
    // With no backslash anywhere, the key ends at the next quote, as a string does (`string`).
    if (!this.hasEscapes) return text.indexOf('"', start + 1);
    for (let index = start; index < text.length; index += 1) {
      const c = text.charCodeAt(index);
      if (c === QUOTE) return index;
      if (c === BACKSLASH) return -1;
    }
    return -1;
  }

  string(at: number): number {
    const text = this.text;
    if (!this.hasEscapes) {
      const end = text.indexOf('"', at + 1);
      return end === -1 ? -1 : end + 1;
    }
    for (let index = at + 1; index < text.length; index += 1) {
      const c = text.charCodeAt(index);
      if (c === QUOTE) return index + 1;
      if (c === BACKSLASH) {
        const escaped = text.charCodeAt(index + 1);
        // The escapes JSON.stringify writes itself; \u, \/ and the rest are not shown here.
        if (escaped !== QUOTE && escaped !== BACKSLASH && escaped !== 0x62 && escaped !== 0x66 && escaped !== 0x6e && escaped !== 0x72 && escaped !== 0x74) return -1;
        index += 1;
      }
    }
    return -1;
  }

  integer(at: number): number {
    const text = this.text;
    const negative = text.charCodeAt(at) === MINUS;
    const digitsStart = negative ? at + 1 : at;
    let end = digitsStart;
    while (end < text.length) {
      const c = text.charCodeAt(end);
      if (c < ZERO || c > NINE) break;
      end += 1;
    }
    const digits = end - digitsStart;
    if (digits === 0 || digits > MAX_INTEGER_DIGITS) return -1;
    if (text.charCodeAt(digitsStart) === ZERO && (digits > 1 || negative)) return -1;
    // A fraction or an exponent: not shown here.
    const after = text.charCodeAt(end);
    if (after === 0x2e || after === 0x65 || after === 0x45) return -1;
    return end;
  }

  /** Whether the key at [aStart, aEnd) sorts strictly before the key at [bStart, bEnd), by UTF-16 code units. */
  private precedes(aStart: number, aEnd: number, bStart: number, bEnd: number): boolean {
    const text = this.text;
    const aLength = aEnd - aStart;
    const bLength = bEnd - bStart;
    const common = aLength < bLength ? aLength : bLength;
    for (let index = 0; index < common; index += 1) {
      const a = text.charCodeAt(aStart + index);
      const b = text.charCodeAt(bStart + index);
      if (a !== b) return a < b;
    }
    return aLength < bLength;
  }
}

import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, isCanonicalText, isSha256Text, SHA256_PATTERN } from '../../src/events/canonical.js';

function reference(value: unknown): { text?: string; threw: boolean } {
  try {
    return { text: canonicalize(value), threw: false };
  } catch {
    return { threw: true };
  }
}

function ours(value: unknown): { text?: string; threw: boolean } {
  try {
    return { text: canonicalJson(value), threw: false };
  } catch {
    return { threw: true };
  }
}

// Keys and strings drawn from all UTF-16 code units, lone surrogates included.
const anyString = fc.string({ unit: 'binary', maxLength: 12 });
const anyJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
    anyString,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(anyString, tie('value'), { maxKeys: 6 }),
  ),
})).value;

describe('canonicalJson', () => {
  it('matches the canonicalize package byte for byte on arbitrary JSON values (20,000 cases)', () => {
    fc.assert(
      fc.property(anyJson, (value) => {
        expect(ours(value)).toEqual(reference(value));
      }),
      { numRuns: 20_000, seed: 8785 },
    );
  });

  it('writes the RFC 8785 number forms', () => {
    const cases: [number, string][] = [[-0, '0'], [1e21, '1e+21'], [1e-7, '1e-7'], [333333333.33333329, '333333333.3333333'], [4.5, '4.5'], [2 ** 53, '9007199254740992'], [5e-324, '5e-324']];
    for (const [value, text] of cases) expect(canonicalJson(value)).toBe(text);
  });

  it('sorts keys by UTF-16 code units, as RFC 8785 section 3.2.3 shows', () => {
    const value = { '\u20ac': 'Euro Sign', '\r': 'Carriage Return', '\ufb33': 'Hebrew Letter Dalet With Dagesh', '1': 'One', '\ud83d\ude00': 'Emoji: Grinning Face', '\u0080': 'Control', '\u00f6': 'Latin Small Letter O With Diaeresis' };
    const text = canonicalJson(value);
    // Read the values in text order (JSON.parse would move the integer-like key "1" first).
    expect([...text.matchAll(/:"([^"]*)"/g)].map((match) => match[1])).toEqual(['Carriage Return', 'One', 'Control', 'Latin Small Letter O With Diaeresis', 'Euro Sign', 'Emoji: Grinning Face', 'Hebrew Letter Dalet With Dagesh']);
  });

  it('writes objects that JSON.stringify treats specially as JCS does', () => {
    const protoKey = JSON.parse('{"z":1,"__proto__":{"b":2,"a":1}}') as unknown;
    expect(canonicalJson(protoKey)).toBe('{"__proto__":{"a":1,"b":2},"z":1}');
    expect(canonicalJson({ b: new Date(0), a: [undefined, () => 1], c: undefined })).toBe('{"a":[null,null],"b":"1970-01-01T00:00:00.000Z"}');
    expect(canonicalJson({ b: 1, 10: 'ten', 9: 'nine' })).toBe('{"10":"ten","9":"nine","b":1}');
    expect(canonicalJson({ inner: { toJSON: () => ({ y: 1, x: 2 }) } })).toBe('{"inner":{"x":2,"y":1}}');
    expect(canonicalJson(Object.assign(Object.create(null) as object, { b: 1, a: 2 }))).toBe('{"a":2,"b":1}');
    expect(canonicalJson({ s: 'a\\ud800', t: '\ud83d\ude00' })).toBe(canonicalize({ s: 'a\\ud800', t: '\ud83d\ude00' }));
    expect(() => canonicalJson({ a: { toJSON: () => undefined } })).toThrow();
    expect(() => canonicalJson({ a: 1n })).toThrow();
  });

  it('refuses what JCS cannot represent', () => {
    expect(() => canonicalJson(Number.NaN)).toThrow();
    expect(() => canonicalJson({ a: Number.POSITIVE_INFINITY })).toThrow();
    expect(() => canonicalJson('\ud800')).toThrow();
    let deep: unknown = 1;
    for (let depth = 0; depth < 300; depth += 1) deep = [deep];
    expect(() => canonicalJson(deep)).toThrow();
  });

  it('isCanonicalText accepts exactly the canonical form of a value', () => {
    fc.assert(
      fc.property(anyJson, (value) => {
        const expected = reference(value);
        if (expected.threw || expected.text === undefined) return;
        expect(isCanonicalText(expected.text, JSON.parse(expected.text))).toBe(true);
        const spaced = JSON.stringify(value, null, 1);
        if (spaced !== expected.text) expect(isCanonicalText(spaced, JSON.parse(spaced))).toBe(false);
      }),
      { numRuns: 5_000, seed: 3 },
    );
  });
});

describe('isSha256Text', () => {
  const hash = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 }).map((digits) => `sha256:${digits}`);
  // Characters next to the digits' ranges, in other cases, beyond ASCII, and line ends (which `$` must not let through).
  const odd = fc.constantFrom('/', ':', '`', 'g', 'A', 'F', 'G', 'S', '0', 'f', '\n', '\r', ' ', '\u0000', '\u00e9', '\u0130', '\u0660', '\uff10', '\ud83d', 'sha256:', '');
  const mutated = fc.tuple(hash, fc.nat(80), odd, fc.constantFrom('replace', 'insert', 'append', 'prepend')).map(([text, at, piece, how]) => {
    const index = at % (text.length + 1);
    if (how === 'append') return `${text}${piece}`;
    if (how === 'prepend') return `${piece}${text}`;
    return `${text.slice(0, index)}${piece}${text.slice(how === 'insert' ? index : index + 1)}`;
  });

  it('answers as SHA256_PATTERN on hashes, hashes with one character changed, added or removed, and random strings', () => {
    let accepted = 0;
    let rejected = 0;
    fc.assert(
      fc.property(fc.oneof(hash, mutated, fc.string({ maxLength: 80 }), fc.string({ unit: 'binary', maxLength: 75 })), (text) => {
        const expected = SHA256_PATTERN.test(text);
        expect(isSha256Text(text), JSON.stringify(text)).toBe(expected);
        if (expected) accepted += 1;
        else rejected += 1;
      }),
      { numRuns: 50_000, seed: 71 },
    );
    // Both answers must have been put to the test many times.
    expect(accepted).toBeGreaterThan(5_000);
    expect(rejected).toBeGreaterThan(5_000);
  });

  it('rejects each non-digit at each of the 64 places', () => {
    const valid = `sha256:${'0123456789abcdef'.repeat(4)}`;
    expect(isSha256Text(valid)).toBe(true);
    for (let index = 0; index < valid.length; index += 1) {
      for (const c of ['g', 'A', '/', ':', '`', '\u0080', '\u0130']) {
        const text = `${valid.slice(0, index)}${c}${valid.slice(index + 1)}`;
        expect(isSha256Text(text), text).toBe(SHA256_PATTERN.test(text));
      }
    }
  });
});

import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/events/canonical.js';

/**
 * canonicalJson keeps a plan per object key sequence (keys sorted and quoted once). These hold it
 * to the canonicalize package where the plans matter: the same shapes over and over with other
 * values, the same key set in other orders, keys JCS and V8 order differently, inherited keys, and
 * after the cache's bounds are reached.
 */

function reference(value: unknown): string | undefined {
  try {
    return canonicalize(value);
  } catch {
    return undefined;
  }
}

function ours(value: unknown): string | undefined {
  try {
    return canonicalJson(value);
  } catch {
    return undefined;
  }
}

// A small alphabet and at most 4 keys per object, so that shapes recur and all of them fit in the
// cache (at most 8 + 8^2 + 8^3 + 8^4 = 4,680 trie nodes, below its 8,192); integer-like keys, which V8
// enumerates first, and keys that need escapes or are astral included.
const key = fc.constantFrom('b', 'a', 'B', '10', '9', '"q"', '\ud83d\ude00', '__proto__');
const leaf = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string({ unit: 'binary', maxLength: 6 }), fc.constant(undefined));
const shaped = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('value'), { maxLength: 3 }), fc.array(fc.tuple(key, tie('value')), { maxLength: 4 }).map(objectFrom)),
})).value;

/** An object with the entries in the given order (a later duplicate key keeps the first's place). */
function objectFrom(entries: [string, unknown][]): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [name, value] of entries) Object.defineProperty(object, name, { value, enumerable: true, writable: true, configurable: true });
  return object;
}

describe('canonicalJson key plans', () => {
  // First: once the cache is full, objects are written uncached and this could not fail.
  it('leaves inherited enumerable keys out, as Object.keys does', () => {
    const base = { z: 1, inherited: 2 };
    for (let round = 0; round < 3; round += 1) {
      const value = Object.assign(Object.create(base) as Record<string, unknown>, { b: round, a: 'x' });
      expect(canonicalJson(value)).toBe(`{"a":"x","b":${round}}`);
      expect(canonicalJson({ outer: value, c: true })).toBe(canonicalize({ outer: { a: 'x', b: round }, c: true }));
    }
    // Own keys b, a, z in that order, and own b, a with z inherited: one enumeration order, two key sets.
    const inheritsZ = Object.assign(Object.create({ z: 'inherited' }) as Record<string, unknown>, { b: 1, a: 2 });
    for (const value of [{ b: 1, a: 2, z: 3 }, inheritsZ, { b: 1, a: 2, z: 3 }, inheritsZ]) expect(canonicalJson(value)).toBe(canonicalize({ ...value }));
  });

  it('matches canonicalize over recurring shapes with other values and key orders (batches of 20 values)', () => {
    fc.assert(
      fc.property(fc.array(shaped, { minLength: 1, maxLength: 20 }), (values) => {
        for (const value of values) expect(ours(value)).toEqual(reference(value));
        // The same values again, now that every shape among them has a plan.
        for (const value of values) expect(ours(value)).toEqual(reference(value));
      }),
      { numRuns: 3000, seed: 2026 },
    );
  });

  it('writes the same bytes once the shape cache is full, and for objects past its bounds', () => {
    const many = Array.from({ length: 9000 }, (_, i) => ({ [`k${i}`]: i, a: i, [`j${i}`]: [i] }));
    for (const value of many) expect(canonicalJson(value)).toBe(canonicalize(value));
    const wide = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`w${99 - i}`, i]));
    const longKeys = { ['k'.repeat(300)]: 1, a: 2 };
    // Shapes never seen before are uncached now: sorted ones take JSON.stringify's shortcut, the others the sort.
    const sortedUncached = [{ a0: 'x', b0: { c0: [1, { d0: 2 }], e0: 'snow\u2603 \ud83d\ude00 "q" \\' } }, { a1: '\ud800' }, { a2: 1, b2: '\\ud800' }];
    for (const value of [wide, longKeys, { b: 1, a: { d: 2, c: 3 } }, ...sortedUncached, ...many.slice(0, 50)]) {
      expect(ours(value)).toEqual(reference(value));
      expect(ours(value)).toEqual(reference(value));
    }
  });
});

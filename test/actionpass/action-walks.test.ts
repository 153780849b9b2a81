import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkJsonValue, hasLoneSurrogate, isWithinJsonLimits, loneSurrogateAt, MAX_PAYLOAD_DEPTH, MAX_STRING_LENGTH, type ActionIssue } from '../../src/actionpass/action.js';

/**
 * normalizeAction walks the input twice before anything else (lone surrogates, then the payload's
 * JSON limits), first with the boolean walks that name no path, then, only for an input that
 * fails, with the walks that name it. The boolean walks must fail exactly where the naming ones
 * find something.
 */

const edgeStrings = fc.constantFrom('', 'plain', '\ud800', 'a\udc00b', '😀', '\ud83d\ude00', 'x'.repeat(MAX_STRING_LENGTH), 'x'.repeat(MAX_STRING_LENGTH + 1));
const edgeKeys = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('__proto__', 'constructor', 'prototype', '\udbff', 'k'.repeat(MAX_STRING_LENGTH + 1)));
const edgeNumbers = fc.constantFrom(0, -0, 2 ** 53, -(2 ** 53), 2 ** 53 + 2, Number.NaN, Number.POSITIVE_INFINITY, 1.5);
const leaf = fc.oneof(fc.string({ unit: 'binary', maxLength: 8 }), edgeStrings, fc.double(), fc.integer(), edgeNumbers, fc.boolean(), fc.constant(null), fc.constant(undefined), fc.bigInt(), fc.constant(() => 1), fc.constant(Symbol('s')));

/** JSON-like trees with every kind of defect, holes in arrays, other prototypes and JSON.parse's `__proto__` keys. */
const tree: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('array'), tie('object'), tie('odd')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(edgeKeys, tie('value'), { maxKeys: 4 }),
  odd: fc.oneof(
    fc.constant(new Date(0)),
    fc.constant(Object.create(null) as object),
    fc.constant(JSON.parse('{"__proto__": {"a": 1}}') as object),
    fc.constant([1, , 3]),
  ),
})).value;

/** A chain `depth` levels deep, to reach the depth limits of both walks. */
const deep = fc.tuple(fc.integer({ min: MAX_PAYLOAD_DEPTH - 2, max: MAX_PAYLOAD_DEPTH + 6 }), fc.constantFrom<unknown>('ok', '\ud800', 1, Number.NaN)).map(([depth, bottom]) => {
  let value: unknown = bottom;
  for (let level = 0; level < depth; level += 1) value = level % 2 === 0 ? { k: value } : [value];
  return value;
});

describe('the boolean walks of normalizeAction', () => {
  it('hasLoneSurrogate is true exactly where loneSurrogateAt names a path', () => {
    fc.assert(
      fc.property(fc.oneof(tree, deep), (value) => {
        expect(hasLoneSurrogate(value, 0)).toBe(loneSurrogateAt(value, '', 0) !== undefined);
      }),
      { numRuns: 3000 },
    );
  });

  it('isWithinJsonLimits is true exactly where checkJsonValue finds no issue', () => {
    fc.assert(
      fc.property(fc.oneof(tree, deep), (value) => {
        const issues: ActionIssue[] = [];
        checkJsonValue(value, 'capability.payload', 1, issues);
        expect(isWithinJsonLimits(value, 1)).toBe(issues.length === 0);
      }),
      { numRuns: 3000 },
    );
  });
});

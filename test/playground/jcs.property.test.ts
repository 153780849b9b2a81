/** The browser's canonical JSON (src/playground/public/jcs.js) against the server's, on generated values. */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/events/canonical.js';

const browser = (await import(pathToFileURL(join(import.meta.dirname, '../../src/playground/public/jcs.js')).href)) as { canonicalize(value: unknown): string };

const wellFormed = fc.string({ unit: 'grapheme', maxLength: 20 });
const value = fc.letrec((tie) => ({
  any: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.boolean(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), wellFormed, fc.array(tie('any'), { maxLength: 5 }), fc.dictionary(fc.string({ unit: 'binary-ascii', maxLength: 8 }).filter((key) => key !== '__proto__'), tie('any'), { maxKeys: 5 })),
})).any;

describe('browser JCS', () => {
  it('equals the server canonicalJson on generated JSON values', () => {
    fc.assert(
      fc.property(value, (generated) => {
        expect(browser.canonicalize(generated)).toBe(canonicalJson(generated));
      }),
      { numRuns: 3000 },
    );
  });
  it('sorts keys by UTF-16 code units and writes numbers the ECMAScript way', () => {
    const sample = { b: 1e21, a: -0, '\u20ac': 1.5, '\ud83d\ude00': 'x', A: [0.1, 1e-7] };
    expect(browser.canonicalize(sample)).toBe(canonicalJson(sample));
  });
});

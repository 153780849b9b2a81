import { readFile } from 'node:fs/promises';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCanonicalText } from '../../src/events/canonical.js';
import { isPlainCanonicalForm } from '../../src/events/canonical-form.js';

// Keys and strings from all UTF-16 code units (lone surrogates included), and from the few
// characters where the scan's rules sit: quotes, backslashes, controls, digits, key order.
const anyString = fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), fc.string({ unit: fc.constantFrom('a', 'b', 'B', '0', '1', '"', '\\', '\n', '\u0001', '/', 'é', '\u2028'), maxLength: 6 }));
const anyJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
    fc.constantFrom(0, -0, 1e15, 1e16, 2 ** 53 + 2, 0.5),
    anyString,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(anyString, tie('value'), { maxKeys: 6 }),
  ),
})).value;

/** Texts near the canonical form: canonical, spaced, JSON.stringify's key order, or with one character changed. */
const nearlyCanonical = fc.tuple(anyJson, fc.nat(), fc.constantFrom('', ' ', '0', '"', '\\', ',', 'e', '.', '-', '}', 'u')).map(([value, at, replacement]) => {
  let text: string;
  try {
    text = canonicalize(value) ?? 'null';
  } catch {
    text = JSON.stringify(value) ?? 'null';
  }
  const variants = [text, JSON.stringify(value, null, 1) ?? 'null', JSON.stringify(value) ?? 'null'];
  const chosen = variants[at % variants.length] as string;
  const index = at % (chosen.length + 1);
  return [chosen, `${chosen.slice(0, index)}${replacement}${chosen.slice(index + 1)}`];
});

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

describe('isPlainCanonicalForm', () => {
  it('answers true only for texts isCanonicalText accepts (20,000 texts near the canonical form)', () => {
    fc.assert(
      fc.property(nearlyCanonical, (texts) => {
        for (const text of texts) {
          if (!parses(text)) continue;
          if (isPlainCanonicalForm(text)) expect(isCanonicalText(text, JSON.parse(text)), text).toBe(true);
        }
      }),
      { numRuns: 20_000, seed: 42 },
    );
  });

  it('shows every line of the valid ledgers canonical by itself', async () => {
    for (const path of ['testdata/ledgers/valid/ledger.jsonl', 'testdata/ledgers/valid-bundle/ledger.jsonl']) {
      const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
      for (const line of lines) expect(isPlainCanonicalForm(line), line).toBe(true);
    }
  });

  it('leaves to the slow path what it does not show', () => {
    const notShown = ['{"b":1,"a":2}', '{"a":1,"a":1}', '{"a": 1}', ' {"a":1}', '{"a":1} ', '{"a":1.5}', '{"a":1e3}', '{"a":-0}', '{"a":12345678901234567}', '{"a":"\\u0001"}', '{"a":"\\/"}', '{"\\"":1}', '{"1":1,"a":2}', '{"":1}', '"\ud83d\ude00"', `${'['.repeat(200)}${']'.repeat(200)}`];
    for (const text of notShown) expect(isPlainCanonicalForm(text), text).toBe(false);
    const shown = ['{"a":"\\"\\\\\\b\\f\\n\\r\\t","b":[1,-2,true,false,null,{}],"c":{"A":[],"a":"é\u2028"}}', '0', '-123456789012345', '[]', '"x"'];
    for (const text of shown) expect(isPlainCanonicalForm(text), text).toBe(true);
  });
});

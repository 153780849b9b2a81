import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_COMPACT_JWS_LENGTH, parseCompactJws, signCompactJws, verifyCompactJws } from '../../src/actionpass/jws.js';
import { sign } from '../../src/actionpass/keys.js';
import { passKey, reviewerKey, withPart } from './token-fixtures.js';

const HEADER = { typ: 'svc-test+jwt', kid: passKey.name };

function b64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

/** A token over raw header and claims texts, validly signed, so only the parser can refuse it. */
function signedRaw(headerText: string, claimsText: string): string {
  const input = `${b64(headerText)}.${b64(claimsText)}`;
  return `${input}.${sign(passKey, Buffer.from(input, 'ascii')).toString('base64url')}`;
}

describe('parseCompactJws', () => {
  it('parses what signCompactJws writes, and the signature verifies under the signer only', () => {
    const token = signCompactJws(passKey, HEADER, { b: 2, a: 'x' });
    const parsed = parseCompactJws(token);
    expect(parsed?.header).toEqual({ alg: 'EdDSA', ...HEADER });
    expect(parsed?.claims).toEqual({ a: 'x', b: 2 });
    expect(parsed?.signature.length).toBe(64);
    expect(parsed?.signingInput.toString('ascii')).toBe(token.slice(0, token.lastIndexOf('.')));
    expect(parsed && verifyCompactJws(parsed, passKey.publicKey)).toBe(true);
    expect(parsed && verifyCompactJws(parsed, reviewerKey.publicKey)).toBe(false);
    // Canonical serialization: keys sorted, no whitespace.
    expect(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')).toBe('{"a":"x","b":2}');
  });

  it('accepts header members in any order (other JOSE libraries sign too)', () => {
    const token = signedRaw('{"kid":"k","typ":"t","alg":"EdDSA"}', '{"a":1}');
    expect(parseCompactJws(token)?.header).toEqual({ alg: 'EdDSA', typ: 't', kid: 'k' });
  });

  const valid = signCompactJws(passKey, HEADER, { a: 1 });
  const [h, c, s] = valid.split('.') as [string, string, string];

  it.each([
    ['not a string', 42],
    ['empty', ''],
    ['two parts', `${h}.${c}`],
    ['four parts', `${valid}.${s}`],
    ['empty claims part', `${h}..${s}`],
    ['padding', `${h}.${c}=.${s}`],
    ['the standard base64 alphabet', `${h}.${c}.+${s.slice(1)}`],
    ['whitespace', `${h}.${c} .${s}`],
    ['short signature', `${h}.${c}.${s.slice(0, 85)}`],
    ['long signature', `${h}.${c}.${s}AA`],
    ['oversized', `${h}.${'A'.repeat(MAX_COMPACT_JWS_LENGTH)}.${s}`],
  ])('refuses %s', (_name, token) => {
    expect(parseCompactJws(token)).toBeUndefined();
  });

  it('refuses base64url whose trailing bits are not zero (two spellings of one token)', () => {
    // 64 bytes encode to 86 characters; the last one carries 4 unused bits.
    const last = s.at(-1) ?? 'A';
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sibling = alphabet[alphabet.indexOf(last) ^ 1] ?? 'B';
    expect(Buffer.from(`${s.slice(0, -1)}${sibling}`, 'base64url').equals(Buffer.from(s, 'base64url'))).toBe(true);
    expect(parseCompactJws(`${h}.${c}.${s.slice(0, -1)}${sibling}`)).toBeUndefined();
  });

  it.each([
    ['alg none', '{"alg":"none","typ":"t","kid":"k"}'],
    ['alg HS256', '{"alg":"HS256","typ":"t","kid":"k"}'],
    ['alg Ed25519 (not the JOSE name)', '{"alg":"Ed25519","typ":"t","kid":"k"}'],
    ['no kid', '{"alg":"EdDSA","typ":"t"}'],
    ['no typ', '{"alg":"EdDSA","kid":"k"}'],
    ['empty kid', '{"alg":"EdDSA","typ":"t","kid":""}'],
    ['numeric kid', '{"alg":"EdDSA","typ":"t","kid":1}'],
    ['crit', '{"alg":"EdDSA","typ":"t","kid":"k","crit":["b64"]}'],
    ['embedded jwk', '{"alg":"EdDSA","typ":"t","kid":"k","jwk":{}}'],
    ['duplicate alg', '{"alg":"none","typ":"t","kid":"k","alg":"EdDSA"}'],
    ['an array', '["EdDSA"]'],
    ['not JSON', 'alg=EdDSA'],
    ['a byte-order mark', '\uFEFF{"alg":"EdDSA","typ":"t","kid":"k"}'],
  ])('refuses a header with %s', (_name, headerText) => {
    expect(parseCompactJws(signedRaw(headerText, '{"a":1}'))).toBeUndefined();
  });

  it.each([
    ['an array', '[1]'],
    ['a string', '"a"'],
    ['null', 'null'],
    ['not JSON', '{a:1}'],
    ['a duplicate member', '{"a":1,"a":2}'],
    ['a duplicate member spelled with an escape', '{"a":1,"\\u0061":2}'],
    ['a duplicate member in a nested object', '{"a":{"b":1,"c":[{"d":1,"d":2}]}}'],
  ])('refuses claims that are %s', (_name, claimsText) => {
    expect(parseCompactJws(signedRaw('{"alg":"EdDSA","typ":"t","kid":"k"}', claimsText))).toBeUndefined();
  });

  it('accepts equal member names in different objects, and escaped quotes in strings', () => {
    const parsed = parseCompactJws(signedRaw('{"alg":"EdDSA","typ":"t","kid":"k"}', '{"a":{"a":"x\\"a\\"y"},"b":[{"a":1},{"a":2}],"c":"{\\"a\\":1,"}'));
    expect(parsed?.claims).toEqual({ a: { a: 'x"a"y' }, b: [{ a: 1 }, { a: 2 }], c: '{"a":1,' });
  });

  it('refuses invalid UTF-8 in the claims', () => {
    const input = `${b64('{"alg":"EdDSA","typ":"t","kid":"k"}')}.${Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]).toString('base64url')}`;
    expect(parseCompactJws(`${input}.${s}`)).toBeUndefined();
  });

  it('survives claims nested deeper than the JSON parser can go', () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    expect(parseCompactJws(withPart(valid, 1, b64(`{"a":${deep}}`)))).toBeDefined();
    expect(() => parseCompactJws(withPart(valid, 1, b64('{"a":'.repeat(3000))))).not.toThrow();
  });

  it('never throws, whatever the input', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.base64String(), fc.anything()), (input) => {
        expect(() => parseCompactJws(input)).not.toThrow();
      }),
      { numRuns: 2000 },
    );
  });

  it('round-trips any JSON object as claims', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 8 }), (claims) => {
        const token = signCompactJws(passKey, HEADER, claims);
        fc.pre(token.length <= MAX_COMPACT_JWS_LENGTH);
        const parsed = parseCompactJws(token);
        expect(parsed).toBeDefined();
        expect(parsed?.claims).toEqual(JSON.parse(JSON.stringify(claims)));
      }),
      { numRuns: 300 },
    );
  });
});

import * as ed from '@noble/ed25519';
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateSigningKey } from '../../src/actionpass/keys.js';
import { canonicalJson } from '../../src/events/canonical.js';
import { noteKeyId } from '../../src/events/checkpoint.js';
import {
  IN_TOTO_PAYLOAD_TYPE,
  MAX_ENVELOPE_BYTES,
  openEnvelope,
  pae,
  signStatement,
  type DsseEnvelope,
  type InTotoStatement,
} from '../../src/evidence/attestation.js';

ed.hashes.sha512 = sha512;

const hex = (text: string) => Buffer.from(sha256(new TextEncoder().encode(text))).toString('hex');

const STATEMENT: InTotoStatement = {
  _type: 'https://in-toto.io/Statement/v1',
  subject: [
    { name: 'ledger.jsonl', digest: { sha256: hex('ledger') } },
    { name: 'checkpoint', digest: { sha256: hex('checkpoint') } },
    { name: 'projections/decisions.jsonl', digest: { sha256: hex('decisions') } },
  ],
  predicateType: 'urn:svc:ledger-export:v0',
  predicate: { origin: 'svc.local/org:acme/abc', size: 12, root: 'sha256:00', checkpoint: 'note', reducerVersion: '1' },
};

function encode(value: unknown): string {
  return JSON.stringify(value);
}

/** Signs arbitrary payload bytes as a DSSE envelope with @noble (independent of the module under test). */
function nobleEnvelope(secret: Uint8Array, payload: Uint8Array, payloadType = IN_TOTO_PAYLOAD_TYPE): DsseEnvelope {
  const type = new TextEncoder().encode(payloadType);
  const header = new TextEncoder().encode(`DSSEv1 ${type.length} `);
  const middle = new TextEncoder().encode(` ${payload.length} `);
  const message = new Uint8Array([...header, ...type, ...middle, ...payload]);
  return {
    payload: Buffer.from(payload).toString('base64'),
    payloadType,
    signatures: [{ keyid: '', sig: Buffer.from(ed.sign(message, secret)).toString('base64') }],
  };
}

describe('PAE', () => {
  it('matches the DSSE specification example', () => {
    expect(pae('http://example.com/HelloWorld', Buffer.from('hello world')).toString('utf8')).toBe(
      'DSSEv1 29 http://example.com/HelloWorld 11 hello world',
    );
  });

  it('counts bytes, not characters, and handles empty parts', () => {
    expect(pae('ü', Buffer.from('é€')).equals(Buffer.concat([Buffer.from('DSSEv1 2 ü 5 ', 'utf8'), Buffer.from('é€')]))).toBe(true);
    expect(pae('', new Uint8Array()).toString()).toBe('DSSEv1 0  0 ');
    const binary = Uint8Array.of(0, 255, 10, 32);
    expect(pae('t', binary).equals(Buffer.concat([Buffer.from('DSSEv1 1 t 4 '), binary]))).toBe(true);
  });
});

describe('signStatement / openEnvelope', () => {
  const key = generateSigningKey('svc.local/org:acme/abc');

  it('round-trips a statement', () => {
    const envelope = signStatement(key, STATEMENT);
    expect(envelope.payloadType).toBe('application/vnd.in-toto+json');
    expect(Buffer.from(envelope.payload, 'base64').toString('utf8')).toBe(canonicalJson(STATEMENT));
    expect(envelope.signatures).toHaveLength(1);
    expect(envelope.signatures[0]?.keyid).toBe(noteKeyId(key.name, key.publicKey).toString('hex'));
    expect(envelope.signatures[0]?.keyid).toMatch(/^[0-9a-f]{8}$/);
    expect(openEnvelope(encode(envelope), key.publicKey)).toEqual({ ok: true, statement: STATEMENT });
  });

  it('produces a signature @noble/ed25519 verifies over PAE', () => {
    const envelope = signStatement(key, STATEMENT);
    const payload = Buffer.from(envelope.payload, 'base64');
    const message = pae(IN_TOTO_PAYLOAD_TYPE, payload);
    const sig = Buffer.from(envelope.signatures[0]?.sig ?? '', 'base64');
    expect(sig).toHaveLength(64);
    expect(ed.verify(sig, message, key.publicKey)).toBe(true);
    // Not over the bare payload.
    expect(ed.verify(sig, payload, key.publicKey)).toBe(false);
  });

  it('opens an envelope signed with @noble', () => {
    const secret = ed.utils.randomSecretKey();
    const envelope = nobleEnvelope(secret, Buffer.from(canonicalJson(STATEMENT)));
    expect(openEnvelope(encode(envelope), ed.getPublicKey(secret))).toEqual({ ok: true, statement: STATEMENT });
    expect(openEnvelope(encode(envelope), key.publicKey)).toMatchObject({ ok: false, code: 'attestation_signature_invalid' });
  });

  it('rejects a wrong key, a changed payload and a changed signature as attestation_signature_invalid', () => {
    const envelope = signStatement(key, STATEMENT);
    const other = generateSigningKey('other');
    expect(openEnvelope(encode(envelope), other.publicKey)).toMatchObject({ ok: false, code: 'attestation_signature_invalid' });

    const changed = { ...STATEMENT, predicate: { ...(STATEMENT.predicate as object), size: 13 } };
    const swapped = { ...envelope, payload: Buffer.from(canonicalJson(changed)).toString('base64') };
    expect(openEnvelope(encode(swapped), key.publicKey)).toMatchObject({ ok: false, code: 'attestation_signature_invalid' });

    const sig = Buffer.from(envelope.signatures[0]?.sig ?? '', 'base64');
    sig[5] = (sig[5] ?? 0) ^ 1;
    const badSig = { ...envelope, signatures: [{ keyid: envelope.signatures[0]?.keyid ?? '', sig: sig.toString('base64') }] };
    expect(openEnvelope(encode(badSig), key.publicKey)).toMatchObject({ ok: false, code: 'attestation_signature_invalid' });

    const short = { ...envelope, signatures: [{ keyid: '', sig: sig.subarray(0, 63).toString('base64') }] };
    expect(openEnvelope(encode(short), key.publicKey)).toMatchObject({ ok: false, code: 'attestation_signature_invalid' });
    expect(openEnvelope(encode(envelope), key.publicKey.subarray(0, 31))).toMatchObject({ ok: false, code: 'attestation_signature_invalid' });
  });

  it('treats keyid as a hint: any verifying signature opens the envelope', () => {
    const envelope = signStatement(key, STATEMENT);
    const other = signStatement(generateSigningKey('other'), STATEMENT);
    const both = { ...envelope, signatures: [...other.signatures, ...envelope.signatures] };
    expect(openEnvelope(encode(both), key.publicKey).ok).toBe(true);
    const noKeyid = { ...envelope, signatures: [{ sig: envelope.signatures[0]?.sig }] };
    expect(openEnvelope(encode(noKeyid), key.publicKey).ok).toBe(true);
    const wrongKeyid = { ...envelope, signatures: [{ keyid: 'whatever', sig: envelope.signatures[0]?.sig }] };
    expect(openEnvelope(encode(wrongKeyid), key.publicKey).ok).toBe(true);
  });

  it('accepts URL-safe base64 and ignores unknown envelope fields (DSSE parsing rules)', () => {
    const envelope = signStatement(key, STATEMENT);
    const payload = Buffer.from(envelope.payload, 'base64');
    const sig = Buffer.from(envelope.signatures[0]?.sig ?? '', 'base64');
    const urlSafe = { ...envelope, payload: payload.toString('base64url'), signatures: [{ keyid: '', sig: sig.toString('base64url') }] };
    expect(openEnvelope(encode(urlSafe), key.publicKey).ok).toBe(true);
    expect(openEnvelope(encode({ ...envelope, future: { x: 1 } }), key.publicKey).ok).toBe(true);
  });

  const signed = (statement: unknown, payloadType?: string) => {
    const secret = ed.utils.randomSecretKey();
    const text = typeof statement === 'string' ? statement : canonicalJson(statement);
    return { json: encode(nobleEnvelope(secret, Buffer.from(text), payloadType)), publicKey: ed.getPublicKey(secret) };
  };

  const invalidCases: [string, () => { json: string; publicKey: Uint8Array }][] = [
    ['payloadType mismatch', () => signed(STATEMENT, 'application/json')],
    ['payloadType changed after signing', () => {
      const envelope = signStatement(key, STATEMENT);
      return { json: encode({ ...envelope, payloadType: 'application/vnd.in-toto+jsonx' }), publicKey: key.publicKey };
    }],
    ['statement _type v0.1', () => signed({ ...STATEMENT, _type: 'https://in-toto.io/Statement/v0.1' })],
    ['statement without _type', () => signed({ subject: STATEMENT.subject, predicateType: 'x', predicate: {} })],
    ['no subjects', () => signed({ ...STATEMENT, subject: [] })],
    ['uppercase digest', () => signed({ ...STATEMENT, subject: [{ name: 'a', digest: { sha256: hex('a').toUpperCase() } }] })],
    ['short digest', () => signed({ ...STATEMENT, subject: [{ name: 'a', digest: { sha256: 'abc' } }] })],
    ['digest without sha256', () => signed({ ...STATEMENT, subject: [{ name: 'a', digest: { sha512: hex('a') } }] })],
    ['empty subject name', () => signed({ ...STATEMENT, subject: [{ name: '', digest: { sha256: hex('a') } }] })],
    ['duplicate subject name', () => signed({ ...STATEMENT, subject: [STATEMENT.subject[0], STATEMENT.subject[0]] })],
    ['empty predicateType', () => signed({ ...STATEMENT, predicateType: '' })],
    ['predicate not an object', () => signed({ ...STATEMENT, predicate: [1, 2] })],
    ['payload is an array', () => signed([STATEMENT])],
    ['payload not JSON', () => signed('not json')],
    ['payload not canonical', () => signed(JSON.stringify(STATEMENT, null, 2))],
    ['payload with duplicate keys', () => signed(canonicalJson(STATEMENT).replace('{"_type"', '{"_type":"x","_type"'))],
    ['payload not UTF-8', () => {
      const secret = ed.utils.randomSecretKey();
      return { json: encode(nobleEnvelope(secret, Uint8Array.of(0x7b, 0xff, 0x7d))), publicKey: ed.getPublicKey(secret) };
    }],
    ['payload with BOM', () => signed(`\ufeff${canonicalJson(STATEMENT)}`)],
    ['envelope not JSON', () => ({ json: '{"payload":', publicKey: key.publicKey })],
    ['envelope is null', () => ({ json: 'null', publicKey: key.publicKey })],
    ['envelope without signatures', () => ({ json: encode({ ...signStatement(key, STATEMENT), signatures: [] }), publicKey: key.publicKey })],
    ['envelope with 17 signatures', () => {
      const envelope = signStatement(key, STATEMENT);
      return { json: encode({ ...envelope, signatures: Array.from({ length: 17 }, () => envelope.signatures[0]) }), publicKey: key.publicKey };
    }],
    ['payload not base64', () => ({ json: encode({ ...signStatement(key, STATEMENT), payload: 'a b c' }), publicKey: key.publicKey })],
    ['payload with mixed base64 alphabets', () => {
      const envelope = signStatement(key, STATEMENT);
      return { json: encode({ ...envelope, payload: 'ab+/ab-_' }), publicKey: key.publicKey };
    }],
    ['sig not base64', () => {
      const envelope = signStatement(key, STATEMENT);
      return { json: encode({ ...envelope, signatures: [{ keyid: '', sig: '%%%' }] }), publicKey: key.publicKey };
    }],
    ['sig not a string', () => {
      const envelope = signStatement(key, STATEMENT);
      return { json: encode({ ...envelope, signatures: [{ keyid: '', sig: 5 }] }), publicKey: key.publicKey };
    }],
    ['payload missing', () => {
      const { payload: _payload, ...rest } = signStatement(key, STATEMENT);
      return { json: encode(rest), publicKey: key.publicKey };
    }],
  ];
  for (const [label, make] of invalidCases) {
    it(`rejects ${label} as attestation_invalid`, () => {
      const { json, publicKey } = make();
      const result = openEnvelope(json, publicKey);
      expect(result).toMatchObject({ ok: false, code: 'attestation_invalid' });
      if (!result.ok) expect(result.message.length).toBeGreaterThan(0);
    });
  }

  it('rejects oversized input cleanly', () => {
    const big = ' '.repeat(MAX_ENVELOPE_BYTES + 1);
    expect(openEnvelope(big, key.publicKey)).toMatchObject({ ok: false, code: 'attestation_invalid' });
    // Under the character count but over the byte count.
    const multiByte = `"${'é'.repeat(MAX_ENVELOPE_BYTES / 2)}"`;
    expect(openEnvelope(multiByte, key.publicKey)).toMatchObject({ ok: false, code: 'attestation_invalid', message: expect.stringContaining('larger') });
  });

  it('never throws on hostile input', () => {
    const envelope = encode(signStatement(key, STATEMENT));
    for (const value of [undefined, null, 3, {}, [], Buffer.from(envelope)]) {
      expect(openEnvelope(value as unknown as string, key.publicKey)).toMatchObject({ ok: false, code: 'attestation_invalid' });
    }
    expect(openEnvelope(envelope, null as unknown as Uint8Array)).toMatchObject({ ok: false, code: 'attestation_signature_invalid' });
    // Absurd nesting in a correctly signed payload.
    const deep = `{"_type":"https://in-toto.io/Statement/v1","predicate":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const deepEnvelope = signed(deep);
    expect(openEnvelope(deepEnvelope.json, deepEnvelope.publicKey)).toMatchObject({ ok: false, code: 'attestation_invalid' });
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(openEnvelope(JSON.stringify(value), key.publicKey).ok).toBe(false);
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), fc.nat({ max: envelope.length }), (junk, at) => {
        const result = openEnvelope(envelope.slice(0, at) + junk + envelope.slice(at), key.publicKey);
        if (result.ok) expect(result.statement).toEqual(STATEMENT);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses to sign an invalid statement', () => {
    const bad = { ...STATEMENT, subject: [] } as InTotoStatement;
    expect(() => signStatement(key, bad)).toThrow(expect.objectContaining({ code: 'attestation_invalid' }));
    const nan = { ...STATEMENT, predicate: { size: Number.NaN } };
    expect(() => signStatement(key, nan)).toThrow(expect.objectContaining({ code: 'attestation_invalid' }));
  });
});

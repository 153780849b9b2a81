import * as ed from '@noble/ed25519';
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateSigningKey, sign, signingKeyFromSeed, verifySignature, type SigningKey } from '../../src/actionpass/keys.js';
import { SvcError } from '../../src/errors.js';
import {
  checkpointBody,
  MAX_NOTE_BYTES,
  noteKeyId,
  parseCheckpoint,
  signCheckpoint,
  verifyCheckpoint,
  type TrustedNoteKey,
} from '../../src/events/checkpoint.js';

ed.hashes.sha512 = sha512;

const ORIGIN = 'svc.local/org:acme/0123abcd';
const ROOT = Buffer.from('5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', 'hex');

function trust(key: SigningKey): TrustedNoteKey {
  return { name: key.name, publicKey32: key.publicKey };
}

function parseCode(note: string): string | undefined {
  try {
    parseCheckpoint(note);
  } catch (error) {
    return error instanceof SvcError ? error.code : `not SvcError: ${String(error)}`;
  }
  return undefined;
}

/** An independent note key id: @noble/hashes sha256 over the C2SP layout. */
function nobleKeyId(name: string, publicKey: Uint8Array): Buffer {
  const bytes = new Uint8Array([...new TextEncoder().encode(name), 0x0a, 0x01, ...publicKey]);
  return Buffer.from(sha256(bytes).subarray(0, 4));
}

describe('checkpoint body and key id', () => {
  it('formats the body as origin, size, base64 root, each newline-terminated', () => {
    expect(checkpointBody('example.com/log', 5, Buffer.alloc(32))).toBe(
      'example.com/log\n5\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n',
    );
    expect(checkpointBody(ORIGIN, 0, ROOT)).toBe(`${ORIGIN}\n0\nXwg/ChozygdqlSeYMlgNs+DvRYS9/x9UyKNg9Q3jAx4=\n`);
    for (const [origin, size, root] of [
      ['', 1, ROOT],
      ['a\nb', 1, ROOT],
      ['a\rb', 1, ROOT],
      [ORIGIN, -1, ROOT],
      [ORIGIN, 1.5, ROOT],
      [ORIGIN, Number.MAX_SAFE_INTEGER + 1, ROOT],
      [ORIGIN, 1, ROOT.subarray(0, 31)],
    ] as const) {
      expect(() => checkpointBody(origin, size, root)).toThrow(expect.objectContaining({ code: 'checkpoint_invalid' }));
    }
  });

  it('computes the C2SP key id, matching @noble/hashes and the Go sumdb/note vector', () => {
    const key = generateSigningKey('svc.local/org:acme/abc');
    expect(noteKeyId(key.name, key.publicKey).equals(nobleKeyId(key.name, key.publicKey))).toBe(true);
    expect(noteKeyId('ü/ключ', key.publicKey).equals(nobleKeyId('ü/ключ', key.publicKey))).toBe(true);

    // golang.org/x/mod/sumdb/note: PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW
    const vkey = Buffer.from('ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW', 'base64');
    expect(vkey[0]).toBe(0x01);
    expect(noteKeyId('PeterNeumann', vkey.subarray(1)).toString('hex')).toBe('c74f20a3');
  });

  it('signs exactly like Go sumdb/note for the PeterNeumann example (same signed-note wire format)', () => {
    // PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz
    const seed = Buffer.from('AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz', 'base64').subarray(1);
    const key = signingKeyFromSeed('PeterNeumann', seed);
    expect(key.publicKey.equals(Buffer.from('ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW', 'base64').subarray(1))).toBe(true);
    const text = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
    const line = Buffer.concat([noteKeyId(key.name, key.publicKey), sign(key, Buffer.from(text))]).toString('base64');
    expect(line).toBe('x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=');
  });
});

describe('signCheckpoint / parseCheckpoint / verifyCheckpoint', () => {
  const key = generateSigningKey('svc.local/org:acme/abc');

  it('round-trips and has the exact DESIGN.md layout', () => {
    const note = signCheckpoint(key, ORIGIN, 42, ROOT);
    const lines = note.split('\n');
    expect(lines).toHaveLength(6);
    expect(lines.slice(0, 4)).toEqual([ORIGIN, '42', ROOT.toString('base64'), '']);
    expect(lines[4]?.startsWith(`\u2014 ${key.name} `)).toBe(true);
    expect(lines[5]).toBe('');

    const parsed = parseCheckpoint(note);
    expect(parsed.origin).toBe(ORIGIN);
    expect(parsed.size).toBe(42);
    expect(parsed.root.equals(ROOT)).toBe(true);
    expect(parsed.extensions).toEqual([]);
    expect(parsed.body).toBe(checkpointBody(ORIGIN, 42, ROOT));
    expect(parsed.signatures).toHaveLength(1);
    const [signature] = parsed.signatures;
    expect(signature?.keyName).toBe(key.name);
    expect(signature?.keyId.equals(noteKeyId(key.name, key.publicKey))).toBe(true);
    expect(signature?.signature).toHaveLength(64);

    const verified = verifyCheckpoint(note, [trust(key)]);
    expect(verified.ok).toBe(true);
    if (verified.ok) expect(verified.checkpoint).toEqual(parsed);
  });

  it('produces signatures @noble/ed25519 verifies over the body bytes', () => {
    const note = signCheckpoint(key, ORIGIN, 7, ROOT);
    const parsed = parseCheckpoint(note);
    const body = new TextEncoder().encode(checkpointBody(ORIGIN, 7, ROOT));
    expect(ed.verify(parsed.signatures[0]?.signature ?? new Uint8Array(), body, key.publicKey)).toBe(true);
  });

  it('verifies a note built and signed entirely with @noble (independent implementation)', () => {
    const secret = ed.utils.randomSecretKey();
    const publicKey = ed.getPublicKey(secret);
    const name = 'witness.example/w1';
    const body = `${ORIGIN}\n1000\n${ROOT.toString('base64')}\n`;
    const signature = ed.sign(new TextEncoder().encode(body), secret);
    const blob = Buffer.concat([nobleKeyId(name, publicKey), signature]).toString('base64');
    const note = `${body}\n\u2014 ${name} ${blob}\n`;
    const verified = verifyCheckpoint(note, [{ name, publicKey32: publicKey }]);
    expect(verified).toMatchObject({ ok: true, checkpoint: { origin: ORIGIN, size: 1000 } });
  });

  it('accepts size 0, large sizes and unicode origins', () => {
    for (const size of [0, 1, 10, Number.MAX_SAFE_INTEGER]) {
      expect(verifyCheckpoint(signCheckpoint(key, ORIGIN, size, ROOT), [trust(key)])).toMatchObject({ ok: true, checkpoint: { size } });
    }
    const origin = 'exämple.com/лог 1';
    expect(verifyCheckpoint(signCheckpoint(key, origin, 3, ROOT), [trust(key)])).toMatchObject({ ok: true, checkpoint: { origin } });
  });

  it('parses the tlog-checkpoint spec example', () => {
    const note =
      'example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n\n' +
      '\u2014 example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n';
    const parsed = parseCheckpoint(note);
    expect(parsed).toMatchObject({ origin: 'example.com/behind-the-sofa', size: 20852163 });
    expect(parsed.root.toString('base64')).toBe('CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=');
    // Its key is unknown to us: ignored, so the note is untrusted rather than invalid.
    expect(verifyCheckpoint(note, [trust(key)])).toMatchObject({ ok: false, code: 'key_untrusted' });
  });

  it('accepts and keeps extension lines, which the signature covers', () => {
    const body = `${ORIGIN}\n5\n${ROOT.toString('base64')}\next one\next two\n`;
    const blob = Buffer.concat([noteKeyId(key.name, key.publicKey), sign(key, Buffer.from(body))]).toString('base64');
    const note = `${body}\n\u2014 ${key.name} ${blob}\n`;
    const verified = verifyCheckpoint(note, [trust(key)]);
    expect(verified).toMatchObject({ ok: true, checkpoint: { extensions: ['ext one', 'ext two'], body } });
    // Dropping an extension line breaks the signature.
    expect(verifyCheckpoint(note.replace('ext two\n', ''), [trust(key)])).toMatchObject({ code: 'checkpoint_signature_invalid' });
  });

  describe('tampering', () => {
    const note = signCheckpoint(key, ORIGIN, 42, ROOT);
    const trusted = [trust(key)];
    const otherRoot = Buffer.from(ROOT);
    otherRoot[0] = (otherRoot[0] ?? 0) ^ 1;
    const signatureLine = note.split('\n')[4] ?? '';
    const blob = Buffer.from(signatureLine.split(' ')[2] ?? '', 'base64');
    const withBlob = (bytes: Buffer) => note.replace(signatureLine, `\u2014 ${key.name} ${bytes.toString('base64')}`);
    const flipped = (index: number) => {
      const copy = Buffer.from(blob);
      copy[index] = (copy[index] ?? 0) ^ 0x01;
      return withBlob(copy);
    };

    const cases: [string, string, string][] = [
      ['origin', note.replace(ORIGIN, `${ORIGIN}x`), 'checkpoint_signature_invalid'],
      ['size', note.replace('\n42\n', '\n43\n'), 'checkpoint_signature_invalid'],
      ['root', note.replace(ROOT.toString('base64'), otherRoot.toString('base64')), 'checkpoint_signature_invalid'],
      ['signature byte (first)', flipped(4), 'checkpoint_signature_invalid'],
      ['signature byte (last)', flipped(67), 'checkpoint_signature_invalid'],
      ['signature truncated', withBlob(blob.subarray(0, 67)), 'checkpoint_signature_invalid'],
      ['signature extended', withBlob(Buffer.concat([blob, Buffer.alloc(1)])), 'checkpoint_signature_invalid'],
      ['key id byte', flipped(0), 'key_untrusted'],
      ['key name', note.replace(`\u2014 ${key.name} `, `\u2014 ${key.name}x `), 'key_untrusted'],
      ['em dash replaced by -', note.replace('\u2014', '-'), 'checkpoint_invalid'],
      ['em dash replaced by en dash', note.replace('\u2014', '\u2013'), 'checkpoint_invalid'],
      ['missing space after dash', note.replace('\u2014 ', '\u2014'), 'checkpoint_invalid'],
      ['missing blank line', note.replace('\n\n', '\n'), 'checkpoint_invalid'],
      ['trailing garbage', `${note}garbage`, 'checkpoint_invalid'],
      ['trailing garbage line', `${note}garbage\n`, 'checkpoint_invalid'],
      ['trailing blank line', `${note}\n`, 'checkpoint_invalid'],
      ['missing final newline', note.slice(0, -1), 'checkpoint_invalid'],
      ['CRLF line ends', note.replace(/\n/g, '\r\n'), 'checkpoint_invalid'],
      ['leading zero size', note.replace('\n42\n', '\n042\n'), 'checkpoint_invalid'],
      ['signed size', note.replace('\n42\n', '\n+42\n'), 'checkpoint_invalid'],
      ['empty origin', note.replace(ORIGIN, ''), 'checkpoint_invalid'],
      ['root without padding', note.replace(ROOT.toString('base64'), ROOT.toString('base64').replace(/=$/, '')), 'checkpoint_invalid'],
      ['root url-safe', note.replace(ROOT.toString('base64'), ROOT.toString('base64url')), 'checkpoint_invalid'],
      ['root 31 bytes', note.replace(ROOT.toString('base64'), ROOT.subarray(0, 31).toString('base64')), 'checkpoint_invalid'],
      ['root 33 bytes', note.replace(ROOT.toString('base64'), Buffer.concat([ROOT, Buffer.alloc(1)]).toString('base64')), 'checkpoint_invalid'],
      ['missing root line', note.replace(`${ROOT.toString('base64')}\n`, ''), 'checkpoint_invalid'],
      ['empty extension line', note.replace('\n\n', '\n\nx\n\n'), 'checkpoint_invalid'],
      ['signature not base64', note.replace(blob.toString('base64'), '!!!!'), 'checkpoint_invalid'],
      ['signature too short', withBlob(blob.subarray(0, 4)), 'checkpoint_invalid'],
      ['key name with +', note.replace(`\u2014 ${key.name} `, `\u2014 a+b `), 'checkpoint_invalid'],
      ['no key name', note.replace(`\u2014 ${key.name} `, '\u2014  '), 'checkpoint_invalid'],
      ['tab in note', note.replace(ORIGIN, `${ORIGIN}\t`), 'checkpoint_invalid'],
      ['NUL in note', note.replace(ORIGIN, `${ORIGIN}\u0000`), 'checkpoint_invalid'],
      ['lone surrogate', note.replace(ORIGIN, `${ORIGIN}\ud800`), 'checkpoint_invalid'],
      ['no signatures', note.slice(0, note.indexOf('\u2014')), 'checkpoint_invalid'],
      ['empty', '', 'checkpoint_invalid'],
    ];
    for (const [label, tampered, code] of cases) {
      it(`rejects a changed ${label} with ${code}`, () => {
        expect(tampered).not.toBe(note);
        const result = verifyCheckpoint(tampered, trusted);
        expect(result.ok).toBe(false);
        if (!result.ok) {
          expect(result.code).toBe(code);
          expect(result.message.length).toBeGreaterThan(0);
        }
        if (code === 'checkpoint_invalid') expect(parseCode(tampered)).toBe('checkpoint_invalid');
      });
    }

    it('rejects a size above 2^53 - 1 and notes above 64 KiB', () => {
      expect(parseCode(note.replace('\n42\n', '\n9007199254740992\n'))).toBe('checkpoint_invalid');
      const huge = signCheckpoint(key, 'o'.repeat(MAX_NOTE_BYTES - 200), 1, ROOT);
      expect(verifyCheckpoint(huge, trusted).ok).toBe(true);
      expect(parseCode(note.replace(ORIGIN, 'o'.repeat(MAX_NOTE_BYTES)))).toBe('checkpoint_invalid');
      expect(() => signCheckpoint(key, 'o'.repeat(MAX_NOTE_BYTES), 1, ROOT)).toThrow(expect.objectContaining({ code: 'checkpoint_invalid' }));
      const unknownLine = `\u2014 other ${Buffer.alloc(68).toString('base64')}\n`;
      expect(parseCode(note + unknownLine.repeat(100))).toBe('checkpoint_invalid'); // 101 signature lines
      expect(verifyCheckpoint(note + unknownLine.repeat(99), trusted).ok).toBe(true);
    });
  });

  describe('which signatures count', () => {
    const other = generateSigningKey('witness.example/w1');
    const note = signCheckpoint(key, ORIGIN, 42, ROOT);
    const body = checkpointBody(ORIGIN, 42, ROOT);
    const lineBy = (signer: SigningKey, name = signer.name) =>
      `\u2014 ${name} ${Buffer.concat([noteKeyId(name, signer.publicKey), sign(signer, Buffer.from(body))]).toString('base64')}\n`;

    it('ignores signatures from unknown keys, before or after the trusted one', () => {
      const junk = `\u2014 unknown.example ${Buffer.alloc(20, 7).toString('base64')}\n`;
      expect(verifyCheckpoint(note + lineBy(other) + junk, [trust(key)]).ok).toBe(true);
      const otherFirst = `${body}\n${lineBy(other)}${junk}${note.slice(body.length + 1)}`;
      expect(verifyCheckpoint(otherFirst, [trust(key)]).ok).toBe(true);
      expect(verifyCheckpoint(otherFirst, [trust(other)]).ok).toBe(true);
    });

    it('is key_untrusted when only unknown keys signed, or nothing is trusted', () => {
      expect(verifyCheckpoint(note, [trust(other)])).toMatchObject({ ok: false, code: 'key_untrusted' });
      expect(verifyCheckpoint(note, [])).toMatchObject({ ok: false, code: 'key_untrusted' });
    });

    it('ignores a key sharing the name but not the key id (a different key under the same name)', () => {
      const impostor = generateSigningKey(key.name);
      expect(verifyCheckpoint(signCheckpoint(impostor, ORIGIN, 42, ROOT), [trust(key)])).toMatchObject({ code: 'key_untrusted' });
      // Trusted name and key, but the name in the line belongs to another key id: ignored too.
      expect(verifyCheckpoint(`${body}\n${lineBy(other, key.name)}`, [trust(key)])).toMatchObject({ code: 'key_untrusted' });
    });

    it('rejects the whole note when any trusted signature fails, even if another verifies (C2SP SHOULD)', () => {
      const blob = Buffer.concat([noteKeyId(key.name, key.publicKey), sign(key, Buffer.from(body))]);
      blob[40] = (blob[40] ?? 0) ^ 0x80;
      const badLine = `\u2014 ${key.name} ${blob.toString('base64')}\n`;
      const mixed = `${body}\n${lineBy(key)}${badLine}`;
      expect(verifyCheckpoint(mixed, [trust(key)])).toMatchObject({ code: 'checkpoint_signature_invalid' });
    });

    it('accepts any one of several trusted keys', () => {
      const byOther = signCheckpoint(other, ORIGIN, 42, ROOT);
      expect(verifyCheckpoint(byOther, [trust(key), trust(other)]).ok).toBe(true);
      expect(verifyCheckpoint(note + lineBy(other), [trust(key), trust(other)]).ok).toBe(true);
    });

    it('skips malformed trust entries instead of throwing', () => {
      const broken = [{ name: 'bad name', publicKey32: key.publicKey }, { name: key.name, publicKey32: Buffer.alloc(3) }];
      expect(verifyCheckpoint(note, broken)).toMatchObject({ code: 'key_untrusted' });
      expect(verifyCheckpoint(note, [...broken, trust(key)]).ok).toBe(true);
    });
  });

  it('never throws on hostile input', () => {
    const trusted = [trust(key)];
    const note = signCheckpoint(key, ORIGIN, 42, ROOT);
    for (const value of [undefined, null, 42, {}, [], Buffer.from(note)]) {
      expect(verifyCheckpoint(value as unknown as string, trusted)).toMatchObject({ ok: false, code: 'checkpoint_invalid' });
    }
    expect(verifyCheckpoint(note, null as unknown as TrustedNoteKey[])).toMatchObject({ code: 'key_untrusted' });
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), fc.nat({ max: note.length }), (junk, at) => {
        const result = verifyCheckpoint(note.slice(0, at) + junk + note.slice(at), trusted);
        if (junk.length > 0 && result.ok) {
          // Only a change outside the signed body and trusted line may still verify (for example an extra unknown line).
          expect(result.checkpoint.body).toBe(checkpointBody(ORIGIN, 42, ROOT));
        }
        verifyCheckpoint(junk, trusted);
      }),
      { numRuns: 500 },
    );
  });

  it('verifySignature agrees with verifyCheckpoint on the body bytes', () => {
    const parsed = parseCheckpoint(signCheckpoint(key, ORIGIN, 9, ROOT));
    expect(verifySignature(key.publicKey, Buffer.from(parsed.body), parsed.signatures[0]?.signature ?? Buffer.alloc(0))).toBe(true);
  });
});

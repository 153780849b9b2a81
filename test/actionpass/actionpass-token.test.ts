import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import fc from 'fast-check';
import { compactVerify, importJWK, jwtVerify } from 'jose';
import { describe, expect, it, vi } from 'vitest';
import { issueActionPass, verifyActionPass, type PassCheck, type PassExpectations } from '../../src/actionpass/actionpass-token.js';
import { signApprovalArtifact } from '../../src/actionpass/approval-artifact.js';
import { signCompactJws, signedTokenJson } from '../../src/actionpass/jws.js';
import { canonicalJson } from '../../src/events/canonical.js';
import { SvcError } from '../../src/errors.js';
import {
  approvalClaims,
  AUDIENCE,
  decodePart,
  jwkOf,
  NOW_MS,
  NOW_S,
  OTHER_PAYLOAD_HASH,
  passClaims,
  passKey,
  PAYLOAD_HASH,
  reviewerKey,
  revokedPassKey,
  trustEntry,
  TENANT,
  trust,
  unknownKey,
  withPart,
} from './token-fixtures.js';

ed.hashes.sha512 = sha512;

function expectations(overrides: Partial<PassExpectations> = {}): PassExpectations {
  return { trust, nowMs: NOW_MS, audience: AUDIENCE, tenant: TENANT, payloadHash: PAYLOAD_HASH, isPassUsed: () => false, ...overrides };
}

function refusal(check: PassCheck): { reason: string; message: string } {
  if (check.ok) throw new Error('expected a refusal');
  return { reason: check.reason, message: check.message };
}

const token = issueActionPass(passKey, passClaims());

describe('issueActionPass', () => {
  it('writes the header and claims of DESIGN.md section 6', () => {
    expect(decodePart(token, 0)).toEqual({ alg: 'EdDSA', typ: 'svc-actionpass+jwt', kid: passKey.name });
    expect(decodePart(token, 1)).toEqual(passClaims());
    const withApproval = issueActionPass(passKey, passClaims({ approvalId: 'apr_0001' }));
    expect(decodePart(withApproval, 1).approvalId).toBe('apr_0001');
  });

  it('writes three base64url parts: signedTokenJson is the JSON.stringify and JCS text of every issued token', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 300, unit: 'grapheme' }).filter((text) => !/\p{Cc}/u.test(text)), (resource) => {
        const issued = issueActionPass(passKey, passClaims({ resource }));
        expect(issued).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
        expect(signedTokenJson(issued)).toBe(JSON.stringify(issued));
        expect(signedTokenJson(issued)).toBe(canonicalJson(issued));
      }),
      { numRuns: 200 },
    );
  });

  it('refuses to issue a pass it would not accept', () => {
    for (const claims of [passClaims({ payloadHash: 'sha256:ABC' }), passClaims({ exp: NOW_S - 1 }), passClaims({ sub: 'deployer' }), passClaims({ decisionSeq: -1 }), { ...passClaims(), extra: 1 }]) {
      let code: string | undefined;
      try {
        issueActionPass(passKey, claims);
      } catch (error) {
        code = error instanceof SvcError ? error.code : String(error);
      }
      expect(code).toBe('actionpass_claims_invalid');
    }
  });
});

describe('verifyActionPass', () => {
  it('accepts a valid pass and returns its claims and kid', () => {
    expect(verifyActionPass(token, expectations())).toEqual({ ok: true, claims: passClaims(), kid: passKey.name });
  });

  it('verifies independently with jose, from the trust store public key alone', async () => {
    const publicKey = await importJWK(jwkOf(trustEntry(passKey)), 'EdDSA');
    const { payload, protectedHeader } = await jwtVerify(token, publicKey, {
      algorithms: ['EdDSA'],
      typ: 'svc-actionpass+jwt',
      audience: AUDIENCE,
      issuer: 'svc.local',
      currentDate: new Date(NOW_MS),
    });
    expect(protectedHeader).toEqual({ alg: 'EdDSA', typ: 'svc-actionpass+jwt', kid: passKey.name });
    expect(payload).toEqual(passClaims());
    const compact = await compactVerify(token, publicKey, { algorithms: ['EdDSA'] });
    expect(JSON.parse(new TextDecoder().decode(compact.payload))).toEqual(passClaims());

    await expect(jwtVerify(token, publicKey, { typ: 'svc-approval+jwt', currentDate: new Date(NOW_MS) })).rejects.toThrow();
    await expect(jwtVerify(token, publicKey, { algorithms: ['ES256'], currentDate: new Date(NOW_MS) })).rejects.toThrow();
    await expect(jwtVerify(token, publicKey, { currentDate: new Date((NOW_S + 301) * 1000) })).rejects.toThrow(/exp/);
    const wrongKey = await importJWK(jwkOf(trustEntry(reviewerKey)), 'EdDSA');
    await expect(compactVerify(token, wrongKey)).rejects.toThrow();
  });

  it('signs exactly what @noble/ed25519 verifies', () => {
    const [header, claims, signature] = token.split('.') as [string, string, string];
    const message = new TextEncoder().encode(`${header}.${claims}`);
    expect(ed.verify(Buffer.from(signature, 'base64url'), message, passKey.publicKey)).toBe(true);
    expect(ed.verify(Buffer.from(signature, 'base64url'), message, reviewerKey.publicKey)).toBe(false);
  });

  it('refuses a pass signed by a key that is not in the trust store', () => {
    expect(refusal(verifyActionPass(issueActionPass(unknownKey, passClaims()), expectations()))).toEqual({
      reason: 'actionpass_invalid',
      message: `key "${unknownKey.name}" is not in the trust store`,
    });
  });

  it('refuses a pass signed by a revoked key', () => {
    const check = refusal(verifyActionPass(issueActionPass(revokedPassKey, passClaims()), expectations()));
    expect(check.reason).toBe('actionpass_invalid');
    expect(check.message).toMatch(/was revoked at 2026-11-01/);
  });

  it('refuses a pass signed by a reviewer key (wrong role)', () => {
    const check = refusal(verifyActionPass(issueActionPass(reviewerKey, passClaims()), expectations()));
    expect(check).toEqual({ reason: 'actionpass_invalid', message: `key "${reviewerKey.name}" has role reviewer, not actionpass` });
  });

  it('refuses a pass whose kid names a trusted key that did not sign it', () => {
    const forged = signCompactJws(unknownKey, { typ: 'svc-actionpass+jwt', kid: passKey.name }, passClaims());
    expect(refusal(verifyActionPass(forged, expectations()))).toEqual({ reason: 'actionpass_invalid', message: `signature does not verify under key "${passKey.name}"` });
  });

  it('refuses a pass whose claims were changed after signing', () => {
    const altered = withPart(token, 1, { ...passClaims(), payloadHash: OTHER_PAYLOAD_HASH });
    expect(refusal(verifyActionPass(altered, expectations({ payloadHash: OTHER_PAYLOAD_HASH }))).message).toMatch(/signature does not verify/);
  });

  it('refuses an approval artifact presented as a pass, even from a trusted key', () => {
    const artifact = signApprovalArtifact(reviewerKey, approvalClaims());
    expect(refusal(verifyActionPass(artifact, expectations())).message).toBe('header typ is "svc-approval+jwt", not "svc-actionpass+jwt"');
  });

  it('refuses a validly signed pass with claims outside the schema', () => {
    const extra = signCompactJws(passKey, { typ: 'svc-actionpass+jwt', kid: passKey.name }, { ...passClaims(), admin: true });
    expect(refusal(verifyActionPass(extra, expectations())).message).toMatch(/claims are invalid: .*admin/);
    const fractional = signCompactJws(passKey, { typ: 'svc-actionpass+jwt', kid: passKey.name }, { ...passClaims(), exp: NOW_S + 0.5 });
    expect(refusal(verifyActionPass(fractional, expectations())).message).toMatch(/claims are invalid: exp/);
    const stringTime = signCompactJws(passKey, { typ: 'svc-actionpass+jwt', kid: passKey.name }, { ...passClaims(), exp: String(NOW_S + 300) });
    expect(refusal(verifyActionPass(stringTime, expectations())).reason).toBe('actionpass_invalid');
  });

  it('refuses an expired pass with actionpass_expired, allowing 5 s of clock skew by default', () => {
    const exp = (NOW_S + 300) * 1000;
    expect(verifyActionPass(token, expectations({ nowMs: exp + 4_999 })).ok).toBe(true);
    expect(refusal(verifyActionPass(token, expectations({ nowMs: exp + 5_000 })))).toEqual({ reason: 'actionpass_expired', message: `ActionPass pass_0001 expired at ${new Date(exp).toISOString()}` });
    expect(refusal(verifyActionPass(token, expectations({ nowMs: exp, clockSkewSeconds: 0 }))).reason).toBe('actionpass_expired');
  });

  it('refuses a pass that is not yet valid, or claims to be issued in the future', () => {
    const later = issueActionPass(passKey, passClaims({ nbf: NOW_S + 60, exp: NOW_S + 360 }));
    expect(refusal(verifyActionPass(later, expectations()))).toEqual({ reason: 'actionpass_invalid', message: `ActionPass pass_0001 is not valid before ${new Date((NOW_S + 60) * 1000).toISOString()}` });
    expect(verifyActionPass(later, expectations({ nowMs: (NOW_S + 55) * 1000 })).ok).toBe(true);
    const future = issueActionPass(passKey, passClaims({ iat: NOW_S + 60, exp: NOW_S + 360 }));
    expect(refusal(verifyActionPass(future, expectations())).message).toMatch(/issued in the future/);
  });

  it('fails closed on a current time or skew that is not a number', () => {
    expect(refusal(verifyActionPass(token, expectations({ nowMs: Number.NaN }))).reason).toBe('actionpass_invalid');
    expect(refusal(verifyActionPass(token, expectations({ clockSkewSeconds: Number.NaN }))).reason).toBe('actionpass_invalid');
    expect(refusal(verifyActionPass(token, expectations({ clockSkewSeconds: -1 }))).reason).toBe('actionpass_invalid');
  });

  it('refuses a pass for another audience or tenant', () => {
    expect(refusal(verifyActionPass(token, expectations({ audience: 'svc.mcp' })))).toEqual({ reason: 'actionpass_invalid', message: 'ActionPass pass_0001 is for audience "svc.adapters", not "svc.mcp"' });
    expect(refusal(verifyActionPass(token, expectations({ tenant: 'org:globex' })))).toEqual({ reason: 'actionpass_invalid', message: 'ActionPass pass_0001 is for tenant org:acme, not org:globex' });
  });

  it('refuses a replayed pass with actionpass_replayed', () => {
    const isPassUsed = vi.fn((jti: string) => jti === 'pass_0001');
    expect(refusal(verifyActionPass(token, expectations({ isPassUsed })))).toEqual({ reason: 'actionpass_replayed', message: 'ActionPass pass_0001 was already used' });
    expect(isPassUsed).toHaveBeenCalledWith('pass_0001');
  });

  it('refuses a different payload with actionpass_payload_hash_mismatch naming both hashes', () => {
    const check = refusal(verifyActionPass(token, expectations({ payloadHash: OTHER_PAYLOAD_HASH })));
    expect(check.reason).toBe('actionpass_payload_hash_mismatch');
    expect(check.message).toContain(PAYLOAD_HASH);
    expect(check.message).toContain(OTHER_PAYLOAD_HASH);
  });

  it('checks in the documented order: the ledger is consulted only for an otherwise valid pass', () => {
    const isPassUsed = vi.fn(() => true);
    // Expired and for another tenant and replayed and another payload: expiry is reported.
    const expired = verifyActionPass(token, expectations({ nowMs: (NOW_S + 900) * 1000, tenant: 'org:globex', payloadHash: OTHER_PAYLOAD_HASH, isPassUsed }));
    expect(refusal(expired).reason).toBe('actionpass_expired');
    expect(refusal(verifyActionPass(token, expectations({ audience: 'x', tenant: 'org:globex', isPassUsed }))).message).toMatch(/audience/);
    expect(refusal(verifyActionPass(token, expectations({ tenant: 'org:globex', isPassUsed }))).message).toMatch(/tenant/);
    expect(isPassUsed).not.toHaveBeenCalled();
    expect(refusal(verifyActionPass(token, expectations({ payloadHash: OTHER_PAYLOAD_HASH, isPassUsed }))).reason).toBe('actionpass_replayed');
    // An unknown key is refused before the signature is even checked, and a bad signature before any claim is read.
    const unsignedGarbage = withPart(issueActionPass(unknownKey, passClaims()), 1, { nonsense: true });
    expect(refusal(verifyActionPass(unsignedGarbage, expectations())).message).toMatch(/not in the trust store/);
  });
});

describe('hostile tokens', () => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ ';

  it('random strings never throw and never verify', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom(...alphabet) }), fc.string({ unit: 'binary', maxLength: 400 })), (input) => {
        const check = verifyActionPass(input, expectations());
        expect(check.ok).toBe(false);
      }),
      { numRuns: 3000 },
    );
  });

  it('any change to a valid token never throws and never verifies', () => {
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant('replace' as const), at: fc.nat(token.length - 1), char: fc.constantFrom(...alphabet) }),
      fc.record({ kind: fc.constant('insert' as const), at: fc.nat(token.length), char: fc.constantFrom(...alphabet) }),
      fc.record({ kind: fc.constant('delete' as const), at: fc.nat(token.length - 1), length: fc.integer({ min: 1, max: 8 }) }),
      fc.record({ kind: fc.constant('truncate' as const), at: fc.nat(token.length - 1) }),
      fc.record({ kind: fc.constant('swap' as const), a: fc.constantFrom(0, 1, 2), b: fc.constantFrom(0, 1, 2) }),
    );
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (mutations) => {
        let mutated = token;
        for (const change of mutations) {
          if (change.kind === 'replace') mutated = `${mutated.slice(0, change.at)}${change.char}${mutated.slice(change.at + 1)}`;
          else if (change.kind === 'insert') mutated = `${mutated.slice(0, change.at)}${change.char}${mutated.slice(change.at)}`;
          else if (change.kind === 'delete') mutated = `${mutated.slice(0, change.at)}${mutated.slice(change.at + change.length)}`;
          else if (change.kind === 'truncate') mutated = mutated.slice(0, change.at);
          else {
            const parts = mutated.split('.');
            const a = parts[change.a];
            parts[change.a] = parts[change.b] ?? '';
            parts[change.b] = a ?? '';
            mutated = parts.join('.');
          }
        }
        fc.pre(mutated !== token);
        const check = verifyActionPass(mutated, expectations());
        expect(check.ok).toBe(false);
      }),
      { numRuns: 3000 },
    );
  });

  it('validly signed but malformed claims never throw and never verify', () => {
    const claimsValue = fc.oneof(
      fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 20 }),
      fc.record(Object.fromEntries(Object.entries(passClaims()).map(([key, value]) => [key, fc.oneof(fc.constant(value), fc.jsonValue())]))),
    );
    fc.assert(
      fc.property(claimsValue, (claims) => {
        const signed = signCompactJws(passKey, { typ: 'svc-actionpass+jwt', kid: passKey.name }, claims);
        const check = verifyActionPass(signed, expectations());
        if (check.ok) expect(check.claims).toEqual(passClaims());
      }),
      { numRuns: 1000 },
    );
  });
});

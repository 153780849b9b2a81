import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import fc from 'fast-check';
import { compactVerify, importJWK, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { issueActionPass } from '../../src/actionpass/actionpass-token.js';
import {
  approvalMatchesPayload,
  signApprovalArtifact,
  verifyApprovalArtifact,
  type ApprovalCheck,
  type ApprovalExpectations,
} from '../../src/actionpass/approval-artifact.js';
import { signCompactJws } from '../../src/actionpass/jws.js';
import { TrustIndex } from '../../src/actionpass/trust-store.js';
import { SvcError } from '../../src/errors.js';
import {
  approvalClaims,
  decodePart,
  jwkOf,
  NOW_MS,
  NOW_S,
  OTHER_PAYLOAD_HASH,
  otherReviewerKey,
  passClaims,
  passKey,
  PAYLOAD_HASH,
  REVIEWER,
  reviewerKey,
  store,
  TENANT,
  trust,
  trustEntry,
  unknownKey,
  withPart,
} from './token-fixtures.js';

ed.hashes.sha512 = sha512;

function expectations(overrides: Partial<ApprovalExpectations> = {}): ApprovalExpectations {
  return { trust, nowMs: NOW_MS, tenant: TENANT, ...overrides };
}

function refusal(check: ApprovalCheck): { reason: string; message: string } {
  if (check.ok) throw new Error('expected a refusal');
  return { reason: check.reason, message: check.message };
}

const artifact = signApprovalArtifact(reviewerKey, approvalClaims());

describe('signApprovalArtifact', () => {
  it('writes the header and claims of DESIGN.md section 6, plus tenant', () => {
    expect(decodePart(artifact, 0)).toEqual({ alg: 'EdDSA', typ: 'svc-approval+jwt', kid: reviewerKey.name });
    expect(decodePart(artifact, 1)).toEqual(approvalClaims());
  });

  it('refuses claims the verifier would refuse', () => {
    for (const claims of [approvalClaims({ approvedBy: 'lead@acme.example' }), approvalClaims({ mode: 'auto' as never }), approvalClaims({ exp: NOW_S - 1 }), approvalClaims({ reason: 'a\u0000b' })]) {
      let code: string | undefined;
      try {
        signApprovalArtifact(reviewerKey, claims);
      } catch (error) {
        code = error instanceof SvcError ? error.code : String(error);
      }
      expect(code).toBe('approval_claims_invalid');
    }
    expect(() => signApprovalArtifact(reviewerKey, approvalClaims({ reason: 'line one\nline two\tend', mode: 'policy_override' }))).not.toThrow();
  });
});

describe('verifyApprovalArtifact', () => {
  it('accepts a valid artifact', () => {
    expect(verifyApprovalArtifact(artifact, expectations())).toEqual({ ok: true, claims: approvalClaims(), kid: reviewerKey.name });
  });

  it('verifies independently with jose and @noble/ed25519, from the trust store public key alone', async () => {
    const publicKey = await importJWK(jwkOf(trustEntry(reviewerKey)), 'EdDSA');
    const { payload, protectedHeader } = await jwtVerify(artifact, publicKey, { algorithms: ['EdDSA'], typ: 'svc-approval+jwt', currentDate: new Date(NOW_MS) });
    expect(protectedHeader).toEqual({ alg: 'EdDSA', typ: 'svc-approval+jwt', kid: reviewerKey.name });
    expect(payload).toEqual(approvalClaims());
    await expect(jwtVerify(artifact, publicKey, { typ: 'svc-actionpass+jwt', currentDate: new Date(NOW_MS) })).rejects.toThrow();
    await expect(compactVerify(artifact, await importJWK(jwkOf(trustEntry(passKey)), 'EdDSA'))).rejects.toThrow();

    const [header, claims, signature] = artifact.split('.') as [string, string, string];
    expect(ed.verify(Buffer.from(signature, 'base64url'), new TextEncoder().encode(`${header}.${claims}`), Buffer.from(trustEntry(reviewerKey).publicKey, 'base64'))).toBe(true);
  });

  it('refuses an artifact signed by an ActionPass key (wrong role), an unknown key, or a forger', () => {
    expect(refusal(verifyApprovalArtifact(signApprovalArtifact(passKey, approvalClaims()), expectations()))).toEqual({
      reason: 'approval_invalid',
      message: `key "${passKey.name}" has role actionpass, not reviewer`,
    });
    expect(refusal(verifyApprovalArtifact(signApprovalArtifact(unknownKey, approvalClaims()), expectations())).message).toMatch(/not in the trust store/);
    const forged = signCompactJws(unknownKey, { typ: 'svc-approval+jwt', kid: reviewerKey.name }, approvalClaims());
    expect(refusal(verifyApprovalArtifact(forged, expectations())).message).toMatch(/signature does not verify/);
    const altered = withPart(artifact, 1, { ...approvalClaims(), payloadHash: OTHER_PAYLOAD_HASH });
    expect(refusal(verifyApprovalArtifact(altered, expectations())).message).toMatch(/signature does not verify/);
  });

  it('refuses an artifact from a revoked reviewer key', () => {
    const revoked = TrustIndex.of({ ...store, keys: store.keys.map((entry) => (entry.name === reviewerKey.name ? { ...entry, revokedAt: '2026-11-18T10:30:00.000Z' } : entry)) });
    expect(refusal(verifyApprovalArtifact(artifact, expectations({ trust: revoked }))).message).toMatch(/was revoked at 2026-11-18T10:30:00.000Z/);
  });

  it('refuses a reviewer who approves in someone else\'s name', () => {
    const impersonation = signApprovalArtifact(otherReviewerKey, approvalClaims({ approvedBy: REVIEWER }));
    expect(refusal(verifyApprovalArtifact(impersonation, expectations()))).toEqual({
      reason: 'approval_invalid',
      message: `approval apr_0001 says it was approved by ${REVIEWER}, but key "${otherReviewerKey.name}" belongs to user:intern@acme.example`,
    });
    expect(verifyApprovalArtifact(signApprovalArtifact(otherReviewerKey, approvalClaims({ approvedBy: 'user:intern@acme.example' })), expectations()).ok).toBe(true);
  });

  it('refuses an expired artifact with approval_expired, and one signed in the future', () => {
    const exp = (NOW_S + 3600) * 1000;
    expect(verifyApprovalArtifact(artifact, expectations({ nowMs: exp + 4_000 })).ok).toBe(true);
    expect(refusal(verifyApprovalArtifact(artifact, expectations({ nowMs: exp + 5_000 })))).toEqual({ reason: 'approval_expired', message: `approval apr_0001 expired at ${new Date(exp).toISOString()}` });
    const future = signApprovalArtifact(reviewerKey, approvalClaims({ iat: NOW_S + 600 }));
    expect(refusal(verifyApprovalArtifact(future, expectations())).message).toMatch(/signed in the future/);
    expect(refusal(verifyApprovalArtifact(artifact, expectations({ nowMs: Number.POSITIVE_INFINITY }))).reason).toBe('approval_invalid');
  });

  it('refuses an artifact for another tenant with approval_tenant_mismatch, and one without a tenant', () => {
    expect(refusal(verifyApprovalArtifact(artifact, expectations({ tenant: 'org:globex' })))).toEqual({ reason: 'approval_tenant_mismatch', message: 'approval apr_0001 is for tenant org:acme, not org:globex' });
    const { tenant: _tenant, ...withoutTenant } = approvalClaims();
    const legacy = signCompactJws(reviewerKey, { typ: 'svc-approval+jwt', kid: reviewerKey.name }, withoutTenant);
    expect(refusal(verifyApprovalArtifact(legacy, expectations())).message).toMatch(/claims are invalid: tenant/);
  });

  it('refuses an ActionPass presented as an approval', () => {
    expect(refusal(verifyApprovalArtifact(issueActionPass(passKey, passClaims()), expectations())).message).toBe('header typ is "svc-actionpass+jwt", not "svc-approval+jwt"');
  });

  it('approvalMatchesPayload compares the approved hash with the one to execute', () => {
    expect(approvalMatchesPayload(approvalClaims(), PAYLOAD_HASH)).toBe(true);
    expect(approvalMatchesPayload(approvalClaims(), OTHER_PAYLOAD_HASH)).toBe(false);
  });

  it('never throws and never verifies on random or mutated input', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary', maxLength: 300 })), (input) => {
        expect(verifyApprovalArtifact(input, expectations()).ok).toBe(false);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.nat(artifact.length - 1), fc.constantFrom(...'AQgw-_.=x'), (at, char) => {
        const mutated = `${artifact.slice(0, at)}${char}${artifact.slice(at + 1)}`;
        fc.pre(mutated !== artifact);
        expect(verifyApprovalArtifact(mutated, expectations()).ok).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });
});

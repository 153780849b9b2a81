/**
 * The approval artifact (DESIGN.md section 6): a compact JWS, `alg: EdDSA`, `typ: svc-approval+jwt`,
 * `kid` = the name of a reviewer key in the trust store, in which a person approves one exact
 * payload of one action.
 *
 * Deviation from DESIGN.md: the claims also carry `tenant`, so an artifact signed for another
 * tenant (a reviewer key trusted by two workspaces) is refused (docs/tokens.md).
 *
 * `verifyApprovalArtifact` checks, in this order: form, `typ`, that `kid` is a trusted, unrevoked
 * reviewer key, the signature, the claims' schema, that `approvedBy` is the identity the trust
 * store lists for that key (a reviewer cannot approve in someone else's name), the time window,
 * and the tenant. Whether the approval is known, unused and bound to the payload being executed
 * is ledger state: the caller checks it (`approvalMatchesPayload` helps with the last).
 */
import * as z from 'zod';
import { SHA256_PATTERN } from '../events/canonical.js';
import { isoSeconds, numericDateSchema } from '../events/numeric-date.js';
import { SvcError } from '../errors.js';
import { signCompactJws } from './jws.js';
import { verifySignedToken } from './signed-token.js';
import type { SigningKey } from './keys.js';
import { REVIEWER_IDENTITY_PATTERN, type TrustIndex } from './trust-store.js';

export const APPROVAL_TYP = 'svc-approval+jwt';
const DEFAULT_CLOCK_SKEW_SECONDS = 5;

export type ApprovalMode = 'human' | 'policy_override';

// A type, not an interface: it must be assignable to open record types.
export type ApprovalClaims = {
  approvalId: string;
  actionId: string;
  actionHash: string;
  payloadHash: string;
  /** `user:<email>`; must be the identity the signing key is listed for. */
  approvedBy: string;
  mode: ApprovalMode;
  reason: string;
  iat: number;
  exp: number;
  /** svc addition: the tenant the approval is valid in. */
  tenant: string;
};

export type ApprovalRefusal = 'approval_invalid' | 'approval_expired' | 'approval_tenant_mismatch';

export type ApprovalCheck = { ok: true; claims: ApprovalClaims; kid: string } | { ok: false; reason: ApprovalRefusal; message: string };

export interface ApprovalExpectations {
  trust: TrustIndex;
  nowMs: number;
  tenant: string;
  /** Tolerated clock difference between reviewer and verifier. Default 5 s. */
  clockSkewSeconds?: number;
}

// Built on first use (z.lazy): most processes never sign or verify an approval.
const claimsSchema = z.lazy(() => {
  // The ledger catalogue's identifier form, so a token never carries an id the ledger would refuse.
  const identifier = z.string().regex(/^[A-Za-z0-9._:@/+-]{1,200}$/, 'expected an identifier of 1-200 letters, digits or ._:@/+-');
  const hash = z.string().regex(SHA256_PATTERN, 'expected sha256:<64 lowercase hex digits>');
  return z
    .strictObject({
      approvalId: identifier,
      actionId: identifier,
      actionHash: hash,
      payloadHash: hash,
      approvedBy: z.string().regex(REVIEWER_IDENTITY_PATTERN, 'expected user:<email>'),
      mode: z.enum(['human', 'policy_override']),
      // Free text from a person: tabs and line feeds are fine, other control characters are not.
      reason: z.string().max(4096).regex(/^[^\u0000-\u0008\u000b-\u001f\u007f-\u009f]*$/u, 'contains control characters other than tab and line feed'),
      iat: numericDateSchema,
      exp: numericDateSchema,
      tenant: z.string().regex(/^org:[^\s\p{Cc}]{1,63}$/u, 'expected org:<name>'),
    })
    .refine((claims) => claims.iat <= claims.exp, 'exp is before iat: the approval is never valid');
});

function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(claims)'}: ${issue.message}`).join('; ');
}

/**
 * Signs an approval artifact with a reviewer key. The claims are held to the verifier's schema
 * (`approval_claims_invalid` otherwise); that the key is listed for `approvedBy` is checked by
 * the verifier, against the trust store, which the signer may not have.
 */
export function signApprovalArtifact(key: SigningKey, claims: ApprovalClaims): string {
  const parsed = claimsSchema.safeParse(claims);
  if (!parsed.success) throw new SvcError('approval_claims_invalid', `cannot sign an approval artifact with these claims: ${describeIssues(parsed.error)}`);
  return signCompactJws(key, { typ: APPROVAL_TYP, kid: key.name }, parsed.data);
}

function refuse(reason: ApprovalRefusal, message: string): ApprovalCheck {
  return { ok: false, reason, message };
}


/** Checks an approval artifact's signature, signer and claims; see the module comment. Never throws on hostile input. */
export function verifyApprovalArtifact(token: string, expected: ApprovalExpectations): ApprovalCheck {
  const signed = verifySignedToken(token, { typ: APPROVAL_TYP, role: 'reviewer', trust: expected.trust, what: 'approval artifact' });
  if (!signed.ok) return refuse('approval_invalid', signed.message);
  const { kid } = signed;

  const checked = claimsSchema.safeParse(signed.claims);
  if (!checked.success) return refuse('approval_invalid', `claims are invalid: ${describeIssues(checked.error)}`);
  const claims: ApprovalClaims = checked.data;
  if (claims.approvedBy !== signed.signer.reviewer) {
    return refuse('approval_invalid', `approval ${claims.approvalId} says it was approved by ${claims.approvedBy}, but key ${JSON.stringify(kid)} belongs to ${signed.signer.reviewer ?? 'no reviewer'}`);
  }

  const skew = expected.clockSkewSeconds ?? DEFAULT_CLOCK_SKEW_SECONDS;
  // A NaN here would make every time comparison false and let an expired approval through.
  if (!Number.isFinite(expected.nowMs) || !Number.isFinite(skew) || skew < 0) {
    return refuse('approval_invalid', 'the verifier was given no valid current time or clock skew');
  }
  const now = expected.nowMs / 1000;
  if (now >= claims.exp + skew) return refuse('approval_expired', `approval ${claims.approvalId} expired at ${isoSeconds(claims.exp)}`);
  if (claims.iat > now + skew) return refuse('approval_invalid', `approval ${claims.approvalId} claims to be signed in the future, at ${isoSeconds(claims.iat)}`);
  if (claims.tenant !== expected.tenant) {
    return refuse('approval_tenant_mismatch', `approval ${claims.approvalId} is for tenant ${claims.tenant}, not ${expected.tenant}`);
  }
  return { ok: true, claims, kid };
}

/** Whether the approved payload is the one about to be executed (else: `approval_payload_hash_mismatch`). */
export function approvalMatchesPayload(claims: Pick<ApprovalClaims, 'payloadHash'>, payloadHash: string): boolean {
  return claims.payloadHash === payloadHash;
}

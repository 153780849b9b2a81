/**
 * The ActionPass (DESIGN.md section 6): a compact JWS, `alg: EdDSA`, `typ: svc-actionpass+jwt`,
 * `kid` = the name of the ActionPass key in the trust store, that binds an allow decision to the
 * exact payload (`payloadHash`) for a few minutes and one use.
 *
 * `verifyActionPass` is what an adapter runs right before a side effect. It checks, in this order
 * and stopping at the first failure: the token's form, the `typ`, that `kid` is a trusted,
 * unrevoked ActionPass key, the signature, the claims' schema, the time window, the audience, the
 * tenant, single use of `jti`, and `payloadHash` against the payload about to be executed. The
 * order puts everything that needs no trust (and costs no ledger lookup) before the signature,
 * and trusts no claim before the signature verified.
 */
import * as z from 'zod';
import { canonicalJson, SHA256_PATTERN } from '../events/canonical.js';
import { isoSeconds, numericDateSchema } from '../events/numeric-date.js';
import { SvcError } from '../errors.js';
import { isIssuableClaims } from './issuable-claims.js';
import { signCompactJwsText } from './jws.js';
import { verifySignedToken } from './signed-token.js';
import type { SigningKey } from './keys.js';
import type { TrustIndex } from './trust-store.js';

export const ACTIONPASS_TYP = 'svc-actionpass+jwt';
export const DEFAULT_CLOCK_SKEW_SECONDS = 5;

// A type, not an interface: it must be assignable to the ledger catalogue's open record type.
export type ActionPassClaims = {
  iss: string;
  /** The agent, `agent:<name>`. */
  sub: string;
  aud: string;
  iat: number;
  nbf: number;
  exp: number;
  /** The passId; single use. */
  jti: string;
  tenant: string;
  tool: string;
  resource: string;
  actionId: string;
  actionHash: string;
  payloadHash: string;
  policyHash: string;
  /** Ledger seq of the `policy.decided` record this pass carries out. */
  decisionSeq: number;
  /** Present when the pass was issued after a step-up approval. */
  approvalId?: string;
};

export type PassRefusal = 'actionpass_invalid' | 'actionpass_expired' | 'actionpass_payload_hash_mismatch' | 'actionpass_replayed';

export type PassCheck = { ok: true; claims: ActionPassClaims; kid: string } | { ok: false; reason: PassRefusal; message: string };

export interface PassExpectations {
  trust: TrustIndex;
  nowMs: number;
  audience: string;
  tenant: string;
  /** `sha256:<hex>` of the payload about to be executed, computed from the bytes to be sent. */
  payloadHash: string;
  /** Whether this passId was already used (ledger state). Errors it throws propagate: a ledger failure is not a refusal. */
  isPassUsed(jti: string): boolean;
  /** Tolerated clock difference between issuer and verifier. Default 5 s. */
  clockSkewSeconds?: number;
}

/** Printable, bounded, no control characters: identifiers end up in messages and the ledger. */
const NO_CONTROL = /^[^\p{Cc}]*$/u;

/**
 * Built on first use (z.lazy): issuing checks claims by hand first (issuable-claims.ts), so a
 * process that issues passes without verifying one, such as a hook process, never builds it.
 */
export const claimsSchema = z.lazy(() => {
  const text = (max: number) => z.string().min(1).max(max).regex(NO_CONTROL, 'contains control characters');
  // The ledger catalogue's identifier form, so a token never carries an id the ledger would refuse.
  const identifier = z.string().regex(/^[A-Za-z0-9._:@/+-]{1,200}$/, 'expected an identifier of 1-200 letters, digits or ._:@/+-');
  const hash = z.string().regex(SHA256_PATTERN, 'expected sha256:<64 lowercase hex digits>');
  return z
    .strictObject({
      iss: text(200),
      sub: z.string().regex(/^agent:[^\s\p{Cc}]{1,128}$/u, 'expected agent:<name>'),
      aud: text(200),
      iat: numericDateSchema,
      nbf: numericDateSchema,
      exp: numericDateSchema,
      jti: identifier,
      tenant: z.string().regex(/^org:[^\s\p{Cc}]{1,63}$/u, 'expected org:<name>'),
      tool: text(400),
      resource: text(1100),
      actionId: identifier,
      actionHash: hash,
      payloadHash: hash,
      policyHash: hash,
      decisionSeq: z.number().int().min(0),
      approvalId: identifier.optional(),
    })
    .refine((claims) => claims.nbf <= claims.exp && claims.iat <= claims.exp, 'exp is before nbf or iat: the pass is never valid');
});

function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(claims)'}: ${issue.message}`).join('; ');
}

/**
 * Signs an ActionPass. The claims are held to the same schema the verifier applies, so svc never
 * hands out a pass it would refuse (`actionpass_claims_invalid` otherwise).
 */
export function issueActionPass(key: SigningKey, claims: ActionPassClaims): string {
  checkClaimsToIssue(claims);
  // The schema adds, drops and converts nothing, so the claims checked are the claims signed.
  return signCompactJwsText(key, { typ: ACTIONPASS_TYP, kid: key.name }, canonicalJson(claims));
}

/**
 * `issueActionPass` for claims serialized by the caller (the signer worker receives them so):
 * the claims `claimsJson` parses to are checked, and exactly that text is signed, so it must be
 * their JCS form for the token to be reproducible.
 */
export function issueActionPassJson(key: SigningKey, claimsJson: string): string {
  let claims: unknown;
  try {
    claims = JSON.parse(claimsJson);
  } catch {
    throw new SvcError('actionpass_claims_invalid', 'cannot issue an ActionPass: the claims are not JSON');
  }
  checkClaimsToIssue(claims);
  return signCompactJwsText(key, { typ: ACTIONPASS_TYP, kid: key.name }, claimsJson);
}

function checkClaimsToIssue(claims: unknown): void {
  // The hand-written rules first: they accept only what the schema accepts, and the schema is
  // asked (and words the refusal) for anything else.
  if (isIssuableClaims(claims)) return;
  const parsed = claimsSchema.safeParse(claims);
  if (!parsed.success) throw new SvcError('actionpass_claims_invalid', `cannot issue an ActionPass with these claims: ${describeIssues(parsed.error)}`);
}

function refuse(reason: PassRefusal, message: string): PassCheck {
  return { ok: false, reason, message };
}


/** Checks an ActionPass before a side effect; see the module comment for the order. Never throws on hostile input. */
export function verifyActionPass(token: string, expected: PassExpectations): PassCheck {
  const signed = verifySignedToken(token, { typ: ACTIONPASS_TYP, role: 'actionpass', trust: expected.trust, what: 'ActionPass' });
  if (!signed.ok) return refuse('actionpass_invalid', signed.message);
  const { kid } = signed;

  const checked = claimsSchema.safeParse(signed.claims);
  if (!checked.success) return refuse('actionpass_invalid', `claims are invalid: ${describeIssues(checked.error)}`);
  const claims: ActionPassClaims = checked.data;

  const skew = expected.clockSkewSeconds ?? DEFAULT_CLOCK_SKEW_SECONDS;
  // A NaN here would make every time comparison false and let an expired pass through.
  if (!Number.isFinite(expected.nowMs) || !Number.isFinite(skew) || skew < 0) {
    return refuse('actionpass_invalid', 'the verifier was given no valid current time or clock skew');
  }
  const now = expected.nowMs / 1000;
  if (now >= claims.exp + skew) return refuse('actionpass_expired', `ActionPass ${claims.jti} expired at ${isoSeconds(claims.exp)}`);
  if (claims.nbf > now + skew) return refuse('actionpass_invalid', `ActionPass ${claims.jti} is not valid before ${isoSeconds(claims.nbf)}`);
  if (claims.iat > now + skew) return refuse('actionpass_invalid', `ActionPass ${claims.jti} claims to be issued in the future, at ${isoSeconds(claims.iat)}`);

  if (claims.aud !== expected.audience) return refuse('actionpass_invalid', `ActionPass ${claims.jti} is for audience ${JSON.stringify(claims.aud)}, not ${JSON.stringify(expected.audience)}`);
  if (claims.tenant !== expected.tenant) return refuse('actionpass_invalid', `ActionPass ${claims.jti} is for tenant ${claims.tenant}, not ${expected.tenant}`);
  if (expected.isPassUsed(claims.jti)) return refuse('actionpass_replayed', `ActionPass ${claims.jti} was already used`);
  if (claims.payloadHash !== expected.payloadHash) {
    return refuse('actionpass_payload_hash_mismatch', `ActionPass ${claims.jti} authorizes payload ${claims.payloadHash}, but the payload to execute is ${expected.payloadHash}`);
  }
  return { ok: true, claims, kid };
}

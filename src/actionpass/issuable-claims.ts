import { SHA256_PATTERN } from '../events/canonical.js';
import { isNumericDate } from '../events/numeric-date.js';

/**
 * The ActionPass claims schema (actionpass-token.ts, `claimsSchema`) written out by hand, as a
 * yes/no test for the signer: every pass is checked before it is signed, and zod's copy and issue
 * list cost the signing thread about a sixth of a signature per pass. It only ever answers yes
 * for claims zod accepts; anything else goes on to zod, which then decides and words the
 * problem. A test holds the two to the same verdicts.
 */
export function isIssuableClaims(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const claims = value as Record<string, unknown>;
  // Strict: no key the schema does not name. The required ones are there if their checks pass.
  for (const key in claims) if (!Object.hasOwn(claims, key) || !CLAIM_KEYS.has(key)) return false;
  const { iat, nbf, exp } = claims;
  return (
    isText(claims.iss, 200) &&
    matches(claims.sub, SUB) &&
    isText(claims.aud, 200) &&
    isNumericDate(iat) &&
    isNumericDate(nbf) &&
    isNumericDate(exp) &&
    matches(claims.jti, IDENTIFIER) &&
    matches(claims.tenant, TENANT) &&
    isText(claims.tool, 400) &&
    isText(claims.resource, 1100) &&
    matches(claims.actionId, IDENTIFIER) &&
    matches(claims.actionHash, SHA256_PATTERN) &&
    matches(claims.payloadHash, SHA256_PATTERN) &&
    matches(claims.policyHash, SHA256_PATTERN) &&
    isCount(claims.decisionSeq) &&
    (claims.approvalId === undefined || matches(claims.approvalId, IDENTIFIER)) &&
    (nbf as number) <= (exp as number) &&
    (iat as number) <= (exp as number)
  );
}

const CLAIM_KEYS = new Set(['iss', 'sub', 'aud', 'iat', 'nbf', 'exp', 'jti', 'tenant', 'tool', 'resource', 'actionId', 'actionHash', 'payloadHash', 'policyHash', 'decisionSeq', 'approvalId']);

// The schema's patterns, character for character.
const NO_CONTROL = /^[^\p{Cc}]*$/u;
const IDENTIFIER = /^[A-Za-z0-9._:@/+-]{1,200}$/;
const SUB = /^agent:[^\s\p{Cc}]{1,128}$/u;
const TENANT = /^org:[^\s\p{Cc}]{1,63}$/u;

function matches(value: unknown, pattern: RegExp): boolean {
  return typeof value === 'string' && pattern.test(value);
}

/** z.string().min(1).max(max) with no control characters. */
function isText(value: unknown, max: number): boolean {
  return typeof value === 'string' && value.length >= 1 && value.length <= max && NO_CONTROL.test(value);
}

/** z.number().int().min(0): a safe integer, at least 0. */
function isCount(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}


import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claimsSchema } from '../../src/actionpass/actionpass-token.js';
import { isIssuableClaims } from '../../src/actionpass/issuable-claims.js';

/**
 * The signer checks every pass's claims by hand and goes to zod only for what it does not
 * accept; zod stays the reference. The hand-written rules must never accept what zod refuses.
 */

const hash = `sha256:${'a'.repeat(64)}`;
const valid: Record<string, unknown> = {
  actionHash: hash,
  actionId: 'act_AbC-_09',
  aud: 'svc.adapters',
  decisionSeq: 12,
  exp: 1_800_000_300,
  iat: 1_800_000_000,
  iss: 'svc.local',
  jti: 'pass_AbC-_09',
  nbf: 1_800_000_000,
  payloadHash: hash,
  policyHash: hash,
  resource: 'channel:eng',
  sub: 'agent:bench',
  tenant: 'org:acme',
  tool: 'chat.message.send',
};

const oddValues = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom(null, true, [], {}, 0, -0, 1, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53 - 1, 2 ** 53, 253_402_300_799, 253_402_300_800, 1_800_000_301, 1_799_999_999),
  fc.string({ maxLength: 4 }),
  fc.constantFrom('', 'a\u0007', 'agent:', 'agent:a b', 'agent:😀', 'org:', 'org:a b', `org:${'a'.repeat(64)}`, 'x'.repeat(200), 'x'.repeat(201), 'x'.repeat(1100), 'x'.repeat(1101), 'bad id', 'apr_1', hash, `sha256:${'A'.repeat(64)}`),
);

describe('isIssuableClaims', () => {
  it('accepts the claims the decider builds, with and without approvalId', () => {
    expect(isIssuableClaims(valid)).toBe(true);
    expect(isIssuableClaims({ ...valid, approvalId: 'apr_1' })).toBe(true);
  });

  it('answers yes only where zod does, on 5,000 claims mutated anywhere', () => {
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(valid), 'approvalId', 'extra'), oddValues, fc.boolean(), fc.option(fc.tuple(fc.constantFrom(...Object.keys(valid)), oddValues)), (key, value, remove, second) => {
        const claims: Record<string, unknown> = { ...valid };
        if (value === undefined && remove) delete claims[key];
        else claims[key] = value;
        if (second) claims[second[0]] = second[1];
        if (isIssuableClaims(claims)) expect(claimsSchema.safeParse(claims).success).toBe(true);
      }),
      { numRuns: 5_000, seed: 3 },
    );
  });
});

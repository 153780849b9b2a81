import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ActionPassClaims } from '../../src/actionpass/actionpass-token.js';
import { signedTokenJson } from '../../src/actionpass/jws.js';
import type { NormalizedAction } from '../../src/actionpass/action.js';
import type { ExecutionResult } from '../../src/adapters/tool-handler.js';
import type { AuthorizeOutcome } from '../../src/commands/authorize.js';
import { canonicalJson } from '../../src/events/canonical.js';
import type { Receipt } from '../../src/events/ledger-writer.js';
import type { PolicyDecision } from '../../src/policy/compile-policy.js';
import { decisionBodyJson } from '../../src/proxy/decision-body-json.js';
import type { Decided, Executed } from '../../src/proxy/enforcer.js';
import { decisionBody } from '../../src/proxy/responses.js';

/** The enforcer's tokenJson for a token it signed (three base64url parts); other generated tokens get none. */
function tokenJsonOf(token: string): string | undefined {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token) ? signedTokenJson(token) : undefined;
}

/**
 * The proxy answers decisionBodyJson's text instead of letting fastify JSON.stringify the
 * decision body; JSON.stringify stays the reference: the same bytes for every decision, whatever
 * its pass, approval, execution and strings hold (the pass spliced in as text when it can be,
 * serialized whole when not).
 */

const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', '\\ud800', '"quoted"', 'line\nbreak', '\u2028', '😀'));
const hash = fc.stringMatching(/^[0-9a-f]{64}$/).map((hex) => `sha256:${hex}`);
const base64url = fc.stringMatching(/^[A-Za-z0-9_-]{1,120}$/);
const jws = fc.tuple(base64url, base64url, base64url).map((parts) => parts.join('.'));
const token = fc.oneof(jws, text, fc.constantFrom('a.b.c', 'a.b', 'a..c', 'a.b.c.d', 'a.b.c\n', 'ab=.c.d'));
const number = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -0, 1e21, 1.5e-7, Number.MAX_SAFE_INTEGER));

/** Claims as the decider builds them (keys in JCS order, approvalId only when there is one), or in another order. */
const claims = fc
  .record({
    actionHash: fc.oneof(hash, text),
    actionId: text,
    approvalId: fc.option(text, { nil: undefined }),
    aud: text,
    decisionSeq: number,
    exp: number,
    iat: number,
    iss: text,
    jti: text,
    nbf: number,
    payloadHash: hash,
    policyHash: hash,
    resource: text,
    sub: text,
    tenant: text,
    tool: text,
  })
  .chain((fields) => {
    const { approvalId, ...rest } = fields;
    const sorted = { ...rest, ...(approvalId !== undefined && { approvalId }) };
    const ordered = Object.fromEntries(Object.entries(sorted).sort(([a], [b]) => (a < b ? -1 : 1))) as ActionPassClaims;
    return fc.constantFrom(
      ordered,
      Object.fromEntries(Object.entries(ordered).reverse()) as ActionPassClaims,
      { ...ordered, approvalId: undefined } as unknown as ActionPassClaims,
      { ...ordered, extra: { nested: true } } as unknown as ActionPassClaims,
    );
  });

/**
 * The pass of a decision: its claims' JCS text when they have one (none with a lone surrogate),
 * and its token's JSON text as the enforcer gives it (signedTokenJson), each sometimes not given.
 */
const pass = fc.record({ token, claims, withText: fc.boolean(), withTokenText: fc.boolean() }).map(({ token: passToken, claims: passClaims, withText, withTokenText }) => {
  let claimsJson: string | undefined;
  try {
    claimsJson = withText ? canonicalJson(passClaims) : undefined;
  } catch {
    claimsJson = undefined;
  }
  return { token: passToken, claims: passClaims, ...(claimsJson !== undefined && { claimsJson }), ...(withTokenText && { tokenJson: tokenJsonOf(passToken) }) };
});

const decision = fc.record({ decision: fc.constantFrom('allow', 'deny', 'step_up'), reasons: fc.array(text, { maxLength: 3 }), ruleId: text, policyHash: hash, explanation: text, trace: fc.constant([]) }) as fc.Arbitrary<PolicyDecision>;

const outcome = fc.record(
  {
    status: fc.constantFrom('decided', 'pending_approval', 'blocked'),
    decision,
    explanation: text,
    decidedIndex: fc.constantFrom(0, 1, 5),
    approval: fc.record({ approvalId: text, status: fc.constantFrom('pending', 'granted') }),
    blocked: fc.record({ reason: text, approvedPayloadHash: hash, executedPayloadHash: hash }),
  },
  { requiredKeys: ['status', 'decision', 'explanation', 'decidedIndex'] },
).map((fields) => ({ events: [], ...fields }) as AuthorizeOutcome);

const receipt = fc.record({ seq: fc.nat(), hash, ts: fc.constant('2026-11-26T11:16:00.000Z'), type: fc.constant('policy.decided') }) as fc.Arbitrary<Receipt>;

const jsonValue = fc.jsonValue() as fc.Arbitrary<ExecutionResult['result']>;
const execution = fc.record(
  {
    status: fc.constantFrom('executed', 'failed', 'blocked'),
    approvedPayloadHash: hash,
    executedPayloadHash: hash,
    reason: text,
    result: fc.record({ outcome: fc.constantFrom('succeeded', 'failed'), executedPayloadHash: hash, resultHash: hash, result: jsonValue }) as fc.Arbitrary<ExecutionResult>,
  },
  { requiredKeys: ['status', 'approvedPayloadHash'] },
) as fc.Arbitrary<NonNullable<Executed['execution']>>;

const decided = fc.record(
  {
    outcome,
    pass,
    actionId: text,
    actionHash: hash,
    payloadHash: hash,
    receipts: fc.array(receipt, { maxLength: 3 }),
    execution,
  },
  { requiredKeys: ['outcome', 'actionId', 'actionHash', 'payloadHash', 'receipts'] },
).map((fields) => ({ action: {} as NormalizedAction, ...fields }) as Decided | Executed);

describe('decisionBodyJson', () => {
  it('is JSON.stringify(decisionBody(decided)) for every decision', () => {
    fc.assert(
      fc.property(decided, (value) => {
        expect(decisionBodyJson(value)).toBe(JSON.stringify(decisionBody(value)));
      }),
      { numRuns: 2000 },
    );
  });

  it('splices an allow as the decider builds it, and answers the same bytes', () => {
    const claimsOfAllow: ActionPassClaims = {
      actionHash: `sha256:${'a'.repeat(64)}`,
      actionId: 'act_1',
      aud: 'svc.adapters',
      decisionSeq: 4,
      exp: 1_800_000_300,
      iat: 1_800_000_000,
      iss: 'svc.local',
      jti: 'pass_1',
      nbf: 1_800_000_000,
      payloadHash: `sha256:${'b'.repeat(64)}`,
      policyHash: `sha256:${'c'.repeat(64)}`,
      resource: 'channel:eng',
      sub: 'agent:bench',
      tenant: 'org:acme',
      tool: 'chat.message.send',
    };
    const value: Decided = {
      outcome: { events: [], status: 'decided', decision: { decision: 'allow', reasons: ['rule_allow'], ruleId: 'allow-chat', policyHash: `sha256:${'c'.repeat(64)}`, explanation: 'allowed', trace: [] }, explanation: 'allowed', decidedIndex: 1 },
      // A claims text that is not JSON.stringify's would show: the splice uses the text given.
      pass: { token: 'eyJh.eyJi.c2ln', claims: claimsOfAllow, claimsJson: canonicalJson(claimsOfAllow), tokenJson: tokenJsonOf('eyJh.eyJi.c2ln') },
      action: {} as NormalizedAction,
      actionId: 'act_1',
      actionHash: `sha256:${'a'.repeat(64)}`,
      payloadHash: `sha256:${'b'.repeat(64)}`,
      receipts: [],
    };
    expect(decisionBodyJson(value)).toBe(JSON.stringify(decisionBody(value)));
    expect(decisionBodyJson({ ...value, pass: { ...value.pass!, claimsJson: '{"spliced":true}' } })).toContain('"claims":{"spliced":true}');
  });
});

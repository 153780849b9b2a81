import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { normalizeAction } from '../../src/actionpass/action.js';
import { issueActionPass } from '../../src/actionpass/actionpass-token.js';
import { signApprovalArtifact, verifyApprovalArtifact, type ApprovalClaims } from '../../src/actionpass/approval-artifact.js';
import { generateSigningKey, publicKeyInfo } from '../../src/actionpass/keys.js';
import { TrustIndex } from '../../src/actionpass/trust-store.js';
import { decideGrant } from '../../src/commands/approve.js';
import { decideAuthorization, passIssued, type AuthorizeCommand, type AuthorizeDependencies } from '../../src/commands/authorize.js';
import { parseConfig } from '../../src/config/load-config.js';
import { hashCanonical } from '../../src/events/canonical.js';
import { checkEvent, type LedgerEvent, type LedgerRecord } from '../../src/events/catalogue.js';
import { compilePolicy } from '../../src/policy/compile-policy.js';
import { RuntimeState } from '../../src/projections/runtime-state.js';

/**
 * The authorization decider, given/when/then: given the records already in the ledger, when an
 * action is decided, then these events and this answer. Real keys, the real example policy.
 */
const TENANT = 'org:acme';
const NOW = Date.parse('2026-11-21T10:00:00.000Z');
const config = parseConfig(readFileSync(new URL('../../svc.yml.example', import.meta.url), 'utf8'), 'svc.yml.example');
const passKey = generateSigningKey('svc.local/org:acme/pass-test');
const reviewerKey = generateSigningKey('reviewer/user:lead@acme.example/t1');
const strangerKey = generateSigningKey('reviewer/user:lead@acme.example/t2');
const trust = TrustIndex.of({
  version: 0,
  keys: [
    { ...publicKeyInfo(passKey), role: 'actionpass', addedAt: '2026-11-21T09:00:00.000Z' },
    { ...publicKeyInfo(reviewerKey), role: 'reviewer', reviewer: 'user:lead@acme.example', addedAt: '2026-11-21T09:00:00.000Z' },
  ],
});

const deps: AuthorizeDependencies = {
  policy: compilePolicy(config.policy),
  pass: config.actionpass,
  approvalTtlMs: 3_600_000,
  verifyArtifact: (token) => verifyApprovalArtifact(token, { trust, nowMs: NOW, tenant: TENANT }),
};

/**
 * The real decider, with every event it emits held to the ledger catalogue; a pass is signed and
 * its record follows the decision, as the enforcer appends it.
 */
function decide(...args: Parameters<typeof decideAuthorization>) {
  const outcome = decideAuthorization(...args);
  const events = outcome.pass ? [...outcome.events, passIssued(outcome.pass.claims, issueActionPass(passKey, outcome.pass.claims))] : outcome.events;
  for (const event of events) expect(checkEvent(event), `${event.type} fails the catalogue`).toMatchObject({ ok: true });
  return { ...outcome, events };
}

const chat = (channel: string) => ({ tool: 'chat.message.send', resource: `channel:${channel}`, payload: { channel, text: 'deploy finished' } });
const email = (body: string) => ({ tool: 'email.message.send', resource: 'mailbox:partner@example.org', payload: { to: 'partner@example.org', subject: 'Q3', body } });

const newState = () => new RuntimeState(deps.policy.budgets);

let counter = 0;
function command(capability: object, presentedApproval?: string, decisionSeq = 11): AuthorizeCommand {
  const normalized = normalizeAction({ schemaVersion: 'svc.action.v0', actor: { agentId: 'agent:assistant', tenant: 'org:evil' }, intent: { taskId: 't' }, capability }, TENANT);
  if (!normalized.ok) throw new Error(JSON.stringify(normalized.issues));
  counter += 1;
  return {
    action: normalized.action,
    actionHash: normalized.actionHash,
    payloadHash: normalized.payloadHash,
    source: 'proxy',
    ids: { actionId: `act_${counter}`, passId: `pass_${counter}`, approvalId: `apr_${counter}` },
    nowMs: NOW,
    decisionSeq,
    mode: 'enforce',
    ...(presentedApproval !== undefined && { presentedApproval }),
  };
}

/**
 * Folds events as the writer would seal them, so the state is the one the next decision sees.
 * Every event a decider emits must pass the catalogue: the proxy appends them unchecked.
 */
function given(state: RuntimeState, events: LedgerEvent[]): void {
  for (const event of events) {
    expect(checkEvent(event)).toMatchObject({ ok: true });
    const record = { v: 0, seq: state.size, ts: '2026-11-21T10:00:00.000Z', prevHash: `sha256:${'0'.repeat(64)}`, ...event } as LedgerRecord;
    state.apply(record);
  }
}

function artifactFor(approvalId: string, actionId: string, actionHash: string, payloadHash: string, overrides: Partial<ApprovalClaims> = {}, key = reviewerKey): string {
  return signApprovalArtifact(key, {
    approvalId,
    actionId,
    actionHash,
    payloadHash,
    approvedBy: 'user:lead@acme.example',
    mode: 'human',
    reason: 'ok',
    iat: NOW / 1000,
    exp: NOW / 1000 + 600,
    tenant: TENANT,
    ...overrides,
  });
}

/** A pending step-up already in the ledger: its approval id and the request that opened it. */
function pendingStepUp(state: RuntimeState, body = 'numbers attached') {
  const request = command(email(body));
  const outcome = decide(state, request, deps);
  given(state, outcome.events);
  return { request, approvalId: request.ids.approvalId };
}

function grant(state: RuntimeState, pending: ReturnType<typeof pendingStepUp>): string {
  const artifact = artifactFor(pending.approvalId, pending.request.ids.actionId, pending.request.actionHash, pending.request.payloadHash);
  const granted = decideGrant(state, { approvalId: pending.approvalId, artifact, nowMs: NOW, approvalTtlMs: 3_600_000, verifyArtifact: deps.verifyArtifact });
  if (!granted.ok) throw new Error(granted.message);
  given(state, granted.events);
  return artifact;
}

/**
 * SPEC.md 4.2: callers read decision.reasons, so the refusal is there and in the policy.decided
 * record, like every other approval refusal; execution.blocked holds the pair side by side.
 */
function expectMismatchRecorded(outcome: ReturnType<typeof decide>, when: AuthorizeCommand, pair: { reason: string; approvedPayloadHash: string; executedPayloadHash: string }): void {
  const reasons = ['external_recipient', 'approval_payload_hash_mismatch'];
  expect(outcome.decision.reasons).toEqual(reasons);
  expect(outcome.events.map((event) => event.type)).toEqual(['action.received', 'policy.decided', 'execution.blocked']);
  expect(outcome.events[outcome.decidedIndex]).toMatchObject({ type: 'policy.decided', data: { decision: 'step_up', reasons } });
  expect(outcome.events[2]).toEqual({ type: 'execution.blocked', stream: `action:${when.ids.actionId}`, data: { actionId: when.ids.actionId, ...pair } });
}

describe('decideAuthorization', () => {
  it('given nothing, when a chat to an allowlisted channel arrives, then it is received, decided allow and a pass bound to its payload hash is issued', () => {
    const when = command(chat('eng'));
    const outcome = decide(newState(), when, deps);
    expect(outcome.events.map((event) => event.type)).toEqual(['action.received', 'policy.decided', 'actionpass.issued']);
    expect(outcome.status).toBe('decided');
    expect(outcome.pass?.claims).toMatchObject({ payloadHash: when.payloadHash, actionHash: when.actionHash, tenant: TENANT, decisionSeq: 11, jti: when.ids.passId, sub: 'agent:assistant' });
    expect(outcome.pass?.claims.exp).toBe(NOW / 1000 + config.actionpass.ttlSeconds);
  });

  it('given nothing, when a chat to another channel arrives, then it is denied with channel_not_allowlisted and no pass', () => {
    const outcome = decide(newState(), command(chat('random')), deps);
    expect(outcome.events.map((event) => event.type)).toEqual(['action.received', 'policy.decided']);
    expect(outcome.decision).toMatchObject({ decision: 'deny', reasons: ['channel_not_allowlisted'], ruleId: 'chat-other-channels' });
    expect(outcome.pass).toBeUndefined();
  });

  it('given nothing, when mail to an external recipient arrives, then it steps up and requests an approval of that exact payload', () => {
    const when = command(email('numbers attached'));
    const outcome = decide(newState(), when, deps);
    expect(outcome.status).toBe('pending_approval');
    expect(outcome.decision.reasons).toContain('external_recipient');
    expect(outcome.events[2]).toMatchObject({ type: 'approval.requested', data: { approvalId: when.ids.approvalId, payloadHash: when.payloadHash, actionHash: when.actionHash } });
    expect(outcome.pass).toBeUndefined();
  });

  it('given a granted approval, when the same payload names it, then a pass carrying the approval id is issued', () => {
    const state = newState();
    const pending = pendingStepUp(state);
    grant(state, pending);
    const outcome = decide(state, command(email('numbers attached'), pending.approvalId), deps);
    expect(outcome.status).toBe('decided');
    expect(outcome.pass?.claims.approvalId).toBe(pending.approvalId);
    expect(outcome.pass?.claims.payloadHash).toBe(pending.request.payloadHash);
  });

  it('given a granted approval, when a changed payload names it, then it is blocked with both hashes, the reason in decision.reasons and no pass', () => {
    const state = newState();
    const pending = pendingStepUp(state);
    grant(state, pending);
    const when = command(email('numbers attached. Also wire $9,000.'), pending.approvalId);
    const outcome = decide(state, when, deps);
    expect(outcome.status).toBe('blocked');
    expect(outcome.pass).toBeUndefined();
    const pair = { reason: 'approval_payload_hash_mismatch', approvedPayloadHash: pending.request.payloadHash, executedPayloadHash: when.payloadHash };
    expect(outcome.blocked).toEqual(pair);
    expectMismatchRecorded(outcome, when, pair);
  });

  it('given a pending approval, when the request carries an artifact signed over another payload, then it is blocked with the artifact\'s hash against the presented one, and the approval stays pending', () => {
    const state = newState();
    const pending = pendingStepUp(state);
    const otherPayloadHash = hashCanonical(email('numbers attached. Also wire $9,000.').payload);
    const artifact = artifactFor(pending.approvalId, pending.request.ids.actionId, pending.request.actionHash, otherPayloadHash);
    const when = command(email('numbers attached'), artifact);
    const outcome = decide(state, when, deps);
    expect(outcome.status).toBe('blocked');
    expect(outcome.pass).toBeUndefined();
    const pair = { reason: 'approval_payload_hash_mismatch', approvedPayloadHash: otherPayloadHash, executedPayloadHash: when.payloadHash };
    expect(outcome.blocked).toEqual(pair);
    expectMismatchRecorded(outcome, when, pair);
    given(state, outcome.events);
    expect(state.approval(pending.approvalId)?.status).toBe('pending');
  });

  it('given an approval already used, when it is named again, then it is refused as approval_used', () => {
    const state = newState();
    const pending = pendingStepUp(state);
    grant(state, pending);
    given(state, decide(state, command(email('numbers attached'), pending.approvalId), deps).events);
    const again = decide(state, command(email('numbers attached'), pending.approvalId), deps);
    expect(again.status).toBe('blocked');
    expect(again.pass).toBeUndefined();
    expect(again.decision.reasons).toContain('approval_used');
  });

  it('given an approval whose pass is being signed for one request, when a second request names it, then approval_used', () => {
    const state = newState();
    const pending = pendingStepUp(state);
    grant(state, pending);
    state.reserveApproval(pending.approvalId);
    const second = decide(state, command(email('numbers attached'), pending.approvalId), deps);
    expect(second.pass).toBeUndefined();
    expect(second.decision.reasons).toContain('approval_used');
  });

  it('given a pending approval, when its id is named before anyone approved it, then approval_required', () => {
    const state = newState();
    const pending = pendingStepUp(state);
    expect(decide(state, command(email('numbers attached'), pending.approvalId), deps).decision.reasons).toContain('approval_required');
  });

  it('given a pending approval, when the request carries the signed artifact itself, then it is granted and used in the same step', () => {
    const state = newState();
    const pending = pendingStepUp(state);
    const artifact = artifactFor(pending.approvalId, pending.request.ids.actionId, pending.request.actionHash, pending.request.payloadHash);
    const outcome = decide(state, command(email('numbers attached'), artifact), deps);
    expect(outcome.events.map((event) => event.type)).toEqual(['action.received', 'policy.decided', 'approval.granted', 'actionpass.issued']);
  });

  it('when an unknown approval id, an expired artifact, a foreign tenant or an unlisted reviewer key is presented, then each is refused with its own reason', () => {
    const state = newState();
    const pending = pendingStepUp(state);
    const { ids, actionHash, payloadHash } = pending.request;
    const reasonFor = (presented: string) => decide(state, command(email('numbers attached'), presented), deps).decision.reasons.at(-1);
    expect(reasonFor('apr_nope')).toBe('approval_unknown');
    expect(reasonFor(artifactFor(pending.approvalId, ids.actionId, actionHash, payloadHash, { exp: NOW / 1000 - 60, iat: NOW / 1000 - 600 }))).toBe('approval_expired');
    expect(reasonFor(artifactFor(pending.approvalId, ids.actionId, actionHash, payloadHash, { tenant: 'org:other' }))).toBe('approval_tenant_mismatch');
    expect(reasonFor(artifactFor(pending.approvalId, ids.actionId, actionHash, payloadHash, {}, strangerKey))).toBe('approval_invalid');
  });

  it('given an approval for one mailbox, when another tool or resource presents it, then approval_action_mismatch', () => {
    const state = newState();
    const pending = pendingStepUp(state);
    grant(state, pending);
    const other = { ...email('numbers attached'), resource: 'mailbox:other@example.org', payload: { to: 'other@example.org', subject: 'Q3', body: 'numbers attached' } };
    expect(decide(state, command(other, pending.approvalId), deps).decision.reasons).toContain('approval_action_mismatch');
  });
});

describe('decideAuthorization for hooks (approval found by payload hash)', () => {
  const hook = (capability: object): AuthorizeCommand => ({ ...command(capability), source: 'hook', mode: 'hook', findApprovalByPayload: true });

  it('given a pending approval of this payload, when the identical request comes again, then the same approval is named and no second one opens', () => {
    const state = newState();
    const first = decide(state, hook(email('numbers attached')), deps);
    given(state, first.events);
    const again = decide(state, hook(email('numbers attached')), deps);
    expect(again.status).toBe('pending_approval');
    expect(again.approval?.approvalId).toBe(first.approval?.approvalId);
    expect(again.events.map((event) => event.type)).toEqual(['action.received', 'policy.decided']);
  });

  it('given a granted approval of this payload, when the identical request comes, then it passes once, and a third attempt opens a new approval', () => {
    const state = newState();
    const first = hook(email('numbers attached'));
    const opened = decide(state, first, deps);
    given(state, opened.events);
    grant(state, { request: first, approvalId: first.ids.approvalId });
    const second = decide(state, hook(email('numbers attached')), deps);
    expect(second.status).toBe('decided');
    expect(second.pass?.claims.approvalId).toBe(first.ids.approvalId);
    given(state, second.events);
    const third = hook(email('numbers attached'));
    const outcome = decide(state, third, deps);
    expect(outcome.status).toBe('pending_approval');
    expect(outcome.approval?.approvalId).toBe(third.ids.approvalId);
  });

  it('given a granted approval of one payload, when a different payload comes, then it gets its own pending approval', () => {
    const state = newState();
    const first = hook(email('numbers attached'));
    given(state, decide(state, first, deps).events);
    grant(state, { request: first, approvalId: first.ids.approvalId });
    const changed = hook(email('numbers attached, and the wire details'));
    const outcome = decide(state, changed, deps);
    expect(outcome.status).toBe('pending_approval');
    expect(outcome.approval?.approvalId).toBe(changed.ids.approvalId);
  });

  it('without findApprovalByPayload (the proxy and SDK), a repeated request opens a new approval', () => {
    const state = newState();
    given(state, decide(state, command(email('numbers attached')), deps).events);
    const again = command(email('numbers attached'));
    expect(decide(state, again, deps).approval?.approvalId).toBe(again.ids.approvalId);
  });
});

describe('decideGrant', () => {
  it('refuses an artifact over a different payload than the one that asked, and a second grant', () => {
    const state = newState();
    const pending = pendingStepUp(state);
    const wrong = artifactFor(pending.approvalId, pending.request.ids.actionId, pending.request.actionHash, `sha256:${'1'.repeat(64)}`);
    const refused = decideGrant(state, { approvalId: pending.approvalId, artifact: wrong, nowMs: NOW, approvalTtlMs: 3_600_000, verifyArtifact: deps.verifyArtifact });
    expect(refused).toMatchObject({ ok: false, code: 'approval_payload_hash_mismatch' });
    grant(state, pending);
    const twice = decideGrant(state, { approvalId: pending.approvalId, artifact: wrong, nowMs: NOW, approvalTtlMs: 3_600_000, verifyArtifact: deps.verifyArtifact });
    expect(twice).toMatchObject({ ok: false, code: 'approval_already_granted' });
  });

  it('refuses a request older than the approval time-to-live', () => {
    const state = newState();
    const pending = pendingStepUp(state);
    const artifact = artifactFor(pending.approvalId, pending.request.ids.actionId, pending.request.actionHash, pending.request.payloadHash);
    const late = decideGrant(state, { approvalId: pending.approvalId, artifact, nowMs: NOW + 2 * 3_600_000, approvalTtlMs: 3_600_000, verifyArtifact: deps.verifyArtifact });
    expect(late).toMatchObject({ ok: false, code: 'approval_expired' });
  });
});

import { signCompactJws } from '../src/actionpass/jws.js';
import type { SigningKey } from '../src/actionpass/keys.js';
import { hashCanonical, type Sha256 } from '../src/events/canonical.js';
import type { LedgerEvent } from '../src/events/catalogue.js';

/**
 * Realistic event sequences for fixtures, tests and benchmarks: the shapes the enforcement spine
 * appends for an allow, a deny and a step-up. Pass the seq the flow's first record will get, so
 * ActionPass claims can name their `policy.decided` record.
 */
export interface FlowKeys {
  pass: SigningKey;
  reviewer: SigningKey;
}

export interface FlowContext {
  keys: FlowKeys;
  tenant: string;
  /** Seconds since the epoch for token claims. */
  issuedAt: number;
}

const POLICY_HASH = hashCanonical({ policy: 'sample' });

function normalizedAction(tenant: string, agent: string, tool: string, resource: string, payload: Record<string, unknown>) {
  return {
    schemaVersion: 'svc.action.v0' as const,
    actor: { agentId: `agent:${agent}`, humanOwner: 'user:dev@acme.example', runtime: 'sample', tenant },
    intent: { taskId: 'task-42', declaredGoal: 'notify the team' },
    capability: { tool, resource, payload },
  };
}

function received(actionId: string, action: ReturnType<typeof normalizedAction>): LedgerEvent {
  return { type: 'action.received', stream: `action:${actionId}`, data: { actionId, source: 'proxy', action, actionHash: hashCanonical(action), payloadHash: hashCanonical(action.capability.payload) } };
}

function decided(actionId: string, decision: 'allow' | 'deny' | 'step_up', reasons: string[], ruleId: string): LedgerEvent {
  return { type: 'policy.decided', stream: `action:${actionId}`, data: { actionId, decision, reasons, ruleId, policyHash: POLICY_HASH } };
}

function issued(context: FlowContext, actionId: string, action: ReturnType<typeof normalizedAction>, decisionSeq: number, approvalId?: string): LedgerEvent {
  const passId = `pass_${actionId.slice(4)}`;
  const claims = {
    iss: 'svc.local',
    sub: action.actor.agentId,
    aud: 'svc.adapters',
    iat: context.issuedAt,
    nbf: context.issuedAt,
    exp: context.issuedAt + 300,
    jti: passId,
    tenant: context.tenant,
    tool: action.capability.tool,
    resource: action.capability.resource,
    actionId,
    actionHash: hashCanonical(action),
    payloadHash: hashCanonical(action.capability.payload),
    policyHash: POLICY_HASH,
    decisionSeq,
    ...(approvalId !== undefined && { approvalId }),
  };
  const token = signCompactJws(context.keys.pass, { typ: 'svc-actionpass+jwt', kid: context.keys.pass.name }, claims);
  return { type: 'actionpass.issued', stream: `action:${actionId}`, data: { actionId, passId, claims, token } };
}

function completed(actionId: string, approved: Sha256, executed: Sha256): LedgerEvent {
  return {
    type: 'execution.completed',
    stream: `action:${actionId}`,
    data: { actionId, passId: `pass_${actionId.slice(4)}`, approvedPayloadHash: approved, executedPayloadHash: executed, outcome: 'succeeded', resultHash: hashCanonical({ ok: true, actionId }) },
  };
}

/** An allowed chat message, executed: received, decided, issued, completed. */
export function allowFlow(context: FlowContext, actionId: string, firstSeq: number, text = 'deploy finished'): LedgerEvent[] {
  const action = normalizedAction(context.tenant, 'deployer', 'chat.message.send', 'channel:eng', { channel: 'eng', text });
  const payloadHash = hashCanonical(action.capability.payload);
  return [received(actionId, action), decided(actionId, 'allow', ['rule_allow'], 'chat-allowlisted-channels'), issued(context, actionId, action, firstSeq + 1), completed(actionId, payloadHash, payloadHash)];
}

/** A chat message to a channel off the allowlist: received, denied. */
export function denyFlow(context: FlowContext, actionId: string): LedgerEvent[] {
  const action = normalizedAction(context.tenant, 'deployer', 'chat.message.send', 'channel:random', { channel: 'random', text: 'hello' });
  return [received(actionId, action), decided(actionId, 'deny', ['channel_not_allowlisted'], 'chat-allowlisted-channels')];
}

export interface StepUpIds {
  requestActionId: string;
  approvalId: string;
  executeActionId: string;
}

/**
 * An email to an external recipient: step_up, an approval bound to the exact payload, then an
 * execution request naming the approval. With `alteredBody` the executed payload differs from the
 * approved one and the attempt is blocked with `approval_payload_hash_mismatch`.
 */
export function stepUpFlow(context: FlowContext, ids: StepUpIds, firstSeq: number, alteredBody?: string): LedgerEvent[] {
  const payload = { to: 'partner@example.org', subject: 'Q3 numbers', body: 'Attached are the Q3 numbers.' };
  const request = normalizedAction(context.tenant, 'assistant', 'email.message.send', 'mailbox:partner@example.org', payload);
  const approvedPayloadHash = hashCanonical(payload);
  const artifact = signCompactJws(context.keys.reviewer, { typ: 'svc-approval+jwt', kid: context.keys.reviewer.name }, {
    approvalId: ids.approvalId,
    actionId: ids.requestActionId,
    actionHash: hashCanonical(request),
    payloadHash: approvedPayloadHash,
    approvedBy: 'user:lead@acme.example',
    mode: 'human',
    reason: 'partner expects the numbers',
    iat: context.issuedAt,
    exp: context.issuedAt + 3600,
    tenant: context.tenant,
  });
  const events: LedgerEvent[] = [
    received(ids.requestActionId, request),
    decided(ids.requestActionId, 'step_up', ['external_recipient', 'rule_step_up'], 'email-external-recipients'),
    { type: 'approval.requested', stream: `action:${ids.requestActionId}`, data: { actionId: ids.requestActionId, approvalId: ids.approvalId, actionHash: hashCanonical(request), payloadHash: approvedPayloadHash, hosted: false } },
    { type: 'approval.granted', stream: `action:${ids.requestActionId}`, data: { actionId: ids.requestActionId, approvalId: ids.approvalId, approvedBy: 'user:lead@acme.example', approvedPayloadHash, artifact } },
  ];
  const executedPayload = alteredBody === undefined ? payload : { ...payload, body: alteredBody };
  const execution = normalizedAction(context.tenant, 'assistant', 'email.message.send', 'mailbox:partner@example.org', executedPayload);
  const executedPayloadHash = hashCanonical(executedPayload);
  events.push(received(ids.executeActionId, execution), decided(ids.executeActionId, 'step_up', ['external_recipient', 'rule_step_up'], 'email-external-recipients'));
  if (executedPayloadHash !== approvedPayloadHash) {
    events.push({ type: 'execution.blocked', stream: `action:${ids.executeActionId}`, data: { actionId: ids.executeActionId, reason: 'approval_payload_hash_mismatch', approvedPayloadHash, executedPayloadHash } });
    return events;
  }
  events.push(issued(context, ids.executeActionId, execution, firstSeq + 5, ids.approvalId), completed(ids.executeActionId, approvedPayloadHash, executedPayloadHash));
  return events;
}

import type { NormalizedAction } from '../actionpass/action.js';
import type { ActionPassClaims } from '../actionpass/actionpass-token.js';
import type { ApprovalCheck } from '../actionpass/approval-artifact.js';
import type { ActionSource, LedgerEvent } from '../events/catalogue.js';
import { applyPreVerdict, type CompiledPolicy, type PolicyDecision, type PolicyMode, type PreVerdict } from '../policy/compile-policy.js';
import type { OpenApproval, RuntimeState } from '../projections/runtime-state.js';
import { executionBlocked } from './record-execution.js';
import { resolvePresentedApproval, type ApprovalRefusal } from './resolve-approval.js';

/**
 * The authorization decider: given the state folded from the ledger and one normalized action,
 * the events to append and what to answer. Pure: ids, the clock and the signer come in with the
 * command, and nothing here touches the ledger, the network or the disk.
 *
 * allow      → received, decided, then actionpass.issued once signed
 * deny       → received, decided
 * step_up    → received, decided, approval.requested                     (no approval presented)
 *            → received, decided, [approval.granted], then actionpass.issued (approval for this exact payload)
 *            → received, decided, execution.blocked                      (approved payload differs: the granted
 *                                                                          approval's, or a presented artifact's)
 *            → received, decided                                         (approval unusable: reason says why)
 *
 * Every refusal of a presented approval, approval_payload_hash_mismatch included, is appended to
 * decision.reasons and to the policy.decided record: callers read decision.reasons (SPEC.md 4.2).
 */
export interface AuthorizeCommand {
  action: NormalizedAction;
  actionHash: string;
  payloadHash: string;
  source: ActionSource;
  ids: { actionId: string; passId: string; approvalId: string };
  nowMs: number;
  /** The seq the policy.decided record (the second event) will get: an ActionPass names it. */
  decisionSeq: number;
  mode: PolicyMode;
  /** The `svc-approval` header: an approval id or the artifact itself. */
  presentedApproval?: string;
  /**
   * Hooks cannot carry an approval id back to the agent's next attempt, so re-running the
   * identical command finds its approval by payload hash (DESIGN.md 6): a granted one is used,
   * and a pending one is named again instead of opening another.
   */
  findApprovalByPayload?: boolean;
  /**
   * A verdict reached before the policy from facts the policy does not see (an MCP tool whose
   * definition no longer matches its pin): its deny stands whatever the rules say, and its
   * step_up yields only to a rule's deny, like the protected-path guard.
   */
  guard?: PreVerdict;
}

export type { PreVerdict };

export interface AuthorizeDependencies {
  policy: CompiledPolicy;
  pass: { issuer: string; audience: string; ttlSeconds: number };
  approvalTtlMs: number;
  verifyArtifact(token: string): ApprovalCheck;
}

export type AuthorizeStatus = 'decided' | 'pending_approval' | 'blocked';

export interface AuthorizeOutcome {
  /** The records to append now; an ActionPass, once signed, follows as `passIssued(...)`. */
  events: LedgerEvent[];
  status: AuthorizeStatus;
  decision: PolicyDecision;
  explanation: string;
  /** Index in `events` of the policy.decided record. */
  decidedIndex: number;
  /** The claims of the ActionPass to issue, signed by the caller (signing is I/O-bound to a key). */
  pass?: { claims: ActionPassClaims };
  approval?: { approvalId: string; status: 'pending' | 'granted' };
  /** The hash the pass or the approval bound: the approved half of the equivalence pair. */
  approvedPayloadHash?: string;
  /** The approval behind the pass of an approved step-up and the artifact that granted it: checked again right before a side effect. */
  grant?: { approvalId: string; artifact: string };
  blocked?: { reason: string; approvedPayloadHash: string; executedPayloadHash: string };
}

export function decideAuthorization(state: RuntimeState, command: AuthorizeCommand, deps: AuthorizeDependencies): AuthorizeOutcome {
  const { action, ids } = command;
  const stream = `action:${ids.actionId}`;
  const evaluated = deps.policy.evaluate(
    action,
    { now: command.nowMs, countAllowed: (budget, agentId, tool) => state.budgets.countAllowed(budget, agentId, tool, command.nowMs) },
    command.mode,
  );
  const decision = command.guard ? applyPreVerdict(evaluated, command.guard) : evaluated;
  const received: LedgerEvent = {
    type: 'action.received',
    stream,
    // Data keys in JCS order here and below: the ledger serializes sorted trees natively.
    data: { action, actionHash: command.actionHash, actionId: ids.actionId, payloadHash: command.payloadHash, source: command.source },
  };
  const decided = (reasons: string[]): LedgerEvent => ({
    type: 'policy.decided',
    stream,
    data: { actionId: ids.actionId, decision: decision.decision, policyHash: decision.policyHash, reasons, ruleId: decision.ruleId },
  });
  const issuePass = (approvalId?: string): { claims: ActionPassClaims } => {
    const iat = Math.floor(command.nowMs / 1000);
    const claims: ActionPassClaims = {
      actionHash: command.actionHash,
      actionId: ids.actionId,
      ...(approvalId !== undefined && { approvalId }),
      aud: deps.pass.audience,
      decisionSeq: command.decisionSeq,
      exp: iat + deps.pass.ttlSeconds,
      iat,
      iss: deps.pass.issuer,
      jti: ids.passId,
      nbf: iat,
      payloadHash: command.payloadHash,
      policyHash: decision.policyHash,
      resource: action.capability.resource,
      sub: action.actor.agentId,
      tenant: action.actor.tenant,
      tool: action.capability.tool,
    };
    return { claims };
  };

  if (decision.decision === 'allow') {
    const pass = issuePass();
    return { events: [received, decided(decision.reasons)], status: 'decided', decision, explanation: decision.explanation, decidedIndex: 1, pass, approvedPayloadHash: command.payloadHash };
  }
  if (decision.decision !== 'step_up') {
    return { events: [received, decided(decision.reasons)], status: 'decided', decision, explanation: decision.explanation, decidedIndex: 1 };
  }

  let presentedApproval = command.presentedApproval;
  if (presentedApproval === undefined && command.findApprovalByPayload) {
    const open = state.approvalsForPayload(command.payloadHash, action.capability.tool, action.capability.resource);
    const granted = open.find((approval) => approval.status === 'granted' && !state.isApprovalReserved(approval.approvalId));
    // An expired request can no longer be approved: the next attempt opens a fresh one.
    const pending = open.find((approval) => approval.status === 'pending' && Date.parse(approval.requestedAt) + deps.approvalTtlMs > command.nowMs);
    if (granted) presentedApproval = granted.approvalId;
    else if (pending) {
      return {
        events: [received, decided(decision.reasons)],
        status: 'pending_approval',
        decision,
        explanation: `${decision.explanation}; approval ${pending.approvalId} for this exact payload is still pending: a reviewer approves it with \`svc approvals approve ${pending.approvalId}\`, then the identical request passes once`,
        decidedIndex: 1,
        approval: { approvalId: pending.approvalId, status: 'pending' },
      };
    }
  }

  if (presentedApproval === undefined) {
    const requested: LedgerEvent = {
      type: 'approval.requested',
      stream,
      data: { actionId: ids.actionId, approvalId: ids.approvalId, actionHash: command.actionHash, payloadHash: command.payloadHash, hosted: false },
    };
    return {
      events: [received, decided(decision.reasons), requested],
      status: 'pending_approval',
      decision,
      explanation: `${decision.explanation}; approval ${ids.approvalId} is pending: a reviewer approves this exact payload with \`svc approvals approve ${ids.approvalId}\`, then send the same action again with header svc-approval: ${ids.approvalId}`,
      decidedIndex: 1,
      approval: { approvalId: ids.approvalId, status: 'pending' },
    };
  }

  const resolved = resolvePresentedApproval(state, presentedApproval, { nowMs: command.nowMs, approvalTtlMs: deps.approvalTtlMs, verifyArtifact: deps.verifyArtifact });
  if (!resolved.ok) return refused(resolved.refusal);
  const approval: OpenApproval = resolved.approval;
  const requestedAction = approval.action;
  if (requestedAction && (requestedAction.capability.tool !== action.capability.tool || requestedAction.capability.resource !== action.capability.resource)) {
    return refused({
      reason: 'approval_action_mismatch',
      message: `approval ${approval.approvalId} was given for ${requestedAction.capability.tool} on ${requestedAction.capability.resource}, not ${action.capability.tool} on ${action.capability.resource}`,
    });
  }
  const approvedPayloadHash = resolved.approvedPayloadHash;
  if (approvedPayloadHash !== command.payloadHash) {
    const reasons = [...decision.reasons, APPROVAL_PAYLOAD_HASH_MISMATCH];
    return {
      ...mismatchBlocked(reasons, approvedPayloadHash, resolved.events),
      explanation: `blocked: the payload differs from the one approved in ${approval.approvalId} (approved ${approvedPayloadHash}, presented ${command.payloadHash}); nothing was executed (${APPROVAL_PAYLOAD_HASH_MISMATCH})`,
      approval: { approvalId: approval.approvalId, status: 'granted' },
    };
  }
  const pass = issuePass(approval.approvalId);
  return {
    events: [received, decided(decision.reasons), ...resolved.events],
    status: 'decided',
    decision,
    explanation: `${decision.explanation}; approved by ${resolved.approvedBy} in ${approval.approvalId} for this exact payload, so an ActionPass was issued`,
    decidedIndex: 1,
    pass,
    approval: { approvalId: approval.approvalId, status: 'granted' },
    approvedPayloadHash,
    grant: { approvalId: approval.approvalId, artifact: resolved.artifact },
  };

  function refused(refusal: ApprovalRefusal): AuthorizeOutcome {
    const reasons = [...decision.reasons, refusal.reason];
    const explanation = `${decision.explanation}; the presented approval cannot be used: ${refusal.message} (${refusal.reason})`;
    // An artifact over another payload is the mismatch DESIGN.md 6 blocks with both hashes recorded.
    if (refusal.approvedPayloadHash !== undefined) return { ...mismatchBlocked(reasons, refusal.approvedPayloadHash, []), explanation };
    return { events: [received, decided(reasons)], status: 'blocked', decision: { ...decision, reasons }, explanation, decidedIndex: 1 };
  }

  /** Blocked for approval_payload_hash_mismatch: the approved hash against the presented payload's, in execution.blocked. */
  function mismatchBlocked(reasons: string[], approved: string, granted: LedgerEvent[]): Omit<AuthorizeOutcome, 'explanation'> {
    const blocked = { reason: APPROVAL_PAYLOAD_HASH_MISMATCH, approvedPayloadHash: approved, executedPayloadHash: command.payloadHash };
    return {
      events: [received, decided(reasons), ...granted, executionBlocked(ids.actionId, blocked.reason, blocked.approvedPayloadHash, blocked.executedPayloadHash)],
      status: 'blocked',
      decision: { ...decision, reasons },
      decidedIndex: 1,
      blocked,
    };
  }
}

const APPROVAL_PAYLOAD_HASH_MISMATCH = 'approval_payload_hash_mismatch';

/** The record of a signed ActionPass, appended after its decision. */
export function passIssued(claims: ActionPassClaims, token: string): LedgerEvent {
  return { type: 'actionpass.issued', stream: `action:${claims.actionId}`, data: { actionId: claims.actionId, claims, passId: claims.jti, token } };
}

import type { ApprovalCheck } from '../actionpass/approval-artifact.js';
import type { LedgerEvent } from '../events/catalogue.js';
import type { RuntimeState } from '../projections/runtime-state.js';

export interface Refusal {
  ok: false;
  code: string;
  message: string;
  /**
   * With `approval_payload_hash_mismatch`: the payload hash the artifact approved, so an execution
   * request that presented it can record it beside the hash of the payload it presented.
   */
  approvedPayloadHash?: string;
}
export type GrantDecision = { ok: true; events: LedgerEvent[]; approvedPayloadHash: string; approvedBy: string } | Refusal;
export type RejectionDecision = { ok: true; events: LedgerEvent[] } | Refusal;

/**
 * Deciders for a reviewer's answer to a pending approval. A grant is a signed artifact from a
 * reviewer key in the trust store (the proxy never signs one itself), bound to exactly the action
 * and payload that asked for approval.
 */
export function decideGrant(
  state: RuntimeState,
  command: { approvalId: string; artifact: string; nowMs: number; approvalTtlMs: number; verifyArtifact(token: string): ApprovalCheck },
): GrantDecision {
  const approval = state.approval(command.approvalId);
  if (!approval) {
    const settled = state.settledApproval(command.approvalId);
    return settled
      ? { ok: false, code: settled === 'used' ? 'approval_used' : 'approval_rejected', message: `approval ${command.approvalId} is already ${settled}` }
      : { ok: false, code: 'approval_unknown', message: `no pending approval ${command.approvalId}` };
  }
  if (approval.status !== 'pending') return { ok: false, code: 'approval_already_granted', message: `approval ${command.approvalId} is already granted` };
  if (Date.parse(approval.requestedAt) + command.approvalTtlMs < command.nowMs) {
    return { ok: false, code: 'approval_expired', message: `approval ${command.approvalId} was requested at ${approval.requestedAt} and can no longer be approved; send the action again for a new request` };
  }
  const check = command.verifyArtifact(command.artifact);
  if (!check.ok) return { ok: false, code: check.reason, message: check.message };
  const { claims } = check;
  if (claims.approvalId !== approval.approvalId || claims.actionId !== approval.actionId) {
    return { ok: false, code: 'approval_invalid', message: `the artifact approves ${claims.approvalId} for action ${claims.actionId}, not ${approval.approvalId} for ${approval.actionId}` };
  }
  if (claims.payloadHash !== approval.payloadHash || claims.actionHash !== approval.actionHash) {
    return {
      ok: false,
      code: 'approval_payload_hash_mismatch',
      message: `the artifact approves payload ${claims.payloadHash}, but approval ${approval.approvalId} asked about payload ${approval.payloadHash}`,
      approvedPayloadHash: claims.payloadHash,
    };
  }
  const granted: LedgerEvent = {
    type: 'approval.granted',
    stream: `action:${approval.actionId}`,
    data: { actionId: approval.actionId, approvalId: approval.approvalId, approvedBy: claims.approvedBy, approvedPayloadHash: claims.payloadHash, artifact: command.artifact },
  };
  return { ok: true, events: [granted], approvedPayloadHash: claims.payloadHash, approvedBy: claims.approvedBy };
}

export function decideRejection(state: RuntimeState, command: { approvalId: string; rejectedBy: string; reason: string }): RejectionDecision {
  const approval = state.approval(command.approvalId);
  if (!approval) return { ok: false, code: 'approval_unknown', message: `no open approval ${command.approvalId}` };
  const rejected: LedgerEvent = {
    type: 'approval.rejected',
    stream: `action:${approval.actionId}`,
    data: { actionId: approval.actionId, approvalId: approval.approvalId, rejectedBy: command.rejectedBy, reason: command.reason },
  };
  return { ok: true, events: [rejected] };
}

import { approvalMatchesPayload, type ApprovalCheck } from '../actionpass/approval-artifact.js';
import type { LedgerEvent } from '../events/catalogue.js';
import type { OpenApproval, RuntimeState } from '../projections/runtime-state.js';
import { decideGrant } from './approve.js';

export interface ApprovalRefusal {
  reason: string;
  message: string;
  /** With `approval_payload_hash_mismatch`: the hash the artifact approved, the approved half of the pair to record. */
  approvedPayloadHash?: string;
}

export type ResolvedApproval =
  /** `artifact`: the signed artifact that grants the approval, checked again right before the side effect. */
  | { ok: true; approval: OpenApproval; approvedPayloadHash: string; approvedBy: string; artifact: string; events: LedgerEvent[] }
  | { ok: false; refusal: ApprovalRefusal };

/**
 * Finds the approval an execution request names in its `svc-approval` header: an approval id
 * (granted earlier), or the signed artifact itself, which grants a pending approval on the spot
 * (the `approval.granted` event comes back in `events`). Every way it can be unusable has its
 * own reason: unknown, used, rejected, still pending, expired, or an invalid artifact.
 */
export function resolvePresentedApproval(
  state: RuntimeState,
  presented: string,
  options: { nowMs: number; approvalTtlMs: number; verifyArtifact(token: string): ApprovalCheck },
): ResolvedApproval {
  const isArtifact = presented.split('.').length === 3;
  let approvalId = presented;
  if (isArtifact) {
    const check = options.verifyArtifact(presented);
    if (!check.ok) return refuse(check.reason, check.message);
    approvalId = check.claims.approvalId;
  }
  const approval = state.approval(approvalId);
  if (!approval) {
    const settled = state.settledApproval(approvalId);
    if (settled === 'used') return refuse('approval_used', `approval ${approvalId} was already used by another execution; an approval is used once`);
    if (settled === 'rejected') return refuse('approval_rejected', `approval ${approvalId} was rejected`);
    return refuse('approval_unknown', `no approval ${safeId(approvalId)} is known to this ledger`);
  }
  if (state.isApprovalReserved(approvalId)) return refuse('approval_used', `approval ${approvalId} is being used by another execution right now; an approval is used once`);
  if (approval.status === 'granted') {
    // Re-checked at each use: the artifact may have expired, or its reviewer key been revoked. A
    // grant is always recorded with its artifact; one without cannot be checked, so it is refused.
    if (approval.artifact === undefined) return refuse('approval_invalid', `approval ${approvalId} has no recorded artifact to check`);
    const check = options.verifyArtifact(approval.artifact);
    if (!check.ok) return refuse(check.reason, `the artifact that granted approval ${approvalId} no longer verifies: ${check.message}`);
    return { ok: true, approval, approvedPayloadHash: approval.approvedPayloadHash as string, approvedBy: approval.approvedBy as string, artifact: approval.artifact, events: [] };
  }
  if (!isArtifact) return refuse('approval_required', `approval ${approvalId} is still pending: a reviewer must approve it first (svc approvals approve ${approvalId})`);
  const grant = decideGrant(state, { approvalId, artifact: presented, nowMs: options.nowMs, approvalTtlMs: options.approvalTtlMs, verifyArtifact: options.verifyArtifact });
  if (!grant.ok) return refuse(grant.code, grant.message, grant.approvedPayloadHash);
  return { ok: true, approval, approvedPayloadHash: grant.approvedPayloadHash, approvedBy: grant.approvedBy, artifact: presented, events: grant.events };
}

/**
 * The approval half of the check immediately before a side effect (DESIGN.md 6, docs/adapters.md):
 * the artifact behind an approved step-up must still verify (it may have expired, or its reviewer
 * key been revoked, since the decision) and must approve exactly the payload about to be sent.
 * Run before the ActionPass check, so a changed payload is refused for what it contradicts, the
 * approval (`approval_payload_hash_mismatch`). Undefined when the side effect may go ahead.
 */
export function recheckApprovalBeforeSideEffect(
  approval: { approvalId: string; artifact: string },
  executedPayloadHash: string,
  verifyArtifact: (token: string) => ApprovalCheck,
): ApprovalRefusal | undefined {
  const check = verifyArtifact(approval.artifact);
  if (!check.ok) return { reason: check.reason, message: `the artifact that granted approval ${approval.approvalId} no longer verifies: ${check.message}` };
  if (check.claims.approvalId !== approval.approvalId) return { reason: 'approval_invalid', message: `the artifact grants approval ${check.claims.approvalId}, not ${approval.approvalId}` };
  if (!approvalMatchesPayload(check.claims, executedPayloadHash)) {
    return {
      reason: 'approval_payload_hash_mismatch',
      message: `approval ${approval.approvalId} approves payload ${check.claims.payloadHash}, but the payload about to be sent is ${executedPayloadHash}; nothing was sent`,
      approvedPayloadHash: check.claims.payloadHash,
    };
  }
  return undefined;
}

function refuse(reason: string, message: string, approvedPayloadHash?: string): ResolvedApproval {
  return { ok: false, refusal: { reason, message, ...(approvedPayloadHash !== undefined && { approvedPayloadHash }) } };
}

/** An id as it may appear in a message: the header is caller input, so it is cut and quoted. */
function safeId(id: string): string {
  return JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id);
}

import type { RecordOf } from '../events/catalogue.js';
import type { LedgerState } from './state.js';

/**
 * The equivalence check of DESIGN.md section 4, as one pure function of the state before an
 * execution record and the record itself. Runtime, export, verify-export and prove-equivalence
 * all judge a pair with this function.
 *
 * - `equivalent`: the executed payload hash equals the approved one, and the approved one is the
 *   hash bound earlier by this action's ActionPass (and by its approval artifact, after step-up).
 * - `blocked`: an `execution.blocked` record, the evidence that enforcement stopped a mismatch.
 * - `violated`: anything else; `problem` says what.
 */
export interface EquivalenceVerdict {
  seq: number;
  actionId: string;
  status: 'equivalent' | 'blocked' | 'violated';
  approvedPayloadHash: string;
  executedPayloadHash: string;
  /** The hash the ActionPass bound, and where it was issued. */
  passPayloadHash?: string;
  passSeq?: number;
  approvalId?: string;
  approvalPayloadHash?: string;
  /** Where the approval was requested and granted, so a proof can include those records. */
  approvalRequestedSeq?: number;
  approvalGrantedSeq?: number;
  reason?: string;
  problem?: string;
}

/** The approval this action's pass used, kept on the action once the approval is settled. */
function usedBy(state: LedgerState, approvalId: string, actionId: string) {
  const used = state.actions.get(actionId)?.usedApproval;
  return used?.approvalId === approvalId ? used : undefined;
}

export function judgeExecution(state: LedgerState, record: RecordOf<'execution.completed'> | RecordOf<'execution.blocked'>): EquivalenceVerdict {
  const { actionId, approvedPayloadHash, executedPayloadHash } = record.data;
  const verdict: EquivalenceVerdict = { seq: record.seq, actionId, status: 'equivalent', approvedPayloadHash, executedPayloadHash };
  if (record.type === 'execution.blocked') {
    return { ...verdict, status: 'blocked', reason: record.data.reason };
  }
  const pass = state.actions.get(actionId)?.pass;
  if (pass) {
    verdict.passPayloadHash = pass.payloadHash;
    verdict.passSeq = pass.seq;
  }
  // A used approval has left the open set; this execution's own pass is the one that used it.
  const approval = pass?.approvalId === undefined ? undefined : (state.approvals.get(pass.approvalId) ?? usedBy(state, pass.approvalId, actionId));
  if (pass?.approvalId !== undefined) {
    verdict.approvalId = pass.approvalId;
    if (approval?.approvedPayloadHash !== undefined) verdict.approvalPayloadHash = approval.approvedPayloadHash;
    if (approval) verdict.approvalRequestedSeq = approval.requestedSeq;
    if (approval?.resolvedSeq !== undefined) verdict.approvalGrantedSeq = approval.resolvedSeq;
  }
  const problem = findProblem();
  return problem === undefined ? verdict : { ...verdict, status: 'violated', problem };

  function findProblem(): string | undefined {
    if (!pass) return 'no ActionPass was issued for this action before its execution';
    if (pass.passId !== record.data.passId) return `executed with pass ${record.data.passId}, but the action's pass is ${pass.passId}`;
    if (executedPayloadHash !== approvedPayloadHash) return 'the executed payload hash differs from the approved payload hash';
    if (approvedPayloadHash !== pass.payloadHash) return 'the approved payload hash is not the payload hash bound by the ActionPass';
    if (pass.approvalId === undefined) return undefined;
    if (!approval) return `the ActionPass names approval ${pass.approvalId}, which is unknown or was already used by another action: an approval is used once`;
    if (approval.status !== 'granted') return `the ActionPass names approval ${pass.approvalId}, which was not granted`;
    if (approval.usedByActionId !== actionId) return `approval ${pass.approvalId} was already used by action ${approval.usedByActionId ?? '(none)'}: an approval is used once`;
    if (approval.approvedPayloadHash !== approvedPayloadHash) return 'the approved payload hash is not the payload hash of the approval artifact';
    return undefined;
  }
}

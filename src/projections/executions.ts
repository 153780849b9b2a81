import { judgeExecution, type EquivalenceVerdict } from './equivalence.js';
import type { View } from './view.js';

/** One row per execution outcome, completed or blocked. */
export function executionsView(): View {
  return {
    file: 'executions.jsonl',
    sortedRows: true,
    rows(_state, record) {
      if (record.type === 'execution.completed') {
        const { actionId, passId, outcome, approvedPayloadHash, executedPayloadHash, resultHash } = record.data;
        return [{ actionId, approvedPayloadHash, executedPayloadHash, outcome, passId, resultHash, seq: record.seq, status: 'completed', ts: record.ts }];
      }
      if (record.type === 'execution.blocked') {
        const { actionId, reason, approvedPayloadHash, executedPayloadHash } = record.data;
        return [{ actionId, approvedPayloadHash, executedPayloadHash, reason, seq: record.seq, status: 'blocked', ts: record.ts }];
      }
      return [];
    },
  };
}

/** One verdict per execution record: the equivalence pairs and whether each holds. */
export function equivalenceView(): View {
  return {
    file: 'equivalence.jsonl',
    sortedRows: true,
    rows(state, record, _recordHash, verdict) {
      if (record.type !== 'execution.completed' && record.type !== 'execution.blocked') return [];
      // The replay judged this execution already, against the same state.
      return [verdictRow(verdict ?? judgeExecution(state, record))];
    },
  };
}

/**
 * The verdict with its members in JCS order, so that JSON.stringify writes it as canonicalJson
 * would (both leave out the members that are undefined): sorting the verdict's keys and quoting
 * each one was most of what writing this projection cost. `satisfies` names every member, so a
 * member added to EquivalenceVerdict cannot be left out of the row unnoticed.
 */
export function verdictRow(verdict: EquivalenceVerdict): object {
  return {
    actionId: verdict.actionId,
    approvalGrantedSeq: verdict.approvalGrantedSeq,
    approvalId: verdict.approvalId,
    approvalPayloadHash: verdict.approvalPayloadHash,
    approvalRequestedSeq: verdict.approvalRequestedSeq,
    approvedPayloadHash: verdict.approvedPayloadHash,
    executedPayloadHash: verdict.executedPayloadHash,
    passPayloadHash: verdict.passPayloadHash,
    passSeq: verdict.passSeq,
    problem: verdict.problem,
    reason: verdict.reason,
    seq: verdict.seq,
    status: verdict.status,
  } satisfies Record<keyof EquivalenceVerdict, unknown>;
}

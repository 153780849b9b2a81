import { judgeExecution } from './equivalence.js';
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
    rows(state, record, _recordHash, verdict) {
      if (record.type !== 'execution.completed' && record.type !== 'execution.blocked') return [];
      // The replay judged this execution already, against the same state.
      return [verdict ?? judgeExecution(state, record)];
    },
  };
}

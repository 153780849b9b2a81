import { judgeExecution } from './equivalence.js';
import type { View } from './view.js';

/** One row per execution outcome, completed or blocked. */
export function executionsView(): View {
  return {
    file: 'executions.jsonl',
    rows(_state, record) {
      if (record.type === 'execution.completed') {
        const { actionId, passId, outcome, approvedPayloadHash, executedPayloadHash, resultHash } = record.data;
        return [{ seq: record.seq, ts: record.ts, actionId, status: 'completed', outcome, passId, approvedPayloadHash, executedPayloadHash, resultHash }];
      }
      if (record.type === 'execution.blocked') {
        const { actionId, reason, approvedPayloadHash, executedPayloadHash } = record.data;
        return [{ seq: record.seq, ts: record.ts, actionId, status: 'blocked', reason, approvedPayloadHash, executedPayloadHash }];
      }
      return [];
    },
  };
}

/** One verdict per execution record: the equivalence pairs and whether each holds. */
export function equivalenceView(): View {
  return {
    file: 'equivalence.jsonl',
    rows(state, record) {
      if (record.type !== 'execution.completed' && record.type !== 'execution.blocked') return [];
      return [judgeExecution(state, record)];
    },
  };
}

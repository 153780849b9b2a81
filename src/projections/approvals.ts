import type { View } from './view.js';

/**
 * One row per approval in its final state: when it is settled (used by an execution's
 * ActionPass, or rejected), and at the end for those still open, in the order they were requested.
 */
export function approvalsView(): View {
  return {
    file: 'approvals.jsonl',
    rows: () => [],
    after: (state) => state.settled,
    finish: (state) => [...state.approvals.values()].sort((a, b) => a.requestedSeq - b.requestedSeq),
  };
}

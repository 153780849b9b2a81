import type { View } from './view.js';

/** The final state of every approval, in the order they were requested. */
export function approvalsView(): View {
  return {
    file: 'approvals.jsonl',
    rows: () => [],
    finish: (state) => [...state.approvals.values()].sort((a, b) => a.requestedSeq - b.requestedSeq),
  };
}

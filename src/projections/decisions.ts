import type { View } from './view.js';

/** One row per policy decision, joined with the action it decided. */
export function decisionsView(): View {
  return {
    file: 'decisions.jsonl',
    rows(state, record) {
      if (record.type !== 'policy.decided') return [];
      const received = state.actions.get(record.data.actionId)?.received;
      return [
        {
          seq: record.seq,
          ts: record.ts,
          actionId: record.data.actionId,
          decision: record.data.decision,
          reasons: record.data.reasons,
          ruleId: record.data.ruleId,
          policyHash: record.data.policyHash,
          ...(received && {
            source: received.source,
            agentId: received.agentId,
            tenant: received.tenant,
            tool: received.tool,
            resource: received.resource,
            actionHash: received.actionHash,
            payloadHash: received.payloadHash,
          }),
        },
      ];
    },
  };
}

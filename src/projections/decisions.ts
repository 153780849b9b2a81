import type { View } from './view.js';

/** One row per policy decision, joined with the action it decided. */
export function decisionsView(): View {
  return {
    file: 'decisions.jsonl',
    sortedRows: true,
    rows(state, record) {
      if (record.type !== 'policy.decided') return [];
      const received = state.actions.get(record.data.actionId)?.received;
      const { actionId, decision, reasons, ruleId, policyHash } = record.data;
      // Keys in JCS order; the action's fields are absent if its action.received is missing.
      return [
        received
          ? { actionHash: received.actionHash, actionId, agentId: received.agentId, decision, payloadHash: received.payloadHash, policyHash, reasons, resource: received.resource, ruleId, seq: record.seq, source: received.source, tenant: received.tenant, tool: received.tool, ts: record.ts }
          : { actionId, decision, policyHash, reasons, ruleId, seq: record.seq, ts: record.ts },
      ];
    },
  };
}

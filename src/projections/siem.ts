import { toSha256 } from '../events/canonical.js';
import { actionIdOf, type LedgerRecord } from '../events/catalogue.js';
import type { LedgerState } from './state.js';
import type { View } from './view.js';

/**
 * One ECS-style event per record, for a SIEM. It names actors, tools, decisions and hashes, never
 * payload bodies, tokens or artifacts: those stay in the ledger. Who and what (`user`,
 * `svcAction`) are on the action.received and policy.decided events; later events of the same
 * action carry its `svc.actionId` to correlate on.
 */
export function siemView(): View {
  return {
    file: 'siem.jsonl',
    sortedRows: true,
    rows: (state, record, leafHash) => [siemEvent(state, record, leafHash)],
  };
}

function siemEvent(state: LedgerState, record: LedgerRecord, leafHash: Buffer): object {
  const actionId = actionIdOf(record);
  const actor = actorOf(state, record);
  // Keys in JCS order: "@" sorts before lowercase letters.
  const event = {
    '@timestamp': record.ts,
    event: { action: record.type, kind: 'event', outcome: outcomeOf(record), sequence: record.seq },
    svc: { ...(actionId !== undefined && { actionId }), detail: details(record), origin: state.origin ?? null, recordHash: toSha256(leafHash), stream: record.stream },
    ...(actor && { svcAction: { resource: actor.resource, tenant: actor.tenant, tool: actor.tool }, user: { id: actor.agentId } }),
  };
  return event;
}

function actorOf(state: LedgerState, record: LedgerRecord): { agentId: string; tenant: string; tool: string; resource: string } | undefined {
  if (record.type === 'action.received') {
    const { actor, capability } = record.data.action;
    return { agentId: actor.agentId, tenant: actor.tenant, tool: capability.tool, resource: capability.resource };
  }
  if (record.type === 'policy.decided') return state.actions.get(record.data.actionId)?.received;
  return undefined;
}

function outcomeOf(record: LedgerRecord): 'success' | 'failure' | 'unknown' {
  switch (record.type) {
    case 'policy.decided':
      return record.data.decision === 'allow' ? 'success' : record.data.decision === 'no_opinion' ? 'unknown' : 'failure';
    case 'execution.completed':
      return record.data.outcome === 'succeeded' ? 'success' : 'failure';
    case 'execution.blocked':
    case 'approval.rejected':
    case 'mcp.tool.changed':
      return 'failure';
    default:
      return 'unknown';
  }
}

/** Per-type fields, as `svc.detail`, keys in JCS order. */
function details(record: LedgerRecord): object {
  switch (record.type) {
    case 'action.received':
      return { actionHash: record.data.actionHash, payloadHash: record.data.payloadHash, source: record.data.source };
    case 'policy.decided':
      return { decision: record.data.decision, policyHash: record.data.policyHash, reasons: record.data.reasons, ruleId: record.data.ruleId };
    case 'actionpass.issued':
      return { passId: record.data.passId, payloadHash: record.data.claims.payloadHash };
    case 'approval.requested':
      return { approvalId: record.data.approvalId, hosted: record.data.hosted, payloadHash: record.data.payloadHash };
    case 'approval.granted':
      return { approvalId: record.data.approvalId, approvedBy: record.data.approvedBy, approvedPayloadHash: record.data.approvedPayloadHash };
    case 'approval.rejected':
      return { approvalId: record.data.approvalId, reason: record.data.reason, rejectedBy: record.data.rejectedBy };
    case 'execution.blocked':
      return { approvedPayloadHash: record.data.approvedPayloadHash, executedPayloadHash: record.data.executedPayloadHash, reason: record.data.reason };
    case 'execution.completed':
      return { approvedPayloadHash: record.data.approvedPayloadHash, executedPayloadHash: record.data.executedPayloadHash, passId: record.data.passId, resultHash: record.data.resultHash };
    case 'mcp.tool.pinned':
      return { definitionHash: record.data.definitionHash, server: record.data.server, tool: record.data.tool };
    case 'mcp.tool.changed':
      return { pinnedHash: record.data.pinnedHash, presentedHash: record.data.presentedHash, server: record.data.server, tool: record.data.tool };
    case 'ledger.checkpoint':
      return { root: record.data.root, size: record.data.size };
    case 'ledger.recovered':
      return { reason: record.data.reason, truncatedBytes: record.data.truncatedBytes };
    case 'config.loaded':
      return { configHash: record.data.configHash, policyHash: record.data.policyHash };
    case 'ledger.genesis':
      return { format: record.data.format };
  }
}

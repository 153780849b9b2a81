import { toSha256 } from '../events/canonical.js';
import { actionIdOf, type LedgerRecord } from '../events/catalogue.js';
import type { LedgerState } from './state.js';
import type { View } from './view.js';

/**
 * One ECS-style event per record, for a SIEM. It names actors, tools, decisions and hashes, never
 * payload bodies, tokens or artifacts: those stay in the ledger.
 */
export function siemView(): View {
  return {
    file: 'siem.jsonl',
    rows: (state, record, leafHash) => [siemEvent(state, record, leafHash)],
  };
}

function siemEvent(state: LedgerState, record: LedgerRecord, leafHash: Buffer): object {
  const actionId = actionIdOf(record);
  const received = actionId === undefined ? undefined : state.actions.get(actionId)?.received;
  const event = {
    '@timestamp': record.ts,
    event: { kind: 'event', action: record.type, sequence: record.seq, outcome: outcomeOf(record) },
    svc: {
      origin: state.origin ?? null,
      stream: record.stream,
      recordHash: toSha256(leafHash),
      ...(actionId !== undefined && { actionId }),
      ...details(record),
    },
    ...(received && { user: { id: received.agentId }, svcAction: { tool: received.tool, resource: received.resource, tenant: received.tenant } }),
  };
  return event;
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

function details(record: LedgerRecord): object {
  switch (record.type) {
    case 'action.received':
      return { source: record.data.source, actionHash: record.data.actionHash, payloadHash: record.data.payloadHash };
    case 'policy.decided':
      return { decision: record.data.decision, reasons: record.data.reasons, ruleId: record.data.ruleId, policyHash: record.data.policyHash };
    case 'actionpass.issued':
      return { passId: record.data.passId, payloadHash: record.data.claims.payloadHash };
    case 'approval.requested':
      return { approvalId: record.data.approvalId, payloadHash: record.data.payloadHash, hosted: record.data.hosted };
    case 'approval.granted':
      return { approvalId: record.data.approvalId, approvedBy: record.data.approvedBy, approvedPayloadHash: record.data.approvedPayloadHash };
    case 'approval.rejected':
      return { approvalId: record.data.approvalId, rejectedBy: record.data.rejectedBy, reason: record.data.reason };
    case 'execution.blocked':
      return { reason: record.data.reason, approvedPayloadHash: record.data.approvedPayloadHash, executedPayloadHash: record.data.executedPayloadHash };
    case 'execution.completed':
      return { passId: record.data.passId, approvedPayloadHash: record.data.approvedPayloadHash, executedPayloadHash: record.data.executedPayloadHash, resultHash: record.data.resultHash };
    case 'mcp.tool.pinned':
      return { server: record.data.server, tool: record.data.tool, definitionHash: record.data.definitionHash };
    case 'mcp.tool.changed':
      return { server: record.data.server, tool: record.data.tool, pinnedHash: record.data.pinnedHash, presentedHash: record.data.presentedHash };
    case 'ledger.checkpoint':
      return { size: record.data.size, root: record.data.root };
    case 'ledger.recovered':
      return { truncatedBytes: record.data.truncatedBytes, reason: record.data.reason };
    case 'config.loaded':
      return { configHash: record.data.configHash, policyHash: record.data.policyHash };
    case 'ledger.genesis':
      return { format: record.data.format };
  }
}

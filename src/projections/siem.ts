import { actionIdOf, type LedgerRecord } from '../events/catalogue.js';
import { jsonString as quoted, jsonStringOrNull, jsonToken as token } from './json-text.js';
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
    usesRecordHash: true,
    rows: (state, record, recordHash) => [siemEvent(state, record, recordHash)],
  };
}

/**
 * The event as JSON text, keys in JCS order ("@" sorts before lowercase letters): one row per
 * record makes this the largest projection, so no object is built to be serialized.
 */
function siemEvent(state: LedgerState, record: LedgerRecord, recordHash: string): string {
  const actionId = actionIdOf(record);
  const actor = actorOf(state, record);
  const event = `"event":{"action":${token(record.type)},"kind":"event","outcome":"${outcomeOf(record)}","sequence":${record.seq}}`;
  const svc = `"svc":{${actionId === undefined ? '' : `"actionId":${token(actionId)},`}"detail":${details(record)},"origin":${jsonStringOrNull(state.origin)},"recordHash":"${recordHash}","stream":${token(record.stream)}}`;
  const who = actor ? `,"svcAction":{"resource":${quoted(actor.resource)},"tenant":${quoted(actor.tenant)},"tool":${quoted(actor.tool)}},"user":{"id":${quoted(actor.agentId)}}` : '';
  return `{"@timestamp":${token(record.ts)},${event},${svc}${who}}`;
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

/** Per-type fields, as the JSON text of `svc.detail`, keys in JCS order. */
function details(record: LedgerRecord): string {
  switch (record.type) {
    case 'action.received':
      return `{"actionHash":${token(record.data.actionHash)},"payloadHash":${token(record.data.payloadHash)},"source":${token(record.data.source)}}`;
    case 'policy.decided':
      return `{"decision":${token(record.data.decision)},"policyHash":${token(record.data.policyHash)},"reasons":[${record.data.reasons.map(token).join(',')}],"ruleId":${quoted(record.data.ruleId)}}`;
    case 'actionpass.issued':
      return `{"passId":${token(record.data.passId)},"payloadHash":${token(record.data.claims.payloadHash)}}`;
    case 'approval.requested':
      return `{"approvalId":${token(record.data.approvalId)},"hosted":${record.data.hosted},"payloadHash":${token(record.data.payloadHash)}}`;
    case 'approval.granted':
      return `{"approvalId":${token(record.data.approvalId)},"approvedBy":${quoted(record.data.approvedBy)},"approvedPayloadHash":${token(record.data.approvedPayloadHash)}}`;
    case 'approval.rejected':
      return `{"approvalId":${token(record.data.approvalId)},"reason":${quoted(record.data.reason)},"rejectedBy":${quoted(record.data.rejectedBy)}}`;
    case 'execution.blocked':
      return `{"approvedPayloadHash":${token(record.data.approvedPayloadHash)},"executedPayloadHash":${token(record.data.executedPayloadHash)},"reason":${token(record.data.reason)}}`;
    case 'execution.completed':
      return `{"approvedPayloadHash":${token(record.data.approvedPayloadHash)},"executedPayloadHash":${token(record.data.executedPayloadHash)},"passId":${token(record.data.passId)},"resultHash":${token(record.data.resultHash)}}`;
    case 'mcp.tool.pinned':
      return `{"definitionHash":${token(record.data.definitionHash)},"server":${token(record.data.server)},"tool":${quoted(record.data.tool)}}`;
    case 'mcp.tool.changed':
      return `{"pinnedHash":${token(record.data.pinnedHash)},"presentedHash":${token(record.data.presentedHash)},"server":${token(record.data.server)},"tool":${quoted(record.data.tool)}}`;
    case 'ledger.checkpoint':
      return `{"root":${token(record.data.root)},"size":${record.data.size}}`;
    case 'ledger.recovered':
      return `{"reason":${quoted(record.data.reason)},"truncatedBytes":${record.data.truncatedBytes}}`;
    case 'config.loaded':
      return `{"configHash":${token(record.data.configHash)},"policyHash":${token(record.data.policyHash)}}`;
    case 'ledger.genesis':
      return `{"format":${token(record.data.format)}}`;
  }
}

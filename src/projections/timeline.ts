import { actionIdOf, type EventType, type LedgerRecord } from '../events/catalogue.js';
import { isoSeconds } from '../events/numeric-date.js';

/** A forensic filter over ledger records: which action, agent, tool, event types and time range. */
export interface TimelineFilter {
  actionId?: string;
  agentId?: string;
  tool?: string;
  types?: readonly EventType[];
  since?: number;
  until?: number;
}

/**
 * Decides which records a timeline shows. Agent and tool are known from an action's
 * `action.received`, so the filter remembers them per action (only while an agent or tool
 * filter is set, to keep memory flat otherwise).
 */
export class TimelineSelector {
  private readonly actors = new Map<string, { agentId: string; tool: string }>();

  constructor(private readonly filter: TimelineFilter) {}

  accepts(record: LedgerRecord): boolean {
    const actionId = actionIdOf(record);
    if (record.type === 'action.received' && (this.filter.agentId !== undefined || this.filter.tool !== undefined)) {
      this.actors.set(record.data.actionId, { agentId: record.data.action.actor.agentId, tool: record.data.action.capability.tool });
    }
    const { filter } = this;
    if (filter.actionId !== undefined && actionId !== filter.actionId) return false;
    if (filter.types && !filter.types.includes(record.type)) return false;
    if (filter.agentId !== undefined || filter.tool !== undefined) {
      const actor = actionId === undefined ? undefined : this.actors.get(actionId);
      if (!actor) return false;
      if (filter.agentId !== undefined && actor.agentId !== filter.agentId) return false;
      if (filter.tool !== undefined && actor.tool !== filter.tool) return false;
    }
    const time = Date.parse(record.ts);
    if (filter.since !== undefined && time < filter.since) return false;
    if (filter.until !== undefined && time > filter.until) return false;
    return true;
  }
}

/** One line of a human timeline: what happened, in the words an investigator needs. */
export function describeRecord(record: LedgerRecord): string {
  switch (record.type) {
    case 'ledger.genesis':
      return `ledger ${record.data.origin} created, keys ${record.data.keys.map((key) => key.name).join(', ')}`;
    case 'ledger.checkpoint':
      return `checkpoint over ${record.data.size} records, root ${record.data.root}`;
    case 'ledger.recovered':
      return `recovered after a crash: ${record.data.truncatedBytes} torn bytes quarantined in ${record.data.quarantineFile} (${record.data.reason})`;
    case 'config.loaded':
      return `config loaded, policy ${record.data.policyHash}`;
    case 'action.received': {
      const { actor, capability } = record.data.action;
      return `${actor.agentId} asks ${capability.tool} on ${capability.resource} via ${record.data.source}, payload ${record.data.payloadHash}`;
    }
    case 'policy.decided':
      return `${record.data.decision} [${record.data.reasons.join(', ')}] by rule ${record.data.ruleId}`;
    case 'actionpass.issued':
      return `ActionPass ${record.data.passId} issued for payload ${record.data.claims.payloadHash}, expires ${isoSeconds(record.data.claims.exp)}`;
    case 'approval.requested':
      return `approval ${record.data.approvalId} requested for payload ${record.data.payloadHash}${record.data.hosted ? ' (hosted)' : ''}`;
    case 'approval.granted':
      return `approval ${record.data.approvalId} granted by ${record.data.approvedBy} for payload ${record.data.approvedPayloadHash}`;
    case 'approval.rejected':
      return `approval ${record.data.approvalId} rejected by ${record.data.rejectedBy}: ${record.data.reason}`;
    case 'execution.blocked':
      return `BLOCKED ${record.data.reason}: approved ${record.data.approvedPayloadHash}, presented ${record.data.executedPayloadHash}`;
    case 'execution.completed':
      return `executed (${record.data.outcome}) with pass ${record.data.passId}: approved ${record.data.approvedPayloadHash}, executed ${record.data.executedPayloadHash}`;
    case 'mcp.tool.pinned':
      return `MCP tool ${record.data.server}/${record.data.tool} pinned at ${record.data.definitionHash}`;
    case 'mcp.tool.changed':
      return `MCP tool ${record.data.server}/${record.data.tool} CHANGED: pinned ${record.data.pinnedHash}, presented ${record.data.presentedHash}`;
  }
}

import { createHash } from 'node:crypto';
import { actionIdOf, type LedgerRecord } from '../events/catalogue.js';
import type { LedgerState } from './state.js';
import type { View } from './view.js';

/**
 * OTLP/JSON logs in the OpenTelemetry file-exporter layout: each line is one
 * ExportLogsServiceRequest. Records are grouped by fixed seq ranges, not by how they arrived, so
 * the bytes do not depend on batching. An action's records share a trace id derived from its id.
 */
const RECORDS_PER_REQUEST = 1000;

type AnyValue = { stringValue: string } | { intValue: string };

export function otlpLogsView(): View {
  let pending: object[] = [];
  let group = 0;
  const traceIds = new TraceIds();
  const flush = (state: LedgerState): object[] => {
    if (pending.length === 0) return [];
    const request = {
      resourceLogs: [
        {
          resource: { attributes: [attribute('service.name', { stringValue: 'svc' }), attribute('svc.ledger.origin', { stringValue: state.origin ?? '' })] },
          scopeLogs: [{ logRecords: pending, scope: { name: 'svc.ledger', version: '0' } }],
        },
      ],
    };
    pending = [];
    return [request];
  };
  return {
    file: 'otlp-logs.jsonl',
    sortedRows: true,
    rows(state, record) {
      const rows = Math.floor(record.seq / RECORDS_PER_REQUEST) !== group ? flush(state) : [];
      group = Math.floor(record.seq / RECORDS_PER_REQUEST);
      pending.push(logRecord(record, traceIds));
      return rows;
    },
    finish: (state) => flush(state),
  };
}

/** Records of one action are mostly adjacent, so remembering the last id saves most hashing. */
class TraceIds {
  private lastActionId: string | undefined;
  private lastTraceId = '';

  of(actionId: string): string {
    if (actionId !== this.lastActionId) {
      this.lastActionId = actionId;
      this.lastTraceId = createHash('sha256').update(actionId).digest('hex').slice(0, 32);
    }
    return this.lastTraceId;
  }
}

function logRecord(record: LedgerRecord, traceIds: TraceIds): object {
  const nanos = `${Date.parse(record.ts)}000000`;
  const actionId = actionIdOf(record);
  const attributes = [attribute('svc.seq', { intValue: String(record.seq) }), attribute('svc.type', { stringValue: record.type }), attribute('svc.stream', { stringValue: record.stream })];
  if (record.type === 'policy.decided') {
    attributes.push(attribute('svc.decision', { stringValue: record.data.decision }), attribute('svc.reasons', { stringValue: record.data.reasons.join(',') }));
  }
  if (record.type === 'execution.completed' || record.type === 'execution.blocked') {
    attributes.push(attribute('svc.approved_payload_hash', { stringValue: record.data.approvedPayloadHash }), attribute('svc.executed_payload_hash', { stringValue: record.data.executedPayloadHash }));
  }
  const warn = (record.type === 'policy.decided' && record.data.decision !== 'allow') || record.type === 'execution.blocked' || record.type === 'mcp.tool.changed';
  // Keys in JCS order.
  return {
    attributes,
    body: { stringValue: record.type },
    observedTimeUnixNano: nanos,
    severityNumber: warn ? 13 : 9,
    severityText: warn ? 'WARN' : 'INFO',
    timeUnixNano: nanos,
    ...(actionId !== undefined && { traceId: traceIds.of(actionId) }),
  };
}

function attribute(key: string, value: AnyValue): { key: string; value: AnyValue } {
  return { key, value };
}

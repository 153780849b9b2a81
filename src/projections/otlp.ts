import { hash } from 'node:crypto';
import { actionIdOf, type LedgerRecord } from '../events/catalogue.js';
import { jsonString as quoted } from './json-text.js';
import type { LedgerState } from './state.js';
import type { View } from './view.js';

/**
 * OTLP/JSON logs in the OpenTelemetry file-exporter layout: each line is one
 * ExportLogsServiceRequest. Records are grouped by fixed seq ranges, not by how they arrived, so
 * the bytes do not depend on batching. An action's records share a trace id derived from its id.
 */
const RECORDS_PER_REQUEST = 1000;

export function otlpLogsView(): View {
  /** The JSON text of each log record of the current group. */
  let pending: string[] = [];
  let group = 0;
  const traceIds = new TraceIds();
  const flush = (state: LedgerState): string[] => {
    if (pending.length === 0) return [];
    // Keys in JCS order, as JSON.stringify writes them.
    const resource = `{"attributes":[${attribute('service.name', 'stringValue', quoted('svc'))},${attribute('svc.ledger.origin', 'stringValue', quoted(state.origin ?? ''))}]}`;
    const request = `{"resourceLogs":[{"resource":${resource},"scopeLogs":[{"logRecords":[${pending.join(',')}],"scope":{"name":"svc.ledger","version":"0"}}]}]}`;
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
      this.lastTraceId = hash('sha256', actionId, 'hex').slice(0, 32);
    }
    return this.lastTraceId;
  }
}

/** One LogRecord as JSON text, keys in JCS order: a thousand of them make each line, so none is built as an object. */
function logRecord(record: LedgerRecord, traceIds: TraceIds): string {
  const nanos = `"${Date.parse(record.ts)}000000"`;
  const actionId = actionIdOf(record);
  let attributes = `${attribute('svc.seq', 'intValue', `"${record.seq}"`)},${attribute('svc.type', 'stringValue', quoted(record.type))},${attribute('svc.stream', 'stringValue', quoted(record.stream))}`;
  if (record.type === 'policy.decided') {
    attributes += `,${attribute('svc.decision', 'stringValue', quoted(record.data.decision))},${attribute('svc.reasons', 'stringValue', quoted(record.data.reasons.join(',')))}`;
  }
  if (record.type === 'execution.completed' || record.type === 'execution.blocked') {
    attributes += `,${attribute('svc.approved_payload_hash', 'stringValue', quoted(record.data.approvedPayloadHash))},${attribute('svc.executed_payload_hash', 'stringValue', quoted(record.data.executedPayloadHash))}`;
  }
  const warn = (record.type === 'policy.decided' && record.data.decision !== 'allow') || record.type === 'execution.blocked' || record.type === 'mcp.tool.changed';
  const traceId = actionId === undefined ? '' : `,"traceId":"${traceIds.of(actionId)}"`;
  return `{"attributes":[${attributes}],"body":{"stringValue":${quoted(record.type)}},"observedTimeUnixNano":${nanos},"severityNumber":${warn ? 13 : 9},"severityText":"${warn ? 'WARN' : 'INFO'}","timeUnixNano":${nanos}${traceId}}`;
}

/** A KeyValue whose AnyValue has one field, `kind`, holding the JSON text `value`. */
function attribute(key: string, kind: 'stringValue' | 'intValue', value: string): string {
  return `{"key":"${key}","value":{"${kind}":${value}}}`;
}

// The OTLP view as it was before its lines were built as bytes (commit 5960834), kept as the
// reference its replacement is held to: the same text, line for line.
import { hash } from 'node:crypto';
import { actionIdOf, type LedgerRecord } from '../../src/events/catalogue.js';
import { jsonString as quoted, jsonToken as token } from '../../src/projections/json-text.js';
import type { LedgerState } from '../../src/projections/state.js';
import { UnixNanosText } from '../../src/projections/unix-nanos-text.js';
import type { View } from '../../src/projections/view.js';

/**
 * OTLP/JSON logs in the OpenTelemetry file-exporter layout: each line is one
 * ExportLogsServiceRequest. Records are grouped by fixed seq ranges, not by how they arrived, so
 * the bytes do not depend on batching. An action's records share a trace id derived from its id.
 */
const RECORDS_PER_REQUEST = 1000;

export function referenceOtlpLogsView(): View {
  const pending = new LogRecordsText();
  let group = 0;
  const traceIds = new TraceIds();
  const times = new UnixNanosText();
  const flush = (state: LedgerState): string[] => {
    if (pending.empty) return [];
    // Keys in JCS order, as JSON.stringify writes them.
    const resource = `{"attributes":[${attribute('service.name', 'stringValue', quoted('svc'))},${attribute('svc.ledger.origin', 'stringValue', quoted(state.origin ?? ''))}]}`;
    return [`{"resourceLogs":[{"resource":${resource},"scopeLogs":[{"logRecords":[${pending.take()}],"scope":{"name":"svc.ledger","version":"0"}}]}]}`];
  };
  return {
    file: 'otlp-logs.jsonl',
    sortedRows: true,
    rows(state, record) {
      const rows = Math.floor(record.seq / RECORDS_PER_REQUEST) !== group ? flush(state) : [];
      group = Math.floor(record.seq / RECORDS_PER_REQUEST);
      pending.add(logRecord(record, traceIds, times));
      return rows;
    },
    finish: (state) => flush(state),
  };
}

/**
 * The log records of the current group, comma-separated, as UTF-8 bytes in one reused buffer.
 * Kept as a thousand strings (each a tree of the pieces it was built from) until the group's line
 * is written, they would outlive several young-generation collections, be copied by each and
 * promoted: most of what replaying this view cost, in the collector.
 */
class LogRecordsText {
  private bytes = Buffer.allocUnsafe(1 << 19);
  private used = 0;

  get empty(): boolean {
    return this.used === 0;
  }

  add(text: string): void {
    // A UTF-8 encoding takes at most 3 bytes per UTF-16 code unit; one more for the comma.
    const room = text.length * 3 + 1;
    if (this.used + room > this.bytes.length) {
      const larger = Buffer.allocUnsafe(Math.max(2 * this.bytes.length, this.used + room));
      this.bytes.copy(larger, 0, 0, this.used);
      this.bytes = larger;
    }
    if (this.used > 0) this.bytes[this.used++] = 0x2c;
    this.used += this.bytes.write(text, this.used);
  }

  /** The text so far, and an empty buffer for the next group. */
  take(): string {
    const text = this.bytes.toString('utf8', 0, this.used);
    this.used = 0;
    return text;
  }
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
function logRecord(record: LedgerRecord, traceIds: TraceIds, times: UnixNanosText): string {
  const nanos = times.of(record.ts);
  const actionId = actionIdOf(record);
  let attributes = `${attribute('svc.seq', 'intValue', `"${record.seq}"`)},${attribute('svc.type', 'stringValue', token(record.type))},${attribute('svc.stream', 'stringValue', token(record.stream))}`;
  if (record.type === 'policy.decided') {
    attributes += `,${attribute('svc.decision', 'stringValue', token(record.data.decision))},${attribute('svc.reasons', 'stringValue', token(record.data.reasons.join(',')))}`;
  }
  if (record.type === 'execution.completed' || record.type === 'execution.blocked') {
    attributes += `,${attribute('svc.approved_payload_hash', 'stringValue', token(record.data.approvedPayloadHash))},${attribute('svc.executed_payload_hash', 'stringValue', token(record.data.executedPayloadHash))}`;
  }
  const warn = (record.type === 'policy.decided' && record.data.decision !== 'allow') || record.type === 'execution.blocked' || record.type === 'mcp.tool.changed';
  const traceId = actionId === undefined ? '' : `,"traceId":"${traceIds.of(actionId)}"`;
  return `{"attributes":[${attributes}],"body":{"stringValue":${token(record.type)}},"observedTimeUnixNano":${nanos},"severityNumber":${warn ? 13 : 9},"severityText":"${warn ? 'WARN' : 'INFO'}","timeUnixNano":${nanos}${traceId}}`;
}

/** A KeyValue whose AnyValue has one field, `kind`, holding the JSON text `value`. */
function attribute(key: string, kind: 'stringValue' | 'intValue', value: string): string {
  return `{"key":"${key}","value":{"${kind}":${value}}}`;
}

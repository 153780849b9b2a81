import { describe, expect, it } from 'vitest';
import { isCanonicalText } from '../../src/events/canonical.js';
import type { LedgerRecord } from '../../src/events/catalogue.js';
import { otlpLogsView } from '../../src/projections/otlp.js';
import { initialState } from '../../src/projections/state.js';
import type { Row } from '../../src/projections/view.js';

interface LogRecord {
  attributes: { key: string; value: { stringValue?: string; intValue?: string } }[];
}

/** Long, partly non-ASCII reasons: a group of a thousand decisions holds megabytes of text. */
const reasonsOf = (seq: number): string[] => Array.from({ length: 40 }, (_, index) => `reason_${index}_é日本_${seq}`);

function decision(seq: number): LedgerRecord {
  return { v: 0, seq, ts: '2026-11-21T10:00:00.000Z', stream: 'policy', prevHash: `sha256:${'0'.repeat(64)}`, type: 'policy.decided', data: { actionId: `act_${seq}`, decision: 'deny', reasons: reasonsOf(seq), ruleId: 'rule', policyHash: `sha256:${'1'.repeat(64)}` } } as LedgerRecord;
}

function attribute(record: LogRecord, key: string): string | undefined {
  const value = record.attributes.find((entry) => entry.key === key)?.value;
  return value?.stringValue ?? value?.intValue;
}

describe('the OTLP logs view', () => {
  it('writes each group of a thousand records as one canonical request line, however much text the group holds', () => {
    const view = otlpLogsView();
    const state = initialState();
    const rows: Row[] = [];
    // A bytes row is valid until the view is called again: copied as the replay would read it.
    const copy = (row: Row): Row => (row instanceof Uint8Array ? Buffer.from(row) : row);
    for (let seq = 0; seq < 2_500; seq += 1) rows.push(...view.rows(state, decision(seq), '').map(copy));
    rows.push(...(view.finish?.(state) ?? []).map(copy));
    expect(rows).toHaveLength(3);
    const groups = rows.map((row) => {
      expect(row).toBeInstanceOf(Uint8Array);
      const text = Buffer.from(row as Uint8Array).toString('utf8');
      const parsed = JSON.parse(text) as { resourceLogs: { scopeLogs: { logRecords: LogRecord[] }[] }[] };
      expect(isCanonicalText(text, parsed)).toBe(true);
      return parsed.resourceLogs[0]?.scopeLogs[0]?.logRecords ?? [];
    });
    expect(groups.map((records) => records.length)).toEqual([1_000, 1_000, 500]);
    expect((rows[0] as Uint8Array).length).toBeGreaterThan(1 << 20);
    groups.flat().forEach((record, seq) => {
      expect(attribute(record, 'svc.seq')).toBe(String(seq));
      expect(attribute(record, 'svc.reasons')).toBe(reasonsOf(seq).join(','));
    });
  });
});

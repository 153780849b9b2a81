import { readFile } from 'node:fs/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCanonicalText } from '../../src/events/canonical.js';
import { checkRecord, EVENT_TYPES, type LedgerRecord } from '../../src/events/catalogue.js';
import { jsonToken } from '../../src/projections/json-text.js';
import { otlpLogsView } from '../../src/projections/otlp.js';
import { siemView } from '../../src/projections/siem.js';
import { evolve, initialState } from '../../src/projections/state.js';
import type { Row } from '../../src/projections/view.js';

const validRecords = (await readFile('testdata/ledgers/valid/ledger.jsonl', 'utf8'))
  .trimEnd()
  .split('\n')
  .map((line) => JSON.parse(line) as LedgerRecord);

type Mutable = Record<string, unknown> & { data: Record<string, unknown> };

/** The OTLP view writes its lines as UTF-8 bytes (valid until its next call): their text. */
const otlpText = (row: Row): string => Buffer.from(row as Uint8Array).toString('utf8');

/**
 * The values the SIEM and OTLP views write with jsonToken, by record type, as setters on a copy
 * of a record: each puts a candidate where the view reads it (and, for an id that names the
 * record's stream, into the stream too, so that the catalogue judges the value, not the mismatch).
 */
const tokenFields: Record<string, ((record: Mutable, value: string) => void)[]> = {
  any: [(record, value) => (record.ts = value), (record, value) => (record.stream = value)],
  'action.received': [(record, value) => (record.data.source = value), (record, value) => (record.data.actionHash = value), (record, value) => ((record.data.actionId = value), (record.stream = `action:${value}`))],
  'policy.decided': [(record, value) => (record.data.decision = value), (record, value) => (record.data.policyHash = value), (record, value) => (record.data.reasons = [value, value])],
  'actionpass.issued': [(record, value) => (record.data.passId = value)],
  'approval.requested': [(record, value) => (record.data.approvalId = value), (record, value) => (record.data.payloadHash = value)],
  'approval.granted': [(record, value) => (record.data.approvedPayloadHash = value)],
  'execution.blocked': [(record, value) => (record.data.reason = value), (record, value) => (record.data.executedPayloadHash = value)],
  'execution.completed': [(record, value) => (record.data.resultHash = value), (record, value) => (record.data.passId = value)],
  'ledger.checkpoint': [(record, value) => (record.data.root = value)],
  'ledger.genesis': [(record, value) => (record.data.format = value)],
};

// Candidates mostly of the characters tokens are made of, with those JSON escapes mixed in.
const tokenish = fc.oneof(
  fc.stringMatching(/^(sha256:[0-9a-f]{64}|[a-z][a-z0-9_]{0,8}|(action:)?[A-Za-z0-9._:@/+-]{1,12}|[A-Za-z0-9+/]{43}=|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)$/),
  fc.string({ unit: fc.constantFrom('a', 'Z', '0', '_', ':', '.', '/', '+', '-', '=', '@', '"', '\\', '\n', '\u0001', '\u2028', 'é', '\ud800', ' '), minLength: 1, maxLength: 10 }),
);

describe('jsonToken', () => {
  it('quotes every value the catalogue accepts where the views write tokens exactly as JSON.stringify does', () => {
    for (const type of EVENT_TYPES) expect(jsonToken(type)).toBe(JSON.stringify(type));
    let accepted = 0;
    fc.assert(
      fc.property(fc.nat(validRecords.length - 1), fc.nat(), tokenish, (index, pick, value) => {
        const original = validRecords[index] as LedgerRecord;
        const setters = [...(tokenFields.any ?? []), ...(tokenFields[original.type] ?? [])];
        const record = structuredClone(original) as unknown as Mutable;
        (setters[pick % setters.length] as (record: Mutable, value: string) => void)(record, value);
        if (!checkRecord(record).ok) return;
        accepted += 1;
        expect(jsonToken(value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 10_000, seed: 11 },
    );
    // The property says nothing unless many candidates were tokens the catalogue took.
    expect(accepted).toBeGreaterThan(500);
  });

  it('leaves free text to be escaped: SIEM and OTLP rows stay canonical JSON carrying the text exactly', () => {
    const hostile = ['say "hi"', 'back\\slash', 'line\nbreak', 'tab\tand\u0001control', 'é日本', '\u2028'];
    for (const text of hostile) {
      const siem = siemView();
      const otlp = otlpLogsView();
      const state = initialState();
      const rows: string[] = [];
      for (const original of validRecords) {
        const record = structuredClone(original) as unknown as Mutable;
        if (record.type === 'ledger.genesis') record.data.origin = `svc.test/${text.replace(/\s/g, '')}`;
        if (record.type === 'action.received') {
          const action = record.data.action as { actor: Record<string, string>; capability: Record<string, string> };
          Object.assign(action.actor, { agentId: text, tenant: text });
          Object.assign(action.capability, { tool: text, resource: text });
        }
        if (record.type === 'policy.decided') record.data.ruleId = text;
        if (record.type === 'approval.granted') record.data.approvedBy = text;
        const typed = record as unknown as LedgerRecord;
        rows.push(...(siem.rows(state, typed, `sha256:${'0'.repeat(64)}`) as string[]), ...otlp.rows(state, typed, '').map(otlpText));
        evolve(state, typed);
      }
      rows.push(...(otlp.finish?.(state) ?? []).map(otlpText));
      for (const row of rows) expect(isCanonicalText(row, JSON.parse(row)), row).toBe(true);
      const events = rows.slice(0, validRecords.length).map((row) => JSON.parse(row) as { svc: { detail: Record<string, unknown> }; user?: { id: string }; svcAction?: { tool: string } });
      expect(events.filter((event) => event.user !== undefined).every((event) => event.user?.id === text && event.svcAction?.tool === text)).toBe(true);
      expect(events.some((event) => event.svc.detail.ruleId === text)).toBe(true);
      expect(events.some((event) => event.svc.detail.approvedBy === text)).toBe(true);
    }
  });
});

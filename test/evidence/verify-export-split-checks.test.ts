import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Defect } from '../../src/events/defects.js';
import { verifyExport } from '../../src/evidence/verify-export.js';
import { fixtureLedgerKey } from '../../scripts/generate-fixtures.js';
import { tempDir } from '../support/ledger.js';
import { expectLedgerFile, type Expected } from './reference-verifier.js';

/**
 * For a bare ledger, verify-export runs a line's JSON and catalogue checks on the replay thread
 * and its seq and chain checks on the chain thread (docs/ledger-format.md 9.2). The tamper matrix
 * edits one byte at a time, which fails one check per line; these edits fail several checks in
 * one line, or in two lines, so that the two threads' defects must be put in order: the verdict
 * must still be the one the reference verifier predicts from the order of 9.3.
 */

const VALID = 'testdata/ledgers/valid';
const pinnedKey = fixtureLedgerKey.publicKey;
const original = await readFile(join(VALID, 'ledger.jsonl'), 'utf8');
const sidecarNote = await readFile(join(VALID, 'ledger.jsonl.checkpoint'), 'utf8');
const lines = original.trimEnd().split('\n');

const work = await tempDir('svc-split-checks-');
const ledgerPath = join(work, 'ledger.jsonl');
const sidecar = { name: `${ledgerPath}.checkpoint`, note: sidecarNote };
await writeFile(sidecar.name, sidecarNote);

function located(defect: Defect | undefined): Expected | undefined {
  if (!defect) return undefined;
  const { code, seq, offset, file } = defect;
  return { code, ...(seq !== undefined && { seq }), ...(offset !== undefined && { offset }), ...(file !== undefined && { file }) };
}

/** Verifies `text` as the ledger, in reads of `chunkBytes`, and returns the defect after checking it against the prediction. */
async function verifyAsPredicted(text: string, what: string, chunkBytes?: number): Promise<Expected | undefined> {
  const bytes = Buffer.from(text, 'utf8');
  await writeFile(ledgerPath, bytes);
  const expected = expectLedgerFile(bytes, sidecar, pinnedKey);
  const report = await verifyExport(ledgerPath, { pinnedKey, ...(chunkBytes !== undefined && { chunkBytes }) });
  expect(located(report.defect), what).toEqual(expected);
  if (expected?.seq !== undefined) expect(report.records, `${what}: records before the defect`).toBe(expected.seq);
  return expected;
}

/** The ledger with line `index` replaced by `edit(line)`. */
function withLine(index: number, edit: (line: string) => string): string {
  return `${lines.map((line, at) => (at === index ? edit(line) : line)).join('\n')}\n`;
}

const recordIndex = lines.findIndex((line, index) => index > 1 && line.includes('"type":"execution.completed"'));
const wrongSeq = (line: string): string => line.replace(/"seq":(\d+)/, (_match, seq: string) => `"seq":${Number(seq) + 5}`);
const wrongPrevHash = (line: string): string => line.replace(/"prevHash":"sha256:(.)/, (_match, first: string) => `"prevHash":"sha256:${first === '0' ? '1' : '0'}`);
const badDataHash = (line: string): string => line.replace(/"executedPayloadHash":"sha256:/, '"executedPayloadHash":"sha256:X');
const notJson = (line: string): string => line.replace('{"data":{', '{"data":{,');

describe('verify-export of a bare ledger with the record checks on the replay thread', () => {
  it('reports a record defect before a seq gap or broken chain in the same line', async () => {
    expect(recordIndex).toBeGreaterThan(1);
    const cases: [string, (line: string) => string, string][] = [
      ['catalogue and seq', (line) => wrongSeq(badDataHash(line)), 'record_invalid'],
      ['catalogue and chain', (line) => wrongPrevHash(badDataHash(line)), 'record_invalid'],
      ['not JSON and seq', (line) => wrongSeq(notJson(line)), 'not_canonical'],
      ['not JSON and chain', (line) => wrongPrevHash(notJson(line)), 'not_canonical'],
      ['seq alone', wrongSeq, 'seq_gap'],
      ['chain alone', wrongPrevHash, 'chain_broken'],
    ];
    for (const [what, edit, code] of cases) {
      for (const chunkBytes of [undefined, 64, 1000]) {
        const expected = await verifyAsPredicted(withLine(recordIndex, edit), `${what}, reads of ${chunkBytes ?? 'default'} bytes`, chunkBytes);
        expect(expected?.code, what).toBe(code);
        expect(expected?.seq, what).toBe(recordIndex);
      }
    }
  });

  it('reports whichever of a record defect and a chain defect comes first in two lines', async () => {
    const later = recordIndex + 3;
    const recordFirst = lines.map((line, at) => (at === recordIndex ? badDataHash(line) : at === later ? wrongSeq(line) : line)).join('\n');
    expect((await verifyAsPredicted(`${recordFirst}\n`, 'record defect first'))?.code).toBe('record_invalid');
    const chainFirst = lines.map((line, at) => (at === recordIndex ? wrongSeq(line) : at === later ? badDataHash(line) : line)).join('\n');
    expect((await verifyAsPredicted(`${chainFirst}\n`, 'chain defect first'))?.code).toBe('seq_gap');
  });

  it('reports a prevHash that is not a sha256 text as a record defect, alone or before other defects (the replay thread leaves its form to the chain thread)', async () => {
    const upperPrevHash = (line: string): string => line.replace(/"prevHash":"sha256:([0-9a-f]{64})"/, (_match, hex: string) => `"prevHash":"sha256:${hex.toUpperCase()}"`);
    const shortPrevHash = (line: string): string => line.replace(/"prevHash":"sha256:[0-9a-f]/, '"prevHash":"sha256:');
    const later = recordIndex + 3;
    for (const edit of [upperPrevHash, shortPrevHash]) {
      expect(edit(lines[recordIndex] as string)).not.toBe(lines[recordIndex]);
      for (const chunkBytes of [undefined, 64, 1000]) {
        const reads = `reads of ${chunkBytes ?? 'default'} bytes`;
        expect((await verifyAsPredicted(withLine(recordIndex, edit), `${edit.name} alone, ${reads}`, chunkBytes))?.code).toBe('record_invalid');
        expect((await verifyAsPredicted(withLine(recordIndex, (line) => wrongSeq(edit(line))), `${edit.name} and seq, ${reads}`, chunkBytes))?.code).toBe('record_invalid');
        const thenRecordDefect = lines.map((line, at) => (at === recordIndex ? edit(line) : at === later ? badDataHash(line) : line)).join('\n');
        expect((await verifyAsPredicted(`${thenRecordDefect}\n`, `${edit.name}, then a catalogue defect, ${reads}`, chunkBytes))?.seq).toBe(recordIndex);
        const afterRecordDefect = lines.map((line, at) => (at === recordIndex ? badDataHash(line) : at === later ? edit(line) : line)).join('\n');
        expect((await verifyAsPredicted(`${afterRecordDefect}\n`, `a catalogue defect, then ${edit.name}, ${reads}`, chunkBytes))?.seq).toBe(recordIndex);
      }
    }
  });

  it('gives the predicted verdict for 300 pairs of byte edits within one line or two', async () => {
    const bytes = Buffer.from(original, 'utf8');
    const starts = lines.map((_line, index) => Buffer.byteLength(lines.slice(0, index).map((line) => `${line}\n`).join('')));
    const line = fc.integer({ min: 1, max: lines.length - 1 });
    const edit = fc.tuple(line, fc.nat(), fc.constantFrom(0x01, 0x20, 0x08, 0x40, 0x0f));
    await fc.assert(
      fc.asyncProperty(edit, edit, fc.boolean(), async (first, second, sameLine) => {
        const copy = Buffer.from(bytes);
        for (const [index, at, mask] of sameLine ? [first, [first[0], second[1], second[2]] as const] : [first, second]) {
          const start = starts[index] as number;
          const length = Buffer.byteLength(lines[index] as string);
          const position = start + (at % length);
          copy[position] = (copy[position] as number) ^ mask;
        }
        await writeFile(ledgerPath, copy);
        const report = await verifyExport(ledgerPath, { pinnedKey });
        expect(located(report.defect)).toEqual(expectLedgerFile(copy, sidecar, pinnedKey));
      }),
      { numRuns: 300, seed: 20261126 },
    );
  });
});

import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFECT_CODES } from '../../src/events/defects.js';
import { verifyExport, type VerifyReport } from '../../src/evidence/verify-export.js';
import { fixtureLedgerKey } from '../../scripts/generate-fixtures.js';
import { tempDir } from '../support/ledger.js';

const VALID = 'testdata/ledgers/valid';
const BUNDLE = 'testdata/ledgers/valid-bundle';
const pinnedKey = fixtureLedgerKey.publicKey;

const original = await readFile(join(VALID, 'ledger.jsonl'));
const sidecar = await readFile(join(VALID, 'ledger.jsonl.checkpoint'));
const lines = original.toString('utf8').trimEnd().split('\n');
const lineOffsets = lines.map((_line, index) => Buffer.byteLength(lines.slice(0, index).map((line) => `${line}\n`).join('')));
const lastSeq = lines.length - 1;

const work = await tempDir('svc-tamper-');
const ledgerPath = join(work, 'ledger.jsonl');
await writeFile(`${ledgerPath}.checkpoint`, sidecar);

async function verifyBytes(bytes: Buffer | string): Promise<VerifyReport> {
  await writeFile(ledgerPath, bytes);
  return verifyExport(ledgerPath, { pinnedKey });
}

function lineOf(position: number): number {
  let index = 0;
  while (index + 1 < lineOffsets.length && (lineOffsets[index + 1] as number) <= position) index += 1;
  return index;
}

describe('tamper matrix over the valid fixture (ledger and checkpoint sidecar, key pinned)', () => {
  it('the untampered ledger and bundle verify', async () => {
    expect((await verifyBytes(original)).valid).toBe(true);
    expect((await verifyExport(BUNDLE, { pinnedKey })).valid).toBe(true);
  });

  it(`every single-line deletion (${lines.length}) is detected where it happened`, async () => {
    for (let index = 0; index < lines.length; index += 1) {
      const report = await verifyBytes(`${lines.filter((_line, other) => other !== index).join('\n')}\n`);
      expect(report.valid, `deleting line ${index}`).toBe(false);
      if (index === lastSeq) expect(report.defect?.code).toBe('root_mismatch');
      else expect(report.defect, `deleting line ${index}`).toMatchObject({ code: 'seq_gap', seq: index, offset: lineOffsets[index] });
    }
  });

  it(`every adjacent swap (${lines.length - 1}) is detected at the first swapped record`, async () => {
    for (let index = 0; index + 1 < lines.length; index += 1) {
      const swapped = [...lines];
      [swapped[index], swapped[index + 1]] = [swapped[index + 1] as string, swapped[index] as string];
      const report = await verifyBytes(`${swapped.join('\n')}\n`);
      expect(report.defect, `swapping lines ${index} and ${index + 1}`).toMatchObject({ code: 'seq_gap', seq: index, offset: lineOffsets[index] });
    }
  });

  it('1,500 random single-byte flips are each detected in the flipped record or the one after it', async () => {
    const codes = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: original.length - 1 }), fc.integer({ min: 1, max: 255 }), async (position, mask) => {
        const tampered = Buffer.from(original);
        tampered[position] = (tampered[position] as number) ^ mask;
        const report = await verifyBytes(tampered);
        const line = lineOf(position);
        expect(report.valid).toBe(false);
        const defect = report.defect;
        expect(DEFECT_CODES).toContain(defect?.code);
        codes.set(defect?.code as string, (codes.get(defect?.code as string) ?? 0) + 1);
        if (defect?.seq === undefined) {
          // Only an edit to the final record leaves the chain intact; the sidecar's root catches it.
          expect(line).toBe(lastSeq);
          expect(defect?.code).toBe('root_mismatch');
        } else {
          expect([line, line + 1]).toContain(defect.seq);
          expect(defect.offset).toBe(lineOffsets[defect.seq] ?? original.length);
        }
      }),
      { numRuns: 1500, seed: 20261121 },
    );
    // The matrix reaches the distinct checks, not just one of them.
    expect([...codes.keys()], JSON.stringify([...codes])).toEqual(expect.arrayContaining(['not_canonical', 'chain_broken', 'record_invalid']));
  });

  it('300 random byte flips anywhere in an export bundle are each detected', async () => {
    const bundle = join(await tempDir('svc-tamper-bundle-'), 'bundle');
    const files = (await readdir(BUNDLE, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name).slice(BUNDLE.length + 1));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...files), fc.nat(), fc.integer({ min: 1, max: 255 }), async (file, at, mask) => {
        await cp(BUNDLE, bundle, { recursive: true, force: true });
        const bytes = await readFile(join(bundle, file));
        if (bytes.length === 0) return;
        const position = at % bytes.length;
        bytes[position] = (bytes[position] as number) ^ mask;
        await writeFile(join(bundle, file), bytes);
        const report = await verifyExport(bundle, { pinnedKey });
        expect(report.valid, `flip in ${file} at ${position}`).toBe(false);
        expect(DEFECT_CODES).toContain(report.defect?.code);
      }),
      { numRuns: 300, seed: 7331 },
    );
  });
});

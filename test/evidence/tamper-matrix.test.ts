import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Defect } from '../../src/events/defects.js';
import { verifyExport } from '../../src/evidence/verify-export.js';
import { fixtureLedgerKey } from '../../scripts/generate-fixtures.js';
import { tempDir } from '../support/ledger.js';
import { expectBundle, expectLedgerFile, type BundleFiles, type Expected } from './reference-verifier.js';

/**
 * Every tampering is checked for the exact defect (code, seq, byte offset, file) that the
 * independent reference verifier (./reference-verifier.ts, built from docs/ledger-format.md)
 * predicts: not merely "invalid", and not merely some failure code.
 */

const VALID = 'testdata/ledgers/valid';
const BUNDLE = 'testdata/ledgers/valid-bundle';
const pinnedKey = fixtureLedgerKey.publicKey;

const original = await readFile(join(VALID, 'ledger.jsonl'));
const sidecarNote = await readFile(join(VALID, 'ledger.jsonl.checkpoint'), 'utf8');
const lines = original.toString('utf8').trimEnd().split('\n');
const lineOffsets = lines.map((_line, index) => Buffer.byteLength(lines.slice(0, index).map((line) => `${line}\n`).join('')));
const lastSeq = lines.length - 1;

const work = await tempDir('svc-tamper-');
const ledgerPath = join(work, 'ledger.jsonl');
const sidecar = { name: `${ledgerPath}.checkpoint`, note: sidecarNote };
await writeFile(sidecar.name, sidecarNote);

const bundleFiles = (await readdir(BUNDLE, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name).slice(BUNDLE.length + 1)).sort();
const bundleBytes = new Map<string, Buffer>(await Promise.all(bundleFiles.map(async (name) => [name, await readFile(join(BUNDLE, name))] as const)));
const bundle = join(await tempDir('svc-tamper-bundle-'), 'bundle');
await cp(BUNDLE, bundle, { recursive: true });

/** The members of a defect the reference verifier predicts (the message is prose). */
function located(defect: Defect | undefined): Expected | undefined {
  if (!defect) return undefined;
  const { code, seq, offset, file } = defect;
  return { code, ...(seq !== undefined && { seq }), ...(offset !== undefined && { offset }), ...(file !== undefined && { file }) };
}

function count(tally: Map<string, number>, code: string): void {
  tally.set(code, (tally.get(code) ?? 0) + 1);
}

const ledgerCodes = new Map<string, number>();

/** Verifies `bytes` as the ledger beside the valid sidecar and returns the defect, checked against the prediction. */
async function tamperLedger(bytes: Buffer | string, what: string): Promise<Expected> {
  const tampered = Buffer.from(bytes);
  await writeFile(ledgerPath, tampered);
  const expected = expectLedgerFile(tampered, sidecar, pinnedKey);
  const report = await verifyExport(ledgerPath, { pinnedKey });
  expect(expected, `${what}: the reference verifier must reject it too`).toBeDefined();
  expect(report.valid, what).toBe(false);
  expect(located(report.defect), what).toEqual(expected);
  count(ledgerCodes, (expected as Expected).code);
  return expected as Expected;
}

function flip(bytes: Buffer, position: number, mask: number): Buffer {
  const copy = Buffer.from(bytes);
  copy[position] = (copy[position] as number) ^ mask;
  return copy;
}

const bundleCodes = new Map<string, Map<string, number>>();

/** Replaces one file of the bundle copy, verifies, checks the prediction, and puts the file back. */
async function tamperBundle(name: string, bytes: Buffer, what: string): Promise<Expected> {
  const files = new Map(bundleBytes).set(name, bytes);
  const expected = expectBundle({ files, replayed: bundleBytes } satisfies BundleFiles, pinnedKey);
  await writeFile(join(bundle, name), bytes);
  try {
    const report = await verifyExport(bundle, { pinnedKey });
    expect(expected, `${what}: the reference verifier must reject it too`).toBeDefined();
    expect(report.valid, what).toBe(false);
    expect(located(report.defect), what).toEqual(expected);
  } finally {
    await writeFile(join(bundle, name), bundleBytes.get(name) as Buffer);
  }
  const tally = bundleCodes.get(name) ?? new Map<string, number>();
  bundleCodes.set(name, tally);
  count(tally, (expected as Expected).code);
  return expected as Expected;
}

function withoutLine(text: string[], index: number): string {
  return `${text.filter((_line, other) => other !== index).join('\n')}\n`;
}

function swapped(text: string[], index: number): string {
  const copy = [...text];
  [copy[index], copy[index + 1]] = [copy[index + 1] as string, copy[index] as string];
  return `${copy.join('\n')}\n`;
}

/** The index of the first line of a record type. */
function lineIndex(type: string): number {
  const index = lines.findIndex((line) => line.includes(`"type":"${type}"`));
  expect(index, type).toBeGreaterThanOrEqual(0);
  return index;
}

describe('tamper matrix over the valid fixture (ledger with its checkpoint sidecar, key pinned)', () => {
  it('the untampered ledger and bundle verify, and the reference verifier agrees', async () => {
    await writeFile(ledgerPath, original);
    expect((await verifyExport(ledgerPath, { pinnedKey })).valid).toBe(true);
    expect(expectLedgerFile(original, sidecar, pinnedKey)).toBeUndefined();
    expect((await verifyExport(bundle, { pinnedKey })).valid).toBe(true);
    expect(expectBundle({ files: bundleBytes, replayed: bundleBytes }, pinnedKey)).toBeUndefined();
  });

  it(`every single-line deletion (${lines.length}) gives the predicted code at the predicted seq`, async () => {
    for (let index = 0; index < lines.length; index += 1) {
      const expected = await tamperLedger(withoutLine(lines, index), `deleting line ${index}`);
      // The prediction itself, spelled out: the next record's seq exposes the gap, and only the
      // final record can go without one, which the sidecar (covering it) then exposes.
      expect(expected).toEqual(index === lastSeq ? { code: 'root_mismatch', file: sidecar.name } : { code: 'seq_gap', seq: index, offset: lineOffsets[index] });
    }
  });

  it(`every adjacent swap (${lines.length - 1}) gives the predicted code at the first swapped record`, async () => {
    for (let index = 0; index + 1 < lines.length; index += 1) {
      expect(await tamperLedger(swapped(lines, index), `swapping lines ${index} and ${index + 1}`)).toEqual({ code: 'seq_gap', seq: index, offset: lineOffsets[index] });
    }
  });

  it('1,500 random single-byte flips each give the predicted code, seq and offset', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: original.length - 1 }), fc.integer({ min: 1, max: 255 }), async (position, mask) => {
        await tamperLedger(flip(original, position, mask), `byte ${position} ^ 0x${mask.toString(16)}`);
      }),
      { numRuns: 1500, seed: 20261121 },
    );
  });

  it('every byte of the genesis, an execution and the final checkpoint, flipped in its lowest bit, gives the predicted code', async () => {
    // These records hold the checks random flips rarely reach: the pinned key, the equivalence
    // pair, the in-band note and the sidecar's root over the final record.
    for (const index of [0, lineIndex('execution.completed'), lastSeq]) {
      // The line and its `\n`: the final one turns into a torn tail.
      for (let position = lineOffsets[index] as number; position <= (lineOffsets[index] as number) + Buffer.byteLength(lines[index] as string); position += 1) {
        await tamperLedger(flip(original, position, 0x01), `line ${index}, byte ${position} ^ 0x01`);
      }
    }
  });

  it('the ledger matrix reaches every check a single edit can fail', () => {
    expect([...ledgerCodes.keys()].sort(), JSON.stringify([...ledgerCodes])).toEqual(
      ['chain_broken', 'checkpoint_signature_invalid', 'equivalence_mismatch', 'genesis_invalid', 'key_untrusted', 'not_canonical', 'record_invalid', 'root_mismatch', 'seq_gap', 'torn_line'].sort(),
    );
  });
});

describe('tamper matrix over the export bundle (key pinned)', () => {
  it(`every line deletion and adjacent swap in its ledger.jsonl gives the predicted code`, async () => {
    for (let index = 0; index < lines.length; index += 1) {
      await tamperBundle('ledger.jsonl', Buffer.from(withoutLine(lines, index)), `deleting bundle line ${index}`);
      if (index + 1 < lines.length) await tamperBundle('ledger.jsonl', Buffer.from(swapped(lines, index)), `swapping bundle lines ${index} and ${index + 1}`);
    }
  });

  // Per file: how many random flips, and the codes they must reach between them.
  const plan: [string, number, string[]][] = [
    ['ledger.jsonl', 300, ['chain_broken', 'not_canonical', 'record_invalid']],
    ['attestation.json', 150, ['attestation_signature_invalid']],
    ['checkpoint', 50, ['subject_digest_mismatch']],
    ...bundleFiles.filter((name) => name.startsWith('projections/')).map((name): [string, number, string[]] => [name, 25, ['subject_digest_mismatch']]),
  ];
  for (const [name, runs, codes] of plan) {
    it(`${runs} random single-byte flips in ${name} each give the predicted code`, async () => {
      const bytes = bundleBytes.get(name) as Buffer;
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 0, max: bytes.length - 1 }), fc.integer({ min: 1, max: 255 }), async (position, mask) => {
          const expected = await tamperBundle(name, flip(bytes, position, mask), `${name} byte ${position} ^ 0x${mask.toString(16)}`);
          // A damaged file is named as the culprit, except where the ledger's own checks locate it.
          if (name !== 'ledger.jsonl') expect(expected.file).toBe(name);
        }),
        { numRuns: runs, seed: 7331 },
      );
      expect([...(bundleCodes.get(name)?.keys() ?? [])], JSON.stringify([...(bundleCodes.get(name) ?? [])])).toEqual(expect.arrayContaining(codes));
    });
  }
});

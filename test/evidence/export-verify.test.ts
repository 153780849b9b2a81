import { readFile, writeFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportLedger } from '../../src/evidence/export-ledger.js';
import { proveEquivalence, verifyEquivalenceProof } from '../../src/evidence/prove-equivalence.js';
import { verifyExport } from '../../src/evidence/verify-export.js';
import { appendSampleFlows, ledgerKey, openLedger, tempDir } from '../support/ledger.js';

async function sampleLedger(rounds = 2) {
  const dir = await tempDir();
  const path = join(dir, 'ledger.jsonl');
  const writer = await openLedger(path, { checkpointEveryRecords: 10 });
  await appendSampleFlows(writer, rounds);
  await writer.close();
  return { dir, path };
}

describe('export, verify-export and prove-equivalence', () => {
  it('exports a bundle that verifies, with the pinned key and without', async () => {
    const { dir, path } = await sampleLedger();
    const out = join(dir, 'bundle');
    const exported = await exportLedger({ ledgerPath: path, outDir: out, key: ledgerKey });
    expect(exported.files.map((file) => file.name)).toEqual([
      'checkpoint',
      'ledger.jsonl',
      'projections/approvals.jsonl',
      'projections/decisions.jsonl',
      'projections/equivalence.jsonl',
      'projections/executions.jsonl',
      'projections/otlp-logs.jsonl',
      'projections/siem.jsonl',
    ]);
    expect(await readFile(join(out, 'ledger.jsonl'))).toEqual(await readFile(path));
    const unpinned = await verifyExport(out);
    expect(unpinned).toMatchObject({ valid: true, kind: 'bundle', keyPinned: false, equivalence: { equivalent: 4, blocked: 2, violated: 0 } });
    const pinned = await verifyExport(out, { pinnedKey: ledgerKey.publicKey });
    expect(pinned).toMatchObject({ valid: true, keyPinned: true });
    expect(await verifyExport(path)).toMatchObject({ valid: true, kind: 'ledger' });
  });

  it('reads in any chunk size with the same report, and refuses a chunk size that could read nothing', async () => {
    const { dir, path } = await sampleLedger();
    const out = join(dir, 'bundle');
    await exportLedger({ ledgerPath: path, outDir: out, key: ledgerKey });
    const whole = await verifyExport(out);
    expect(whole.valid).toBe(true);
    for (const chunkBytes of [1, 7, 4096]) expect(await verifyExport(out, { chunkBytes })).toEqual(whole);
    for (const chunkBytes of [0, -1, 1.5]) await expect(verifyExport(out, { chunkBytes })).rejects.toThrow(RangeError);
  });

  it('detects an edited projection', async () => {
    const { dir, path } = await sampleLedger();
    const out = join(dir, 'bundle');
    await exportLedger({ ledgerPath: path, outDir: out, key: ledgerKey });
    const file = join(out, 'projections', 'decisions.jsonl');
    await writeFile(file, (await readFile(file, 'utf8')).replace('"deny"', '"allow"'));
    expect((await verifyExport(out)).defect?.code).toBe('subject_digest_mismatch');
  });

  it('detects a bundle ledger replaced by another valid ledger: the attestation names its digest', async () => {
    const { dir, path } = await sampleLedger();
    const out = join(dir, 'bundle');
    await exportLedger({ ledgerPath: path, outDir: out, key: ledgerKey });
    const lines = (await readFile(join(out, 'ledger.jsonl'), 'utf8')).split('\n');
    const prefix = `${lines.slice(0, -3).join('\n')}\n`;
    // A valid ledger of its own (kept apart from the source ledger's checkpoint sidecar, which covers more).
    await writeFile(join(dir, 'prefix.jsonl'), prefix);
    expect((await verifyExport(join(dir, 'prefix.jsonl'))).valid).toBe(true);
    await writeFile(join(out, 'ledger.jsonl'), prefix);
    expect((await verifyExport(out)).defect).toMatchObject({ code: 'subject_digest_mismatch', file: 'ledger.jsonl' });
  });

  it('proves every execution and the proof verifies without the ledger', async () => {
    const { dir, path } = await sampleLedger();
    const result = await proveEquivalence({ ledgerPath: path });
    expect(result.holds).toBe(true);
    expect(result.verdicts.map((verdict) => verdict.status)).toEqual(['equivalent', 'equivalent', 'blocked', 'equivalent', 'equivalent', 'blocked']);
    const text = JSON.stringify(result.proof);
    const check = verifyEquivalenceProof(text, ledgerKey.publicKey);
    expect(check).toMatchObject({ valid: true, holds: true });
    const tampered = text.replace(/executedPayloadHash\\":\\"sha256:([0-9a-f])/, (match, digit: string) => match.slice(0, -1) + (digit === 'a' ? 'b' : 'a'));
    expect(tampered).not.toBe(text);
    expect(verifyEquivalenceProof(tampered).valid).toBe(false);
    expect(await readdir(dir)).toContain('ledger.jsonl');
  });
});

import { readdir, readFile, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExportRefusedError, exportLedger } from '../../src/evidence/export-ledger.js';
import { checkLedgerInput } from '../../src/evidence/ledger-input.js';
import { runLedgerPass } from '../../src/evidence/ledger-pass.js';
import { proveEquivalence } from '../../src/evidence/prove-equivalence.js';
import { signCheckpoint } from '../../src/events/checkpoint.js';
import { appendSampleFlows, chatEvent, ledgerKey, openLedger, tempDir } from '../support/ledger.js';

/**
 * A ledger written in `sessions` writer sessions (sample flows, then one record per session); each
 * close appends an in-band checkpoint and leaves a sidecar over every record. Returns each
 * session's sidecar and the file's byte length after it.
 */
async function writtenLedger(sessions: number): Promise<{ dir: string; path: string; sidecars: string[]; lengths: number[] }> {
  const dir = await tempDir();
  const path = join(dir, 'ledger.jsonl');
  const sidecars: string[] = [];
  const lengths: number[] = [];
  for (let session = 0; session < sessions; session += 1) {
    const writer = await openLedger(path);
    if (session === 0) await appendSampleFlows(writer, 1);
    else await writer.appendBatch([chatEvent(`act_more_${session}`)]);
    await writer.close();
    sidecars.push(await readFile(`${path}.checkpoint`, 'utf8'));
    lengths.push((await stat(path)).size);
  }
  return { dir, path, sidecars, lengths };
}

async function passWithCheckpointFile(path: string) {
  return runLedgerPass(path, { tolerateTornTail: true, checkpointFile: await checkLedgerInput(path) });
}

describe('runLedgerPass holds a ledger to its checkpoint file', () => {
  it('accepts a sidecar that lags the ledger, as the writer does, and export and prove-equivalence go on', async () => {
    const { dir, path, sidecars } = await writtenLedger(2);
    const lagging = sidecars[0] as string;
    await writeFile(`${path}.checkpoint`, lagging);
    const pass = await passWithCheckpointFile(path);
    expect(pass.defect).toBeUndefined();
    expect(pass.checkpointFile?.size).toBe(Number(lagging.split('\n')[1]));
    expect(pass.checkpointFile?.size).toBeLessThan(pass.checker.size);
    expect((await exportLedger({ ledgerPath: path, outDir: join(dir, 'bundle'), key: ledgerKey })).size).toBe(pass.checker.size);
    // The newest in-band checkpoint covers more than the lagging sidecar, so every execution is covered.
    expect(await proveEquivalence({ ledgerPath: path })).toMatchObject({ holds: true, uncovered: [] });
  });

  it('refuses a shorter ledger with root_mismatch at the first missing seq and the byte length of what is left', async () => {
    const { path, lengths } = await writtenLedger(2);
    // Cut back to the end of the first session; the sidecar still covers the second.
    await truncate(path, lengths[0] as number);
    const pass = await passWithCheckpointFile(path);
    expect(pass.defect).toMatchObject({ code: 'root_mismatch', seq: pass.checker.size, offset: lengths[0] });
    expect(pass.checker.size).toBeGreaterThan(0);
    expect(pass.checkpointFile).toBeUndefined();
  });

  it('refuses a sidecar signed by the ledger key whose root is not the ledger root at its size', async () => {
    const { path } = await writtenLedger(1);
    const genesis = JSON.parse((await readFile(path, 'utf8')).split('\n')[0] as string) as { data: { origin: string } };
    await writeFile(`${path}.checkpoint`, signCheckpoint(ledgerKey, genesis.data.origin, 5, Buffer.alloc(32, 7)));
    const pass = await passWithCheckpointFile(path);
    expect(pass.defect).toMatchObject({ code: 'root_mismatch', file: `${path}.checkpoint` });
  });

  it('refuses a checkpoint file that is not a note, or larger than any note, before reading a line', async () => {
    const { path } = await writtenLedger(1);
    await writeFile(`${path}.checkpoint`, 'not a note\n');
    const garbled = await passWithCheckpointFile(path);
    expect(garbled.defect).toMatchObject({ code: 'checkpoint_signature_invalid', file: `${path}.checkpoint` });
    expect(garbled.checker.size).toBe(0);
    await writeFile(`${path}.checkpoint`, Buffer.alloc(70 * 1024, 0x61));
    const huge = await passWithCheckpointFile(path);
    expect(huge.defect).toMatchObject({ code: 'checkpoint_signature_invalid', message: expect.stringContaining('larger than 65536 bytes') });
  });
});

describe('exportLedger', () => {
  it('throws ExportRefusedError carrying the defect, and removes its staging directory', async () => {
    const { dir, path, lengths } = await writtenLedger(2);
    await truncate(path, lengths[0] as number);
    const before = (await readdir(dir)).sort();
    const error = await exportLedger({ ledgerPath: path, outDir: join(dir, 'bundle'), key: ledgerKey }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ExportRefusedError);
    expect(error).toMatchObject({ code: 'root_mismatch', defect: { code: 'root_mismatch' } });
    expect((await readdir(dir)).sort()).toEqual(before);
  });
});

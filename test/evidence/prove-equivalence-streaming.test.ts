import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/events/canonical.js';
import { parseCheckpoint } from '../../src/events/checkpoint.js';
import { MerkleTree, hashLeaf } from '../../src/events/merkle.js';
import { exportLedger } from '../../src/evidence/export-ledger.js';
import { PROOF_FORMAT, proveEquivalence, verifyEquivalenceProof, type ProveResult } from '../../src/evidence/prove-equivalence.js';
import type { EquivalenceVerdict } from '../../src/projections/equivalence.js';
import { appendSampleFlows, ledgerKey, openLedger, tempDir } from '../support/ledger.js';

/**
 * prove-equivalence streams the ledger a second time and builds only the proofs it needs. Its
 * proof file must stay byte for byte what the former build produced: a MerkleTree over every leaf
 * of the ledger, with MerkleTree.inclusionProof for each included record.
 */

async function sampleLedger(rounds: number, checkpointEveryRecords: number): Promise<{ dir: string; path: string }> {
  const dir = await tempDir();
  const path = join(dir, 'ledger.jsonl');
  const writer = await openLedger(path, { checkpointEveryRecords });
  await appendSampleFlows(writer, rounds);
  await writer.close();
  return { dir, path };
}

/** The records a verdict is judged from (docs/ledger-format.md 10.2 step 4), sorted by seq. */
function evidenceSeqs(verdict: EquivalenceVerdict): number[] {
  const seqs = [verdict.seq, verdict.passSeq, verdict.approvalRequestedSeq, verdict.approvalGrantedSeq].filter((seq) => seq !== undefined);
  return [...new Set(seqs)].sort((a, b) => a - b);
}

/** The proof file the former, whole-tree build wrote for this result. */
function referenceProofText(ledgerPath: string, result: ProveResult): string {
  const proof = result.proof;
  if (!proof) throw new Error('no proof to compare');
  const lines = readFileSync(ledgerPath, 'utf8').split('\n').slice(0, -1);
  const tree = MerkleTree.fromLeaves(lines.map((line) => hashLeaf(Buffer.from(line, 'utf8'))));
  const include = (seq: number) => ({ seq, line: lines[seq], proof: tree.inclusionProof(seq, proof.size).map((hash) => hash.toString('base64')) });
  return `${canonicalJson({
    format: PROOF_FORMAT,
    origin: proof.origin,
    size: proof.size,
    root: tree.rootAt(proof.size).toString('base64'),
    checkpoint: proof.checkpoint,
    genesis: include(0),
    items: result.verdicts.map((verdict) => ({ actionId: verdict.actionId, verdict, records: evidenceSeqs(verdict).map(include) })),
  })}\n`;
}

async function expectReferenceProof(ledgerPath: string, result: ProveResult): Promise<void> {
  expect(result.proof).toBeDefined();
  const text = `${canonicalJson(result.proof)}\n`;
  expect(text).toBe(referenceProofText(ledgerPath, result));
  expect(result.proof?.size).toBe(parseCheckpoint(result.proof?.checkpoint ?? '').size);
  expect(verifyEquivalenceProof(text, ledgerKey.publicKey)).toMatchObject({ valid: true, holds: true });
}

describe('prove-equivalence builds its proofs in one more streaming read', () => {
  it('writes the proof of the whole-tree build, byte for byte, for ledgers of several sizes and checkpoints', async () => {
    for (const [rounds, every] of [[1, 10], [2, 7], [5, 1000], [9, 13]] as const) {
      const { path } = await sampleLedger(rounds, every);
      // With the sidecar, the checkpoint covers every record; without it, the newest in-band
      // checkpoint covers all but the checkpoint record itself.
      const withSidecar = await proveEquivalence({ ledgerPath: path });
      expect(withSidecar.verdicts).toHaveLength(3 * rounds);
      await expectReferenceProof(path, withSidecar);
      await rm(`${path}.checkpoint`);
      const inBand = await proveEquivalence({ ledgerPath: path });
      const records = (await readFile(path, 'utf8')).split('\n').length - 1;
      expect([withSidecar.proof?.size, inBand.proof?.size]).toEqual([records, records - 1]);
      await expectReferenceProof(path, inBand);
      const lastAction = inBand.verdicts.at(-1)?.actionId as string;
      await expectReferenceProof(path, await proveEquivalence({ ledgerPath: path, actionId: lastAction }));
    }
  });

  it('writes the same proof from an export bundle', async () => {
    const { dir, path } = await sampleLedger(3, 10);
    const bundle = join(dir, 'bundle');
    await exportLedger({ ledgerPath: path, outDir: bundle, key: ledgerKey });
    const result = await proveEquivalence({ exportDir: bundle, actionId: 'act_exec_1' });
    expect(result.verdicts.map((verdict) => verdict.actionId)).toEqual(['act_exec_1']);
    await expectReferenceProof(join(bundle, 'ledger.jsonl'), result);
  });

  it('reports root_mismatch and writes no proof when the ledger changes after it was verified', async () => {
    const { path } = await sampleLedger(2, 10);
    const original = await readFile(path);
    // The pass reports progress after its last chunk: the ledger is changed between the two reads.
    const after = (change: () => void) => (bytesRead: number, totalBytes: number) => {
      if (bytesRead === totalBytes) change();
    };

    const edited = Buffer.from(original);
    const at = edited.indexOf('"ts":"2', edited.indexOf(10) + 1) + 6;
    edited[at] = edited[at] === 0x31 ? 0x32 : 0x31;
    const rewritten = await proveEquivalence({ ledgerPath: path, onProgress: after(() => writeFileSync(path, edited)) });
    expect(rewritten).toMatchObject({ holds: false, defect: { code: 'root_mismatch' } });
    expect(rewritten.proof).toBeUndefined();

    writeFileSync(path, original);
    const cut = await proveEquivalence({ ledgerPath: path, onProgress: after(() => truncateSync(path, original.indexOf(10) + 1)) });
    expect(cut).toMatchObject({ holds: false, defect: { code: 'root_mismatch', seq: 1 } });
    expect(cut.proof).toBeUndefined();
  });
});

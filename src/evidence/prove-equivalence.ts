import { join } from 'node:path';
import * as z from 'zod';
import { SvcError } from '../errors.js';
import { decodeBase64Strict } from '../actionpass/keys.js';
import { isCanonicalText } from '../events/canonical.js';
import { checkRecord, type LedgerRecord } from '../events/catalogue.js';
import { ChainChecker } from '../events/chain-checker.js';
import type { Defect } from '../events/defects.js';
import { parseCheckpoint } from '../events/checkpoint.js';
import { InclusionProofCollector } from '../events/inclusion-proof-collector.js';
import { readLines } from '../events/line-reader.js';
import { hashLeaf, verifyInclusion } from '../events/merkle.js';
import { judgeExecution, type EquivalenceVerdict } from '../projections/equivalence.js';
import { evolve, initialState } from '../projections/state.js';
import { BUNDLE_CHECKPOINT, BUNDLE_LEDGER } from './bundle.js';
import { checkLedgerInput, lstatInput, type CheckpointFile } from './ledger-input.js';
import { runLedgerPass } from './ledger-pass.js';

export const PROOF_FORMAT = 'svc.equivalence-proof.v0';

/** A record of the ledger with its RFC 9162 inclusion proof against the checkpoint's root. */
export interface IncludedRecord {
  seq: number;
  /** The record's line, without `\n`. */
  line: string;
  /** Base64 sibling hashes, leaf to root. */
  proof: string[];
}

export interface EquivalenceItem {
  actionId: string;
  verdict: EquivalenceVerdict;
  /** The records the verdict is judged from, in seq order: the approval, the ActionPass, the execution. */
  records: IncludedRecord[];
}

export interface EquivalenceProof {
  format: typeof PROOF_FORMAT;
  origin: string;
  size: number;
  root: string;
  checkpoint: string;
  /** Record 0: binds the keys that signed the checkpoint to this ledger. */
  genesis: IncludedRecord;
  items: EquivalenceItem[];
}

export interface ProveOptions {
  ledgerPath?: string;
  exportDir?: string;
  actionId?: string;
  pinnedKey?: Buffer;
  onProgress?: (bytesRead: number, totalBytes: number) => void;
}

export interface ProveResult {
  holds: boolean;
  proof?: EquivalenceProof;
  verdicts: EquivalenceVerdict[];
  defect?: Defect;
  /** Executions after the newest signed checkpoint: they cannot be proven yet. */
  uncovered: string[];
}

/**
 * `svc prove-equivalence`: replays the ledger (the same pass and reducers as verify-export),
 * judges every execution, and packs each judged execution with the records it was judged from
 * and their inclusion proofs under a signed checkpoint, so the proof checks without the ledger.
 */
export async function proveEquivalence(options: ProveOptions): Promise<ProveResult> {
  const { ledgerPath, checkpointFile } = await proofInput(options);
  // Only the verdicts are kept from this pass: memory follows the executions judged, not the ledger.
  const verdicts: EquivalenceVerdict[] = [];
  const pass = await runLedgerPass(ledgerPath, {
    checkpointFile,
    ...(options.pinnedKey && { pinnedKey: options.pinnedKey }),
    ...(options.onProgress && { onProgress: options.onProgress }),
    onVerdict: (verdict) => {
      if (options.actionId !== undefined && verdict.actionId !== options.actionId) return;
      verdicts.push(verdict);
    },
  });
  if (pass.defect) return { holds: false, verdicts, defect: pass.defect, uncovered: [] };
  if (options.actionId !== undefined && verdicts.length === 0) throw new SvcError('action_not_found', `no execution of action ${options.actionId} in ${ledgerPath}`);

  // Both candidates are verified by now, and cover no more records than the ledger holds: the
  // in-band notes by the chain checks, the checkpoint file by the pass (else pass.defect).
  const checkpoint = newer(pass.checkpointFile, pass.checker.lastCheckpoint);
  const covered = checkpoint?.size ?? 0;
  const uncovered = verdicts.filter((verdict) => verdict.seq >= covered).map((verdict) => verdict.actionId);
  const holds = verdicts.every((verdict) => verdict.status !== 'violated') && uncovered.length === 0;
  if (!checkpoint || uncovered.length > 0) return { holds, verdicts, uncovered };

  const evidence = verdicts.map((verdict) => ({ verdict, seqs: evidenceSeqs(verdict) }));
  const included = await includeRecords(ledgerPath, checkpoint, [0, ...evidence.flatMap((item) => item.seqs)]);
  if ('code' in included) return { holds: false, verdicts, defect: included, uncovered: [] };
  const proof: EquivalenceProof = {
    format: PROOF_FORMAT,
    origin: pass.checker.origin ?? '',
    size: checkpoint.size,
    root: included.root.toString('base64'),
    checkpoint: checkpoint.note,
    genesis: included.record(0),
    items: evidence.map(({ verdict, seqs }) => ({ actionId: verdict.actionId, verdict, records: seqs.map(included.record) })),
  };
  return { holds, proof, verdicts, uncovered };
}

/**
 * The second read of the ledger, after the pass has verified it: records 0 .. size-1 streamed
 * once more, each leaf hash fed to an InclusionProofCollector, and only the wanted lines kept.
 * Memory follows the number of wanted records (times log2 size), not the ledger's length. The
 * recomputed root must be the checkpoint's: otherwise the file changed since it was verified.
 */
async function includeRecords(
  ledgerPath: string,
  checkpoint: { size: number; note: string },
  seqs: readonly number[],
): Promise<{ root: Buffer; record: (seq: number) => IncludedRecord } | Defect> {
  const { size } = checkpoint;
  const wanted = new Set(seqs);
  const collector = new InclusionProofCollector(size, wanted);
  const lines = new Map<number, string>();
  reading: for await (const chunk of readLines(ledgerPath)) {
    for (const line of chunk) {
      if (collector.size === size || !line.terminated) break reading;
      if (wanted.has(collector.size)) lines.set(collector.size, line.bytes.toString('utf8'));
      collector.append(hashLeaf(line.bytes));
    }
  }
  const changed = `${ledgerPath} changed while the proof was being made`;
  if (collector.size < size) return { code: 'root_mismatch', seq: collector.size, message: `${changed}: it now has ${collector.size} records, the checkpoint covers ${size}` };
  const root = collector.root();
  if (!root.equals(parseCheckpoint(checkpoint.note).root)) return { code: 'root_mismatch', message: `${changed}: its first ${size} records no longer have the checkpoint's root` };
  const record = (seq: number): IncludedRecord => {
    const line = lines.get(seq);
    if (line === undefined) throw new Error(`unreachable: record ${seq} was not collected`);
    return { seq, line, proof: collector.inclusionProof(seq).map((hash) => hash.toString('base64')) };
  };
  return { root, record };
}

/** The records a verdict depends on: approval request and grant, the ActionPass, the execution. */
function evidenceSeqs(verdict: EquivalenceVerdict): number[] {
  const seqs = [verdict.seq, verdict.passSeq, verdict.approvalRequestedSeq, verdict.approvalGrantedSeq].filter((seq): seq is number => seq !== undefined);
  return [...new Set(seqs)].sort((a, b) => a - b);
}

/**
 * The ledger to prove from and its signed checkpoint file: a bundle's `checkpoint` (which every
 * bundle has), or a live ledger's sidecar `<ledger>.checkpoint` when there is one.
 */
async function proofInput(options: ProveOptions): Promise<{ ledgerPath: string; checkpointFile: CheckpointFile | undefined }> {
  if (options.exportDir !== undefined) {
    await lstatInput(options.exportDir);
    const ledgerPath = join(options.exportDir, BUNDLE_LEDGER);
    const checkpointPath = join(options.exportDir, BUNDLE_CHECKPOINT);
    const checkpointFile = await checkLedgerInput(ledgerPath, checkpointPath);
    if (!checkpointFile) throw new SvcError('not_found', `${checkpointPath} does not exist: an export bundle holds the checkpoint signed for its records`);
    return { ledgerPath, checkpointFile };
  }
  if (!options.ledgerPath) throw new SvcError('usage', 'name a ledger (--ledger) or an export bundle (--export)');
  return { ledgerPath: options.ledgerPath, checkpointFile: await checkLedgerInput(options.ledgerPath) };
}

/** The checkpoint covering more records: the checkpoint file, or the last in-band checkpoint. */
function newer(file: { size: number; note: string } | undefined, inBand: { size: number; note: string } | undefined): { size: number; note: string } | undefined {
  if (!file || !inBand) return file ?? inBand;
  return file.size >= inBand.size ? file : inBand;
}

const includedSchema = z.strictObject({ seq: z.number().int().nonnegative(), line: z.string().max(1 << 20), proof: z.array(z.string().max(64)).max(64) });
const proofSchema = z.strictObject({
  format: z.literal(PROOF_FORMAT),
  origin: z.string(),
  size: z.number().int().positive(),
  root: z.string(),
  checkpoint: z.string().max(65_536),
  genesis: includedSchema,
  items: z.array(z.strictObject({ actionId: z.string(), verdict: z.looseObject({ status: z.string() }), records: z.array(includedSchema).min(1).max(16) })).max(1_000_000),
});

export interface ProofCheck {
  valid: boolean;
  holds: boolean;
  defect?: Defect;
  verdicts: EquivalenceVerdict[];
  keyPinned: boolean;
}

/**
 * `svc prove-equivalence --verify`: checks a proof without the ledger. Every record must be
 * included under the signed checkpoint; the genesis supplies the trusted key unless one is
 * pinned; and each verdict is judged again, by the runtime's own reducer, from its records alone.
 */
export function verifyEquivalenceProof(text: string, pinnedKey?: Buffer): ProofCheck {
  const keyPinned = pinnedKey !== undefined;
  const invalid = (defect: Defect): ProofCheck => ({ valid: false, holds: false, defect, verdicts: [], keyPinned });
  let parsed: z.infer<typeof proofSchema>;
  try {
    const result = proofSchema.safeParse(JSON.parse(text));
    if (!result.success) return invalid({ code: 'record_invalid', message: `not an equivalence proof: ${result.error.issues[0]?.path.join('.')}: ${result.error.issues[0]?.message}` });
    parsed = result.data;
  } catch {
    return invalid({ code: 'record_invalid', message: 'the proof is not JSON' });
  }
  const root = decodeBase64Strict(parsed.root);
  if (root?.length !== 32) return invalid({ code: 'root_mismatch', message: 'the proof root is not base64 of 32 bytes' });
  const parseIncluded = (included: z.infer<typeof includedSchema>): LedgerRecord | Defect => {
    const bytes = Buffer.from(included.line, 'utf8');
    const at = { seq: included.seq };
    if (!verifyInclusion(included.seq, parsed.size, hashLeaf(bytes), included.proof.map((hash) => Buffer.from(hash, 'base64')), root)) {
      return { code: 'root_mismatch', message: `record ${included.seq} is not included under the checkpoint root`, ...at };
    }
    let value: unknown;
    try {
      value = JSON.parse(included.line);
    } catch {
      return { code: 'not_canonical', message: 'record line is not JSON', ...at };
    }
    if (!isCanonicalText(included.line, value)) return { code: 'not_canonical', message: 'record line is not canonical', ...at };
    const checked = checkRecord(value);
    if (!checked.ok) return { code: 'record_invalid', message: checked.message, ...at };
    if (checked.record.seq !== included.seq) return { code: 'seq_gap', message: `line says seq ${checked.record.seq}`, ...at };
    return checked.record;
  };

  const genesis = parseIncluded(parsed.genesis);
  if ('code' in genesis) return invalid(genesis);
  const checker = new ChainChecker(pinnedKey);
  const genesisResult = checker.check({ offset: 0, bytes: Buffer.from(parsed.genesis.line, 'utf8'), terminated: true, oversized: false });
  if ('code' in genesisResult) return invalid(genesisResult);
  if (checker.origin !== parsed.origin) return invalid({ code: 'genesis_invalid', message: `the proof names origin ${parsed.origin}, its genesis says ${checker.origin ?? '(none)'}`, seq: 0 });
  const checkpointDefect = checker.verifyNote(parsed.checkpoint, parsed.size, root);
  if (checkpointDefect) return invalid(checkpointDefect);

  const verdicts: EquivalenceVerdict[] = [];
  for (const item of parsed.items) {
    const state = initialState();
    let judged: EquivalenceVerdict | undefined;
    let previousSeq = -1;
    for (const included of item.records) {
      const record = parseIncluded(included);
      if ('code' in record) return invalid(record);
      if (record.seq <= previousSeq) return invalid({ code: 'seq_gap', message: 'proof records are not in seq order', seq: record.seq });
      previousSeq = record.seq;
      if (record.type === 'execution.completed' || record.type === 'execution.blocked') judged = judgeExecution(state, record);
      evolve(state, record);
    }
    if (!judged || judged.actionId !== item.actionId) return invalid({ code: 'equivalence_mismatch', message: `item for ${item.actionId} has no execution record of that action` });
    if (judged.status !== item.verdict.status) {
      return invalid({ code: 'equivalence_mismatch', message: `the proof claims ${item.verdict.status} for ${item.actionId}, its records say ${judged.status}`, seq: judged.seq });
    }
    verdicts.push(judged);
  }
  return { valid: true, holds: verdicts.every((verdict) => verdict.status !== 'violated'), verdicts, keyPinned };
}

import { stat } from 'node:fs/promises';
import { ChainChecker, isDefect, type CheckedRecord } from '../events/chain-checker.js';
import { parseCheckpoint } from '../events/checkpoint.js';
import type { Defect } from '../events/defects.js';
import { classifyDefect } from '../events/ledger-scan.js';
import { readLines } from '../events/line-reader.js';
import type { EquivalenceVerdict } from '../projections/equivalence.js';
import { Replay, type ProjectionSink } from '../projections/replay.js';
import type { CheckpointFile } from './ledger-input.js';

export interface LedgerPassOptions {
  /** The key an outside party pins; without it the genesis keys are trusted. */
  pinnedKey?: Buffer;
  /** Projection sinks fed by the replay (only the views named here are computed). */
  sinks?: Partial<Record<string, ProjectionSink>>;
  /**
   * A defect that an interrupted append explains (docs/ledger-format.md 7.5: a torn last line, or
   * zero-filled pages of the last unsynced batches) is reported in `tornTail` instead of failing.
   */
  tolerateTornTail?: boolean;
  onRecords?: (records: readonly CheckedRecord[], lineBytes: readonly Buffer[]) => void;
  onVerdict?: (verdict: EquivalenceVerdict) => void;
  onProgress?: (bytesRead: number, totalBytes: number) => void;
  /** Read no further than this offset: a snapshot of a file that may still grow. */
  end?: number;
  /**
   * The ledger's signed checkpoint file, from checkLedgerInput. Its note must verify over the
   * records it covers, and the ledger must hold at least that many valid records: the file may lag
   * the ledger (the writer rewrites it after each in-band checkpoint), never lead it.
   */
  checkpointFile?: CheckpointFile | undefined;
}

export interface LedgerPassResult {
  checker: ChainChecker;
  replay: Replay;
  defect?: Defect;
  tornTail?: Defect;
  verdicts: { equivalent: number; blocked: number; violated: number };
  /** The checkpoint file of the options with the size it covers, once verified against the records. */
  checkpointFile?: SizedCheckpointFile;
}

export interface SizedCheckpointFile {
  path: string;
  note: string;
  size: number;
}

/**
 * One streaming pass over a ledger file on this thread: the chain checks of ChainChecker, the
 * replay of the requested projections and the equivalence verdict of every execution, in memory
 * that does not grow with the file. Export, prove-equivalence and replay use it; verify-export
 * splits the same work across two threads (chain-pass.ts, replay-pass.ts).
 */
export async function runLedgerPass(path: string, options: LedgerPassOptions = {}): Promise<LedgerPassResult> {
  const checker = new ChainChecker(options.pinnedKey);
  const replay = new Replay(options.sinks ?? {}, options.onVerdict);
  // As the writer and verify-export do, a checkpoint file that is not a note refuses the ledger before a line is read.
  const checkpoint = options.checkpointFile && parseCheckpointFile(options.checkpointFile);
  if (checkpoint && 'code' in checkpoint) return { checker, replay, verdicts: replay.verdicts, defect: checkpoint };
  let rootAtCheckpoint = checkpoint?.size === 0 ? checker.tree.root() : undefined;
  let validBytes = 0;
  let bytesRead = 0;
  let defect: Defect | undefined;
  let tornTailDefect: Defect | undefined;
  const fileSize = options.end ?? (await stat(path)).size;

  for await (const lines of readLines(path, { end: fileSize, onChunk: (chunk) => (bytesRead += chunk.length) })) {
    const accepted: CheckedRecord[] = [];
    const acceptedBytes: Buffer[] = [];
    for (const line of lines) {
      const result = checker.check(line);
      if (isDefect(result)) {
        // The writer's own rule: a cut or zero-filled end that only an interrupted append explains.
        const classified = options.tolerateTornTail ? await classifyDefect(path, line, result, checker, fileSize) : result;
        if ('code' in classified) defect = classified;
        else tornTailDefect = result;
        break;
      }
      accepted.push(result);
      acceptedBytes.push(line.bytes);
      validBytes = result.offset + result.length;
      if (checker.size === checkpoint?.size) rootAtCheckpoint = checker.tree.root();
    }
    replay.apply(accepted);
    options.onRecords?.(accepted, acceptedBytes);
    options.onProgress?.(bytesRead, fileSize);
    if (defect || tornTailDefect) break;
  }
  if (!tornTailDefect) defect ??= checker.checkEnd();
  if (checkpoint) defect ??= checkAgainstCheckpoint(checker, checkpoint, rootAtCheckpoint, validBytes);
  if (!defect) replay.finish();
  return { checker, replay, verdicts: replay.verdicts, ...(defect && { defect }), ...(tornTailDefect && { tornTail: tornTailDefect }), ...(checkpoint && !defect && { checkpointFile: checkpoint }) };
}

function parseCheckpointFile(file: CheckpointFile): SizedCheckpointFile | Defect {
  const refused = (why: string): Defect => ({ code: 'checkpoint_signature_invalid', message: `checkpoint file ${file.path} ${why}`, file: file.path });
  if ('problem' in file) return refused(`${file.problem}, not a signed note`);
  try {
    return { ...file, size: parseCheckpoint(file.note).size };
  } catch (error) {
    return refused(`is not a valid checkpoint note: ${(error as Error).message}`);
  }
}

/** The checkpoint file against the valid records read; the codes and wording are the writer's (ledger-scan.ts). */
function checkAgainstCheckpoint(checker: ChainChecker, checkpoint: SizedCheckpointFile, rootAtSize: Buffer | undefined, validBytes: number): Defect | undefined {
  if (rootAtSize === undefined) {
    return { code: 'root_mismatch', seq: checker.size, offset: validBytes, message: `the ledger has ${checker.size} valid records but its checkpoint file ${checkpoint.path} covers ${checkpoint.size}: records were lost or removed` };
  }
  const defect = checker.verifyNote(checkpoint.note, checkpoint.size, rootAtSize);
  return defect && { ...defect, file: checkpoint.path };
}

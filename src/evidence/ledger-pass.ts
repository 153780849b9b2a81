import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { tornTail } from '../events/ledger-scan.js';
import { ChainChecker, isDefect, type CheckedRecord } from '../events/chain-checker.js';
import type { Defect } from '../events/defects.js';
import { readLines } from '../events/line-reader.js';
import { judgeExecution, type EquivalenceVerdict } from '../projections/equivalence.js';
import { Replay, type ProjectionSink } from '../projections/replay.js';

export interface LedgerPassOptions {
  /** The key an outside party pins; without it the genesis keys are trusted. */
  pinnedKey?: Buffer;
  /** Projection sinks fed by the replay (only the views named here are computed). */
  sinks?: Partial<Record<string, ProjectionSink>>;
  /** Stop at the first execution whose equivalence pair does not hold. */
  failOnViolation?: boolean;
  /** A final defect that an interrupted append explains is reported in `tornTail` instead of failing. */
  tolerateTornTail?: boolean;
  onRecords?: (records: readonly CheckedRecord[], lineBytes: readonly Buffer[]) => void;
  onVerdict?: (verdict: EquivalenceVerdict) => void;
  onProgress?: (bytesRead: number, totalBytes: number) => void;
  /** Read no further than this offset. */
  end?: number;
  /** Also return the Merkle root of the first `rootAtSize` records (to check an older checkpoint). */
  rootAtSize?: number;
}

export interface LedgerPassResult {
  checker: ChainChecker;
  replay: Replay;
  defect?: Defect;
  tornTail?: Defect;
  /** sha256 hex of all bytes read. */
  fileDigest: string;
  validBytes: number;
  totalBytes: number;
  verdicts: { equivalent: number; blocked: number; violated: number };
  /** The Merkle root at `rootAtSize`, when the ledger reached that size. */
  rootAtSize?: Buffer;
}

/**
 * One streaming pass over a ledger file: the chain checks of ChainChecker, the replay of every
 * requested projection and the equivalence verdict of every execution, in one read, in memory
 * that does not grow with the file. Export, verify-export, prove-equivalence and replay all use it.
 */
export async function runLedgerPass(path: string, options: LedgerPassOptions = {}): Promise<LedgerPassResult> {
  const checker = new ChainChecker(options.pinnedKey);
  const replay = new Replay(options.sinks ?? {});
  const fileHash = createHash('sha256');
  const verdicts = { equivalent: 0, blocked: 0, violated: 0 };
  let validBytes = 0;
  let totalBytes = 0;
  let rootAtSize = options.rootAtSize === 0 ? checker.tree.root() : undefined;
  let defect: Defect | undefined;
  let tornTailDefect: Defect | undefined;
  const fileSize = options.end ?? (await stat(path)).size;

  outer: for await (const lines of readLines(path, {
    end: fileSize,
    onChunk: (chunk) => {
      fileHash.update(chunk);
      totalBytes += chunk.length;
    },
  })) {
    const accepted: CheckedRecord[] = [];
    const acceptedBytes: Buffer[] = [];
    let unreplayed = 0;
    for (const line of lines) {
      const result = checker.check(line);
      if (isDefect(result)) {
        if (options.tolerateTornTail && tornTail(line, fileSize)) tornTailDefect = result;
        else defect = result;
        break;
      }
      if (result.record.type === 'execution.completed' || result.record.type === 'execution.blocked') {
        // Judged against the state before this record, as the replay's views are.
        replay.apply(accepted.slice(unreplayed));
        unreplayed = accepted.length;
        const verdict = judgeExecution(replay.state, result.record);
        verdicts[verdict.status] += 1;
        options.onVerdict?.(verdict);
        if (verdict.status === 'violated' && options.failOnViolation) {
          defect = { code: 'equivalence_mismatch', seq: result.record.seq, offset: result.offset, message: `action ${verdict.actionId}: ${verdict.problem ?? 'pair does not hold'}` };
          break;
        }
      }
      accepted.push(result);
      acceptedBytes.push(line.bytes);
      if (checker.size === options.rootAtSize) rootAtSize = checker.tree.root();
      validBytes += result.length;
    }
    replay.apply(accepted.slice(unreplayed));
    options.onRecords?.(accepted, acceptedBytes);
    options.onProgress?.(totalBytes, fileSize);
    if (defect || tornTailDefect) break outer;
  }
  if (!defect && !tornTailDefect && checker.size === 0) defect = { code: 'genesis_invalid', seq: 0, offset: 0, message: 'the ledger has no records: every ledger starts with a genesis record' };
  if (!defect) replay.finish();
  const result: LedgerPassResult = { checker, replay, fileDigest: fileHash.digest('hex'), validBytes, totalBytes, verdicts };
  if (defect) result.defect = defect;
  if (tornTailDefect) result.tornTail = tornTailDefect;
  if (rootAtSize) result.rootAtSize = rootAtSize;
  return result;
}

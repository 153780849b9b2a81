import { stat } from 'node:fs/promises';
import { ChainChecker, isDefect, type CheckedRecord } from '../events/chain-checker.js';
import type { Defect } from '../events/defects.js';
import { tornTail } from '../events/ledger-scan.js';
import { readLines } from '../events/line-reader.js';
import type { EquivalenceVerdict } from '../projections/equivalence.js';
import { Replay, type ProjectionSink } from '../projections/replay.js';

export interface LedgerPassOptions {
  /** The key an outside party pins; without it the genesis keys are trusted. */
  pinnedKey?: Buffer;
  /** Projection sinks fed by the replay (only the views named here are computed). */
  sinks?: Partial<Record<string, ProjectionSink>>;
  /** A final defect that an interrupted append explains is reported in `tornTail` instead of failing. */
  tolerateTornTail?: boolean;
  onRecords?: (records: readonly CheckedRecord[], lineBytes: readonly Buffer[]) => void;
  onVerdict?: (verdict: EquivalenceVerdict) => void;
  onProgress?: (bytesRead: number, totalBytes: number) => void;
  /** Read no further than this offset: a snapshot of a file that may still grow. */
  end?: number;
}

export interface LedgerPassResult {
  checker: ChainChecker;
  replay: Replay;
  defect?: Defect;
  tornTail?: Defect;
  verdicts: { equivalent: number; blocked: number; violated: number };
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
        if (options.tolerateTornTail && tornTail(line, fileSize)) tornTailDefect = result;
        else defect = result;
        break;
      }
      accepted.push(result);
      acceptedBytes.push(line.bytes);
    }
    replay.apply(accepted);
    options.onRecords?.(accepted, acceptedBytes);
    options.onProgress?.(bytesRead, fileSize);
    if (defect || tornTailDefect) break;
  }
  if (!tornTailDefect) defect ??= checker.checkEnd();
  if (!defect) replay.finish();
  return { checker, replay, verdicts: replay.verdicts, ...(defect && { defect }), ...(tornTailDefect && { tornTail: tornTailDefect }) };
}

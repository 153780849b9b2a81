import type { LedgerRecord } from '../events/catalogue.js';
import type { CheckedRecord } from '../events/chain-checker.js';
import { readLines } from '../events/line-reader.js';
import { hashLeaf } from '../events/merkle.js';
import { judgeExecution, type EquivalenceVerdict } from '../projections/equivalence.js';
import { Replay, type ProjectionSink } from '../projections/replay.js';

export interface ReplayPassResult {
  replay: Replay;
  verdicts: { equivalent: number; blocked: number; violated: number };
  /** The first execution whose equivalence pair does not hold. */
  violation?: { verdict: EquivalenceVerdict; offset: number };
  /** Set when a line could not be replayed; the chain pass then reports a defect at or before it. */
  stoppedAt?: number;
}

/**
 * Replays the projections over a ledger's lines without checking them: it runs beside the chain
 * pass, and its output counts only when that pass finds the ledger valid (every line is then a
 * catalogue record, and JSON.parse yields exactly the record the checks accepted).
 */
export async function runReplayPass(path: string, options: { end: number; sinks: Partial<Record<string, ProjectionSink>>; onProgress?: (bytesRead: number, totalBytes: number) => void }): Promise<ReplayPassResult> {
  const replay = new Replay(options.sinks);
  const verdicts = { equivalent: 0, blocked: 0, violated: 0 };
  let violation: ReplayPassResult['violation'];
  let bytesRead = 0;
  const onChunk = (chunk: Buffer) => {
    bytesRead += chunk.length;
    options.onProgress?.(bytesRead, options.end);
  };
  for await (const lines of readLines(path, { end: options.end, onChunk })) {
    const batch: CheckedRecord[] = [];
    for (const line of lines) {
      let record: LedgerRecord;
      try {
        if (!line.terminated) return { replay, verdicts, ...(violation && { violation }), stoppedAt: line.offset };
        record = JSON.parse(line.bytes.toString('utf8')) as LedgerRecord;
        if (record.type === 'execution.completed' || record.type === 'execution.blocked') {
          replay.apply(batch.splice(0));
          const verdict = judgeExecution(replay.state, record);
          verdicts[verdict.status] += 1;
          if (verdict.status === 'violated' && !violation) violation = { verdict, offset: line.offset };
        }
      } catch {
        return { replay, verdicts, ...(violation && { violation }), stoppedAt: line.offset };
      }
      batch.push({ record, offset: line.offset, length: line.bytes.length + 1, leafHash: hashLeaf(line.bytes) });
    }
    try {
      replay.apply(batch);
    } catch {
      return { replay, verdicts, ...(violation && { violation }), stoppedAt: batch[0]?.offset ?? 0 };
    }
  }
  replay.finish();
  return { replay, verdicts, ...(violation && { violation }) };
}

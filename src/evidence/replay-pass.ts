import type { LedgerRecord } from '../events/catalogue.js';
import type { CheckedRecord } from '../events/chain-checker.js';
import { readLines } from '../events/line-reader.js';
import { hashLeaf } from '../events/merkle.js';
import type { EquivalenceVerdict } from '../projections/equivalence.js';
import { Replay, type ProjectionSink } from '../projections/replay.js';
import { HashSink } from './hash-sink.js';
import { runOnWorker, type Progress } from './worker.js';

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
export async function runReplayPass(path: string, options: { end: number; chunkBytes?: number; sinks: Partial<Record<string, ProjectionSink>>; onProgress?: (bytesRead: number, totalBytes: number) => void }): Promise<ReplayPassResult> {
  let violation: ReplayPassResult['violation'];
  const replay = new Replay(options.sinks, (verdict, checked) => {
    if (verdict.status === 'violated' && !violation) violation = { verdict, offset: checked.offset };
  });
  const stopped = (offset: number): ReplayPassResult => ({ replay, verdicts: replay.verdicts, ...(violation && { violation }), stoppedAt: offset });
  let bytesRead = 0;
  const onChunk = (chunk: Buffer) => {
    bytesRead += chunk.length;
    options.onProgress?.(bytesRead, options.end);
  };
  // Each chunk read is one batch of the replay.
  for await (const lines of readLines(path, { end: options.end, onChunk, ...(options.chunkBytes !== undefined && { chunkBytes: options.chunkBytes }) })) {
    const batch: CheckedRecord[] = [];
    for (const line of lines) {
      if (!line.terminated) return stopped(line.offset);
      let record: LedgerRecord;
      try {
        record = JSON.parse(line.bytes.toString('utf8')) as LedgerRecord;
      } catch {
        return stopped(line.offset);
      }
      batch.push({ record, offset: line.offset, length: line.bytes.length + 1, leafHash: hashLeaf(line.bytes) });
    }
    try {
      replay.apply(batch);
    } catch {
      return stopped(batch[0]?.offset ?? 0);
    }
  }
  replay.finish();
  return { replay, verdicts: replay.verdicts, ...(violation && { violation }) };
}

export interface ReplayDigestOptions {
  end: number;
  /** The projection files to replay and digest. */
  projections: string[];
  /** Read size in bytes, hence replay batch size (tests vary it; see VerifyOptions.chunkBytes). */
  chunkBytes?: number;
}

/** What verification needs from a replay, as plain data that can cross threads. */
export interface ReplayDigest {
  digests: Record<string, string>;
  verdicts: ReplayPassResult['verdicts'];
  violation?: ReplayPassResult['violation'];
  stoppedAt?: number;
}

/** Replays the named projections into sha256 digests. */
export async function digestReplayPass(path: string, options: ReplayDigestOptions, onProgress?: Progress): Promise<ReplayDigest> {
  const sinks = new Map(options.projections.map((file) => [file, new HashSink()]));
  const result = await runReplayPass(path, { end: options.end, ...(options.chunkBytes !== undefined && { chunkBytes: options.chunkBytes }), sinks: Object.fromEntries([...sinks].map(([file, sink]) => [file, (line: string) => sink.write(line)])), ...(onProgress && { onProgress }) });
  return {
    digests: Object.fromEntries([...sinks].map(([file, sink]) => [file, sink.digest()])),
    verdicts: result.verdicts,
    ...(result.violation && { violation: result.violation }),
    ...(result.stoppedAt !== undefined && { stoppedAt: result.stoppedAt }),
  };
}

/**
 * The replay on a worker thread, so the verifying process holds two small heaps instead of one
 * heap that grows with the replay's allocation rate.
 */
export function digestReplayPassInWorker(path: string, options: ReplayDigestOptions, onProgress?: Progress): Promise<ReplayDigest> {
  return runOnWorker(new URL('./replay-pass-worker.js', import.meta.url), { path, options }, { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 }, () => digestReplayPass(path, options, onProgress), onProgress);
}

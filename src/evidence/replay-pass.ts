import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { isSha256Text, toSha256 } from '../events/canonical.js';
import { checkParsedRecordButPrevHash, type LedgerRecord } from '../events/catalogue.js';
import type { CheckedRecord } from '../events/chain-checker.js';
import type { Defect } from '../events/defects.js';
import { readLines, type RawLine } from '../events/line-reader.js';
import { hashLeaf } from '../events/merkle.js';
import type { EquivalenceVerdict } from '../projections/equivalence.js';
import { Replay, type ByteProjectionSink, type ProjectionSink } from '../projections/replay.js';
import { HashSink } from './hash-sink.js';
import { SlotReader, sinkSlotMemory } from './sink-slots.js';
import { runOnWorker, type Progress } from './worker.js';

export interface ReplayPassResult {
  replay: Replay;
  verdicts: { equivalent: number; blocked: number; violated: number };
  /** The first execution whose equivalence pair does not hold. */
  violation?: { verdict: EquivalenceVerdict; offset: number };
  /** Set when a line could not be replayed; the chain pass then reports a defect at or before it. */
  stoppedAt?: number;
  /** With `checkRecords`: the first line that is not JSON or not a record of the catalogue. */
  recordDefect?: Defect;
}

export interface ReplayPassOptions {
  end: number;
  chunkBytes?: number;
  sinks: Partial<Record<string, ProjectionSink>>;
  onProgress?: (bytesRead: number, totalBytes: number) => void;
  /**
   * Also run the record checks of every line (valid JSON, a record of the catalogue), with the
   * verdicts and messages of ChainChecker.check, for a chain pass that leaves them to this pass
   * (ChainChecker.checkDeferringRecord): this pass parses every line anyway. The form of prevHash
   * is left to that chain pass, which checks it on every line.
   */
  checkRecords?: boolean;
}

/**
 * Replays the projections over a ledger's lines without checking them: it runs beside the chain
 * pass, and its output counts only when that pass finds the ledger valid (every line is then a
 * catalogue record, and JSON.parse yields exactly the record the checks accepted).
 *
 * Two consequences of that premise save work on every record. A record's hash is the `prevHash`
 * of the record after it, so only the last line of each read is hashed here, and none when no
 * view replayed here reads leaf hashes. And each record is replayed as soon as it is parsed, so it
 * dies young instead of outliving a whole read in a batch.
 */
export async function runReplayPass(path: string, options: ReplayPassOptions): Promise<ReplayPassResult> {
  let violation: ReplayPassResult['violation'];
  const replay = new Replay(options.sinks, (verdict, checked) => {
    if (verdict.status === 'violated' && !violation) violation = { verdict, offset: checked.offset };
  });
  let stoppedAt: number | undefined;
  const stopped = (offset: number, recordDefect?: Defect): ReplayPassResult => ({ replay, verdicts: replay.verdicts, ...(violation && { violation }), stoppedAt: stoppedAt ?? offset, ...(recordDefect && { recordDefect }) });
  let bytesRead = 0;
  const onChunk = (chunk: Buffer) => {
    bytesRead += chunk.length;
    options.onProgress?.(bytesRead, options.end);
  };
  const needsRecordHashes = replay.needsRecordHashes;
  const checkRecords = options.checkRecords === true;
  // The seq a record defect is reported at: the number of lines before it, which all passed.
  let lineIndex = 0;
  for await (const lines of readLines(path, { end: options.end, reuseBuffer: true, onChunk, ...(options.chunkBytes !== undefined && { chunkBytes: options.chunkBytes }) })) {
    // Replay stops at the first line it cannot replay, keeping every verdict before it: those
    // records come first in seq order, so a violation among them is the first defect whatever
    // the chain checks find from that line on, and how the file was split into reads must not
    // change which defect is reported. The record checks, when asked for, go on past a line
    // that could not be replayed (no valid record should be one), up to the first record defect.
    let checked = parseLine(lines[0]);
    for (let index = 0; index < lines.length; index += 1, lineIndex += 1) {
      const line = lines[index] as RawLine;
      if (checked === undefined) {
        // An unterminated or oversized line is the chain pass's to report.
        return stopped(line.offset, checkRecords && line.terminated ? { code: 'not_canonical', message: 'line is not JSON', seq: lineIndex, offset: line.offset } : undefined);
      }
      if (checkRecords) {
        // The chain pass checks each prevHash against the previous record's hash, and that it is
        // a sha256 text, on every line (checkParsedRecordButPrevHash says how): not twice here.
        const verdict = checkParsedRecordButPrevHash(checked.record);
        // As ChainChecker.check words it: record 0 that is no record is no genesis.
        if (!verdict.ok) return stopped(line.offset, { code: lineIndex === 0 ? 'genesis_invalid' : 'record_invalid', message: verdict.message, seq: lineIndex, offset: line.offset });
      }
      const next = lines[index + 1];
      const following = next === undefined ? undefined : parseLine(next);
      if (stoppedAt === undefined) {
        if (needsRecordHashes) checked.recordHash = following === undefined ? toSha256(hashLeaf(line.bytes)) : recordHashNamedBy(following.record, line.bytes);
        try {
          replay.apply([checked]);
        } catch {
          if (!checkRecords) return stopped(line.offset);
          stoppedAt = line.offset;
        }
      }
      checked = following;
    }
  }
  if (stoppedAt !== undefined) return stopped(stoppedAt);
  replay.finish();
  return { replay, verdicts: replay.verdicts, ...(violation && { violation }) };
}

/** A terminated line parsed as JSON, its leaf hash still to be filled in; undefined when it cannot be replayed. */
function parseLine(line: RawLine | undefined): CheckedRecord | undefined {
  if (line === undefined || !line.terminated) return undefined;
  try {
    // An ASCII line (nearly every one) is the same text decoded as latin1, a plain copy, where
    // UTF-8 decoding first checks every byte; the chain checks decode their lines the same way.
    const bytes = line.bytes;
    const record = JSON.parse(isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8')) as LedgerRecord;
    return { record, offset: line.offset, length: line.bytes.length + 1, leafHash: NO_HASH };
  } catch {
    return undefined;
  }
}

const NO_HASH = Buffer.alloc(0);

/**
 * The leaf hash of `bytes` as the record after them names it in its prevHash: the very text a
 * view writes, so it is passed on as it stands. When it names none (it is no record, or its
 * prevHash is no hash), the chain checks fail there, and `bytes` are hashed instead only so that
 * the replay goes on as it did.
 */
function recordHashNamedBy(nextRecord: unknown, bytes: Buffer): string {
  const prevHash = typeof nextRecord === 'object' && nextRecord !== null ? (nextRecord as { prevHash?: unknown }).prevHash : undefined;
  return typeof prevHash === 'string' && isSha256Text(prevHash) ? prevHash : toSha256(hashLeaf(bytes));
}

export interface ReplayDigestOptions {
  end: number;
  /** The projection files to replay and digest. */
  projections: string[];
  /** Read size in bytes, hence replay batch size (tests vary it; see VerifyOptions.chunkBytes). */
  chunkBytes?: number;
  /** See ReplayPassOptions.checkRecords. */
  checkRecords?: boolean;
}

/** What verification needs from a replay, as plain data that can cross threads. */
export interface ReplayDigest {
  digests: Record<string, string>;
  /** The byte length of each replayed projection. */
  lengths: Record<string, number>;
  verdicts: ReplayPassResult['verdicts'];
  violation?: ReplayPassResult['violation'];
  stoppedAt?: number;
  recordDefect?: Defect;
}

/** Replays the named projections into sha256 digests. */
export async function digestReplayPass(path: string, options: ReplayDigestOptions, onProgress?: Progress): Promise<ReplayDigest> {
  const sinks = new Map(options.projections.map((file) => [file, new HashSink()]));
  const replayed = await replayIntoSinks(path, options, sinks, onProgress);
  return { digests: Object.fromEntries([...sinks].map(([file, sink]) => [file, sink.digest()])), ...replayed };
}

/** A ReplayDigest without its digests: the projection bytes were handed off, to be hashed by whoever took them. */
export type HandedOffReplay = Omit<ReplayDigest, 'digests'> & { handedOff: true };

/**
 * The replay, handing each projection's bytes to `pass` in pieces, in order, instead of hashing
 * them (on the replay worker, whose thread is verification's slower one, so that the main thread
 * hashes). Buffers come from `fresh`, which must give SINK_BUFFER_BYTES bytes no one else uses.
 */
export async function handOffReplayPass(path: string, options: ReplayDigestOptions, pass: (file: string, bytes: Buffer) => void, fresh: () => Buffer, onProgress?: Progress): Promise<HandedOffReplay> {
  const sinks = new Map(options.projections.map((file) => [file, new HashSink({ pass: (bytes) => pass(file, bytes), fresh })]));
  const replayed = await replayIntoSinks(path, options, sinks, onProgress);
  for (const sink of sinks.values()) sink.end();
  return { ...replayed, handedOff: true };
}

async function replayIntoSinks(path: string, options: ReplayDigestOptions, sinks: Map<string, HashSink>, onProgress?: Progress): Promise<Omit<ReplayDigest, 'digests'>> {
  const result = await runReplayPass(path, { end: options.end, ...(options.chunkBytes !== undefined && { chunkBytes: options.chunkBytes }), ...(options.checkRecords && { checkRecords: true }), sinks: Object.fromEntries([...sinks].map(([file, sink]) => [file, byteSinkOf(sink)])), ...(onProgress && { onProgress }) });
  return {
    lengths: Object.fromEntries([...sinks].map(([file, sink]) => [file, sink.length])),
    verdicts: result.verdicts,
    ...(result.violation && { violation: result.violation }),
    ...(result.stoppedAt !== undefined && { stoppedAt: result.stoppedAt }),
    ...(result.recordDefect && { recordDefect: result.recordDefect }),
  };
}

/** A HashSink as the replay's sink, taking rows built as bytes as they are. */
function byteSinkOf(sink: HashSink): ByteProjectionSink {
  return Object.assign((line: string) => sink.write(line), { writeBytes: (bytes: Uint8Array) => sink.writeBytes(bytes), writeLine: (text: string) => sink.writeLine(text) });
}

/** A piece of a projection's bytes as the replay worker posts it: the shared slot it filled (see sink-slots.ts) and how far. */
export interface ProjectionPiece {
  file: string;
  slot: number;
  length: number;
}

/** A piece the replay worker posted, checked for its shape: it crossed a thread boundary as unknown. */
function isProjectionPiece(data: unknown): data is ProjectionPiece {
  if (typeof data !== 'object' || data === null) return false;
  const piece = data as Partial<Record<keyof ProjectionPiece, unknown>>;
  return typeof piece.file === 'string' && typeof piece.slot === 'number' && typeof piece.length === 'number';
}

/**
 * The replay worker's heap. It allocates about 7 KB per record (the parsed record, its rows as
 * strings), nearly all of it dead by the next record, and each young-generation collection costs a
 * fixed part plus promoting what is live at that moment (the read's lines, open actions), which
 * the full collections then sweep. Over 200k records a young generation of 32 MB collects 124
 * times and runs 7 full collections where one of 16 MB collected 201 times and ran 22 (48 MB: 119
 * and 6, for 8 MB more peak RSS than 32 MB).
 */
const REPLAY_WORKER_HEAP = { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 32 };

/**
 * The replay worker's heap for a bare ledger (record checks, no projections): there this thread
 * has time to spare, the chain thread none, so its young generation stays small and leaves the
 * memory to the chain thread's (runChainPassInWorker).
 */
const BARE_REPLAY_WORKER_HEAP = { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 };

/**
 * Where the main thread puts a projection's bytes as the replay worker hands them off, in order,
 * and the sha256 hex of them all in the end: a hash, or something that also does more with them.
 */
export interface ReplayedBytesReceiver {
  update(bytes: Uint8Array): void;
  digest(): string;
}

function sha256Receiver(): ReplayedBytesReceiver {
  const hash = createHash('sha256');
  return { update: (bytes) => hash.update(bytes), digest: () => hash.digest('hex') };
}

/**
 * The replay on a worker thread, so the verifying process holds two small heaps instead of one
 * heap that grows with the replay's allocation rate. `receiverFor` gives each projection's
 * receiver (a sha256 hash unless given); where the replay falls back to this thread, the digests
 * are that replay's own and the receivers' digests are not asked for.
 */
export async function digestReplayPassInWorker(path: string, options: ReplayDigestOptions, onProgress?: Progress, receiverFor: (file: string) => ReplayedBytesReceiver = sha256Receiver): Promise<ReplayDigest> {
  // The worker fills slots of shared memory with its projection bytes (handOffReplayPass) and
  // the receivers take them here, on a thread otherwise idle: hashing them was about a tenth of
  // the replay thread's work, and the wall time follows that thread.
  const slots = sinkSlotMemory();
  const reader = new SlotReader(slots);
  const receivers = new Map(options.projections.map((file) => [file, receiverFor(file)]));
  // Thrown from the message handler it would be uncaught: kept, and thrown with the result.
  let unexpected: Error | undefined;
  const onData = (data: unknown): void => {
    if (!isProjectionPiece(data)) {
      unexpected ??= new TypeError('the replay worker posted something other than a piece of a projection');
      return;
    }
    try {
      const receiver = receivers.get(data.file);
      const bytes = reader.bytes(data.slot, data.length);
      if (receiver === undefined || bytes === undefined) unexpected ??= new RangeError(`the replay worker posted a piece of ${data.file} that it was not asked to replay, or outside its slots`);
      else receiver.update(bytes);
    } finally {
      // Whatever came of it, the worker may be waiting for this slot.
      reader.free(data.slot);
    }
  };
  const result = await runOnWorker<ReplayDigest | HandedOffReplay>(new URL('./replay-pass-worker.js', import.meta.url), { path, options, slots }, options.checkRecords && options.projections.length === 0 ? BARE_REPLAY_WORKER_HEAP : REPLAY_WORKER_HEAP, () => digestReplayPass(path, options, onProgress), onProgress, onData);
  // Without handedOff the result came from digestReplayPass in this thread (no worker script, or
  // the worker ran out of memory): its digests are its own, and whatever the worker posted is moot.
  if (!('handedOff' in result)) return result;
  if (unexpected) throw unexpected;
  const { handedOff: _handedOff, ...replayed } = result;
  return { digests: Object.fromEntries([...receivers].map(([file, receiver]) => [file, receiver.digest()])), ...replayed };
}

import { createHash } from 'node:crypto';
import { ChainChecker, type LedgerIdentity } from '../events/chain-checker.js';
import type { Defect } from '../events/defects.js';
import { readLines } from '../events/line-reader.js';
import { runOnWorker } from './worker.js';

export interface ChainPassOptions {
  /** Read no further than this offset: both passes over one ledger must see the same bytes. */
  end: number;
  /** The pinned ledger key, base64 (plain data, so the options can cross to a worker). */
  pinnedKey?: string;
  /** Also return the Merkle root of the first `rootAtSize` records. */
  rootAtSize?: number;
  /** Also hash the file (a bundle's attestation names its ledger's digest; a bare ledger has none to check). */
  fileDigest?: boolean;
  /** Read size in bytes (tests vary it; see VerifyOptions.chunkBytes). */
  chunkBytes?: number;
  /** On a worker thread: the replay beside this pass is the slower one, so this one yields the core to it (yieldToSlowerPass). */
  background?: boolean;
}

/** Everything verification needs from the chain checks, as plain data that can cross threads. */
export interface ChainSummary {
  defect?: Defect;
  /**
   * Set when the line of `defect` had its record checks left to the replay pass: a record defect
   * that pass finds in the same line comes first.
   */
  defectBeforeRecordChecks?: true;
  size: number;
  origin?: string;
  keys: { name: string; publicKey: string }[];
  /** Base64 Merkle root of all valid records. */
  root: string;
  rootAtSize?: string;
  checkpoints: number;
  lastCheckpointSeq: number;
  /** The seq of every in-band checkpoint accepted, for `chainBefore`. */
  checkpointSeqs: number[];
  /** sha256 hex of the bytes read, when asked for. */
  fileDigest?: string;
}

/**
 * The chain checks of a ledger (ChainChecker over every line, the file digest, the Merkle root)
 * without any replay. Verification runs this on a worker thread while another replays the
 * projections over the same bytes, so the two halves of the work use both cores. The record
 * checks of ordinary lines (valid JSON, a record of the catalogue) are left to that replay pass,
 * which parses every line anyway (ChainChecker.checkDeferringRecord).
 */
export async function runChainPass(path: string, options: ChainPassOptions): Promise<ChainSummary> {
  const checker = new ChainChecker(options.pinnedKey === undefined ? undefined : Buffer.from(options.pinnedKey, 'base64'), { parsedRecords: true });
  const fileHash = options.fileDigest ? createHash('sha256') : undefined;
  let rootAtSize = options.rootAtSize === 0 ? checker.tree.root() : undefined;
  let defect: Defect | undefined;
  let beforeRecordChecks = false;
  const checkpointSeqs: number[] = [];
  outer: for await (const lines of readLines(path, { end: options.end, reuseBuffer: true, ...(options.chunkBytes !== undefined && { chunkBytes: options.chunkBytes }), ...(fileHash && { onChunk: (chunk: Buffer) => fileHash.update(chunk) }) })) {
    for (const line of lines) {
      const found = checker.checkDeferringRecord(line);
      if (found) {
        defect = found.defect;
        beforeRecordChecks = !found.recordChecked;
        break outer;
      }
      if (checker.lastCheckpoint !== undefined && checker.checkpoints > checkpointSeqs.length) checkpointSeqs.push(checker.lastCheckpoint.seq);
      if (checker.size === options.rootAtSize) rootAtSize = checker.tree.root();
    }
  }
  defect ??= checker.checkEnd();
  return {
    ...(defect && { defect }),
    ...(beforeRecordChecks && { defectBeforeRecordChecks: true }),
    size: checker.size,
    ...(checker.origin !== undefined && { origin: checker.origin }),
    keys: checker.trustedKeys.map((key) => ({ name: key.name, publicKey: key.publicKey.toString('base64') })),
    root: checker.tree.root().toString('base64'),
    ...(rootAtSize && { rootAtSize: rootAtSize.toString('base64') }),
    checkpoints: checker.checkpoints,
    lastCheckpointSeq: checker.lastCheckpoint?.seq ?? -1,
    checkpointSeqs,
    ...(fileHash && { fileDigest: fileHash.digest('hex') }),
  };
}

/**
 * What the summary would have said had the chain pass stopped before record `seq`, for a defect
 * the replay pass found there: with its record checks deferred, the chain pass read on past it.
 */
export function chainBefore(summary: ChainSummary, seq: number): ChainSummary {
  const checkpointSeqs = summary.checkpointSeqs.filter((checkpointSeq) => checkpointSeq < seq);
  const { defect: _defect, defectBeforeRecordChecks: _before, rootAtSize: _rootAtSize, ...rest } = summary;
  return { ...rest, size: Math.min(seq, summary.size), checkpoints: checkpointSeqs.length, lastCheckpointSeq: checkpointSeqs.at(-1) ?? -1, checkpointSeqs };
}

/** The identity a summary describes, for checking checkpoint notes against it. */
export function identityOf(summary: ChainSummary, pinnedKey?: Buffer): LedgerIdentity {
  return { origin: summary.origin, keys: summary.keys.map((key) => ({ name: key.name, publicKey: Buffer.from(key.publicKey, 'base64') })), ...(pinnedKey && { pinnedKey }) };
}

/**
 * The chain pass on a worker thread: it keeps only a checker and a compact range, so a small old
 * generation does. Its young generation is 32 MB: every line's text dies young, so
 * fewer scavenges. For a bare ledger this thread is the slower of the two; a 1M-record bundle
 * still peaks under 185 MB with it.
 */
export function runChainPassInWorker(path: string, options: ChainPassOptions): Promise<ChainSummary> {
  const heap = { maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 32 };
  return runOnWorker(new URL('./chain-pass-worker.js', import.meta.url), { path, options }, heap, () => runChainPass(path, options));
}

import { open, readFile, stat } from 'node:fs/promises';
import { ChainChecker, isDefect, type CheckedRecord } from './chain-checker.js';
import { parseCheckpoint } from './checkpoint.js';
import type { Defect } from './defects.js';
import { MAX_LINE_BYTES, readLines, type RawLine } from './line-reader.js';

/** The bytes after the last good record, when they can only be an interrupted append. */
export interface TornTail {
  offset: number;
  bytes: Buffer;
  reason: string;
}

export type LedgerScan =
  | { kind: 'missing' }
  | { kind: 'corrupt'; defect: Defect }
  | { kind: 'valid'; checker: ChainChecker; validBytes: number; tornTail?: TornTail; sidecarSize?: number };

export interface ScanOptions {
  /** The key an outside party pins; without it the genesis keys are trusted. */
  pinnedKey?: Buffer;
  /** Go on from a resume point: `checker` stands after the first `bytes` bytes, which are not read again. */
  from?: { bytes: number; checker: ChainChecker };
  /** Every record accepted, in order (after `from` when given). */
  onRecord?: (checked: CheckedRecord) => void;
}

/**
 * Reads a whole ledger through the chain checker, as the writer does before it opens a ledger.
 *
 * A defect in the last line is a torn tail when an interrupted append explains it: no final
 * newline, NUL bytes (a zero-filled block after power loss) or bytes that are not JSON at all.
 * Anything else (a defect before the last line, a canonical record that breaks the chain, a log
 * shorter than its checkpoint sidecar, a root that differs from it) is corruption, reported with
 * seq and byte offset, and the ledger is refused.
 */
export async function scanLedger(path: string, options: ScanOptions = {}): Promise<LedgerScan> {
  const sidecarRead = await readSidecar(`${path}.checkpoint`);
  if (sidecarRead instanceof Error) return { kind: 'corrupt', defect: { code: 'checkpoint_signature_invalid', message: sidecarRead.message, file: `${path}.checkpoint` } };
  const sidecar = sidecarRead;
  let fileSize: number;
  try {
    fileSize = (await stat(path)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    if (sidecar && sidecar.size > 0) return { kind: 'corrupt', defect: { code: 'root_mismatch', message: `the ledger is missing but its checkpoint covers ${sidecar.size} records` } };
    return { kind: 'missing' };
  }
  const checker = options.from?.checker ?? new ChainChecker(options.pinnedKey);
  let validBytes = options.from?.bytes ?? 0;
  // A sidecar older than the resume point cannot be checked from here: only a full scan can.
  if (sidecar && sidecar.size < checker.size) return { kind: 'corrupt', defect: { code: 'root_mismatch', message: `the checkpoint sidecar covers ${sidecar.size} records, fewer than the ${checker.size} of the resume point` } };
  let rootAtSidecar = sidecar?.size === checker.size ? checker.tree.root() : undefined;
  for await (const lines of readLines(path, { start: validBytes, end: fileSize })) {
    for (const line of lines) {
      const result = checker.check(line);
      if (isDefect(result)) {
        const torn = line.oversized ? await unterminatedTail(path, line.offset, fileSize) : tornTail(line, fileSize);
        if (torn === undefined) return { kind: 'corrupt', defect: result };
        return finish(torn);
      }
      options.onRecord?.(result);
      validBytes += result.length;
      if (checker.size === sidecar?.size) rootAtSidecar = checker.tree.root();
    }
  }
  return finish(undefined);

  function finish(torn: TornTail | undefined): LedgerScan {
    if (sidecar) {
      if (rootAtSidecar === undefined) {
        return { kind: 'corrupt', defect: { code: 'root_mismatch', seq: checker.size, offset: validBytes, message: `the ledger has ${checker.size} valid records but its checkpoint covers ${sidecar.size}: records were lost or removed` } };
      }
      const defect = checker.verifyNote(sidecar.note, sidecar.size, rootAtSidecar);
      if (defect) return { kind: 'corrupt', defect: { ...defect, file: `${path}.checkpoint` } };
    }
    return { kind: 'valid', checker, validBytes, ...(torn && { tornTail: torn }), ...(sidecar && { sidecarSize: sidecar.size }) };
  }
}

export function tornTail(line: RawLine, fileSize: number): TornTail | undefined {
  const end = line.offset + line.bytes.length + (line.terminated ? 1 : 0);
  if (end !== fileSize || line.oversized) return undefined;
  if (!line.terminated) return { offset: line.offset, bytes: Buffer.from(line.bytes), reason: 'last line has no terminating newline' };
  if (line.bytes.includes(0)) return { offset: line.offset, bytes: Buffer.concat([line.bytes, Buffer.from('\n')]), reason: 'last line contains NUL bytes (zero-filled after power loss)' };
  try {
    JSON.parse(line.bytes.toString('utf8'));
    return undefined;
  } catch {
    return { offset: line.offset, bytes: Buffer.concat([line.bytes, Buffer.from('\n')]), reason: 'last line is not JSON' };
  }
}

/** The most bytes one group commit writes (the writer caps batches), so the most a torn tail can be. */
export const MAX_BATCH_BYTES = 4 << 20;

/**
 * A final segment past the line limit is still a torn tail when it has no newline and is no
 * longer than one group commit: a power loss during a large batch zero-fills that much.
 */
async function unterminatedTail(path: string, offset: number, fileSize: number): Promise<TornTail | undefined> {
  const length = fileSize - offset;
  if (length > MAX_BATCH_BYTES + MAX_LINE_BYTES) return undefined;
  const bytes = Buffer.alloc(length);
  const handle = await open(path, 'r');
  try {
    await handle.read(bytes, 0, length, offset);
  } finally {
    await handle.close();
  }
  if (bytes.includes(10)) return undefined;
  return { offset, bytes, reason: bytes.includes(0) ? 'unterminated tail with NUL bytes (zero-filled after power loss)' : 'last line has no terminating newline' };
}

async function readSidecar(path: string): Promise<{ size: number; note: string } | Error | undefined> {
  let note: string;
  try {
    note = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return { size: parseCheckpoint(note).size, note };
  } catch (error) {
    return new Error(`checkpoint sidecar ${path} is not a valid checkpoint note: ${(error as Error).message}`);
  }
}

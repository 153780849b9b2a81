import { open, stat } from 'node:fs/promises';
import { readRegularFile } from '../fs/regular-file.js';
import { toSha256 } from './canonical.js';
import { ChainChecker, isDefect, parseRecordLine, type CheckedRecord } from './chain-checker.js';
import { MAX_NOTE_BYTES, parseCheckpoint } from './checkpoint.js';
import type { Defect } from './defects.js';
import { MAX_LINE_BYTES, readLines, type RawLine } from './line-reader.js';
import { hashLeaf } from './merkle.js';

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

/** Commits the writer keeps in flight at once: one syncing while the next is written. */
export const MAX_COMMITS_IN_FLIGHT = 2;
/**
 * Records per commit. Closed-loop clients all wait for the sync that holds their records; with
 * batches of at most this many, they fall into groups whose sealing overlaps another group's
 * sync, instead of all sealing while the disk idles.
 */
export const MAX_BATCH_RECORDS = 32;
/** The most bytes one group commit writes (the writer caps batches; a single record is at most a line). */
export const MAX_BATCH_BYTES = 4 << 20;

/**
 * How far from the end of a ledger a power loss can damage it, and why no further.
 *
 * The writer (ledger-writer.ts, `pump` and `commit`) starts a commit only while fewer than
 * MAX_COMMITS_IN_FLIGHT are in flight, and a commit leaves the flight only once it has settled:
 * for a commit that succeeds, after its fdatasync returned. Each commit writes right after the
 * previous commit's write, at the end of the file, and fdatasync makes all of the file's written
 * data durable, not just its own batch. So whenever a commit writes, everything before the
 * batches in flight is durable: the bytes a power loss can still zero-fill or drop are those of
 * at most MAX_COMMITS_IN_FLIGHT batches at the end of the file, each at most MAX_BATCH_BYTES and
 * MAX_BATCH_RECORDS. None of those records is acknowledged: a commit is acknowledged only after
 * its own fdatasync returned, which would have made it and every byte before it durable. Opening
 * leaves nothing unsynced from an earlier process behind for this window to miss: a torn tail is
 * truncated and fsynced, and a file holding records its sidecar does not cover is fdatasynced
 * (restoreSidecar) before the first commit; the records a sidecar covers were durable before it
 * was written.
 *
 * Hence damage from a power loss starts within the last MAX_UNSYNCED_BYTES bytes of the file and
 * is followed by at most MAX_UNSYNCED_RECORDS records, none of them acknowledged, and quarantining
 * from its start to the end of the file loses nothing that was acknowledged. Damage that starts
 * earlier, or is followed by more records, was not caused by a power loss.
 */
export const MAX_UNSYNCED_BYTES = MAX_COMMITS_IN_FLIGHT * MAX_BATCH_BYTES;
export const MAX_UNSYNCED_RECORDS = MAX_COMMITS_IN_FLIGHT * MAX_BATCH_RECORDS;

/**
 * The writer's notes are about 200 bytes, and the note parser refuses one over MAX_NOTE_BYTES, so
 * no more is ever read: a sidecar that a hostile process made huge costs nothing.
 */
export const MAX_SIDECAR_BYTES = MAX_NOTE_BYTES;

/**
 * Reads a whole ledger through the chain checker, as the writer does before it opens a ledger.
 *
 * The first defect is a torn tail when a power loss or an interrupted append explains it
 * (`classifyDefect`): then everything from the defective line on is quarantined. Anything else (a
 * defect a power loss cannot leave, a log shorter than its checkpoint sidecar, a root that
 * differs from it) is corruption, reported with seq and byte offset, and the ledger is refused.
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
  const checker = options.from?.checker ?? new ChainChecker(options.pinnedKey, { parsedRecords: true });
  let validBytes = options.from?.bytes ?? 0;
  // A sidecar older than the resume point cannot be checked from here: only a full scan can.
  if (sidecar && sidecar.size < checker.size) return { kind: 'corrupt', defect: { code: 'root_mismatch', message: `the checkpoint sidecar covers ${sidecar.size} records, fewer than the ${checker.size} of the resume point` } };
  let rootAtSidecar = sidecar?.size === checker.size ? checker.tree.root() : undefined;
  for await (const lines of readLines(path, { start: validBytes, end: fileSize })) {
    for (const line of lines) {
      const result = checker.check(line);
      if (isDefect(result)) {
        const verdict = await classifyDefect(path, line, result, checker, fileSize);
        if ('code' in verdict) return { kind: 'corrupt', defect: verdict };
        return finish(verdict);
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

/**
 * Decides whether the first defect of a ledger, found in `line` by `checker` (which stands just
 * before it), is a torn tail (returned, to be quarantined from `line` to the end of the file) or
 * corruption (the defect to refuse the ledger with). docs/ledger-format.md section 7.5 states the
 * rule; in short, the bytes from `line` on must look like what a power loss during the writes in
 * flight leaves (MAX_UNSYNCED_BYTES):
 *
 * - the last line: the torn-tail rule of `tornTail`;
 * - otherwise `line` must hold NUL bytes (pages that were never written read back as zeros; the
 *   writer's JCS lines never hold one) and start within the last MAX_UNSYNCED_BYTES bytes. Each
 *   later line must be zero-filled too, the unterminated end of the file (a cut), or a record the
 *   writer wrote after it, intact: canonical, of the catalogue, in seq order at most
 *   MAX_UNSYNCED_RECORDS from `line`'s, chained to the record before it when that one is intact
 *   too, a checkpoint's note signed by a genesis key. A page that was lost leaves zeros, not other
 *   text, so anything else is altered content and is refused where it is.
 */
export async function classifyDefect(path: string, line: RawLine, defect: Defect, checker: ChainChecker, fileSize: number): Promise<TornTail | Defect> {
  const lineEnd = line.offset + line.bytes.length + (line.terminated ? 1 : 0);
  if (lineEnd === fileSize && !line.oversized) return tornTail(line, fileSize) ?? defect;
  // A complete line without NUL bytes before the end was not written by the writer: no lost page
  // explains it. (An oversized line is read in full below.)
  if (!line.oversized && !line.bytes.includes(0)) return defect;
  const notTorn = (why: string): Defect => ({ ...defect, message: `${defect.message}; not a torn tail: ${why}` });
  const length = fileSize - line.offset;
  if (length > MAX_UNSYNCED_BYTES) return notTorn(`the damage starts ${length} bytes before the end of the file, and a power loss damages at most the last ${MAX_UNSYNCED_BYTES}`);
  const bytes = await readRange(path, line.offset, length);
  const firstEnd = bytes.indexOf(10);
  if (firstEnd === -1) return { offset: line.offset, bytes, reason: bytes.includes(0) ? 'unterminated tail with NUL bytes (zero-filled after power loss)' : 'last line has no terminating newline' };
  if (!bytes.subarray(0, firstEnd).includes(0)) return defect;

  const firstSeq = checker.size;
  const lastSeq = firstSeq + MAX_UNSYNCED_RECORDS - 1;
  /** The intact record just before the current line, if the line before it was one. */
  let previous: { seq: number; hash: string } | undefined;
  /** Damaged bytes held part of at least one record, so the next intact one comes after it. */
  let minSeq = firstSeq + 1;
  let intact = 0;
  let cut = false;
  for (let start = firstEnd + 1; start < bytes.length; ) {
    const newline = bytes.indexOf(10, start);
    if (newline === -1) {
      cut = true;
      break;
    }
    const segment = bytes.subarray(start, newline);
    const offset = line.offset + start;
    start = newline + 1;
    if (segment.includes(0)) {
      if (previous) minSeq = previous.seq + 2;
      previous = undefined;
      continue;
    }
    const refuted = (problem: Pick<Defect, 'code' | 'message'>, seq?: number): Defect => ({
      code: problem.code,
      message: `${problem.message}; this line follows zero-filled bytes at byte offset ${line.offset} (seq ${firstSeq}), where a power loss leaves only records the writer wrote`,
      offset,
      ...(seq !== undefined && { seq }),
    });
    if (segment.length > MAX_LINE_BYTES) return refuted({ code: 'record_invalid', message: `line is longer than the ${MAX_LINE_BYTES}-byte limit` });
    const parsed = parseRecordLine(segment);
    if ('code' in parsed) return refuted(parsed);
    const record = parsed.record;
    const seq = record.seq;
    if (seq > lastSeq) return notTorn(`record ${seq} follows the damage, and at most ${MAX_UNSYNCED_RECORDS} records (seq ${firstSeq} to ${lastSeq}) can be unsynced at a power loss`);
    if (previous ? seq !== previous.seq + 1 : seq < minSeq) return refuted({ code: 'seq_gap', message: `expected seq ${previous ? previous.seq + 1 : `${minSeq} or later`}, found seq ${seq}` }, seq);
    if (previous && record.prevHash !== previous.hash) return refuted({ code: 'chain_broken', message: `prevHash ${record.prevHash} does not match the hash of record ${previous.seq} (${previous.hash})` }, seq);
    if (record.type === 'ledger.genesis') return refuted({ code: 'genesis_invalid', message: 'a second genesis record' }, seq);
    // The root such a checkpoint covers includes damaged records, so only its note can be checked: signed by a genesis key, over its own size and stated root.
    if (record.type === 'ledger.checkpoint' && checker.size > 0) {
      const problem = record.data.size === seq ? checker.verifyNote(record.data.note, seq, Buffer.from(record.data.root, 'base64')) : { code: 'root_mismatch' as const, message: `in-band checkpoint at seq ${seq} claims size ${record.data.size}` };
      if (problem) return refuted(problem, seq);
    }
    previous = { seq, hash: toSha256(hashLeaf(segment)) };
    intact += 1;
  }
  const after = [intact > 0 && `${intact} intact record(s) written after them`, cut && 'an unterminated last line'].filter(Boolean).join(' and ');
  return { offset: line.offset, bytes, reason: `zero-filled bytes before the end of the file (pages lost in a power loss during unacknowledged writes)${after ? `, then ${after}` : ''}` };
}

/**
 * The torn-tail rule for a defective `line` that is the last line of the file: no final newline,
 * NUL bytes (a zero-filled block after power loss) or bytes that are not JSON at all. Readers that
 * look no further than the last line use it alone; `classifyDefect` also handles damage that a
 * power loss leaves before the last line.
 */
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

/** Up to `length` bytes from `offset`, fewer only at the end of the file. */
async function readRange(path: string, offset: number, length: number): Promise<Buffer> {
  const bytes = Buffer.alloc(length);
  const handle = await open(path, 'r');
  try {
    let done = 0;
    while (done < length) {
      const { bytesRead } = await handle.read(bytes, done, length - done, offset + done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    return bytes.subarray(0, done);
  } finally {
    await handle.close();
  }
}

/**
 * The sidecar is read only as a regular file of at most MAX_SIDECAR_BYTES, never through a
 * symbolic link, and a FIFO or device there is refused without waiting on it: anyone who can create
 * a name in the ledger's directory must not be able to hang the writer's open or point it at other
 * bytes (src/fs/regular-file.ts, which verify-export uses too).
 */
async function readSidecar(path: string): Promise<{ size: number; note: string } | Error | undefined> {
  let file;
  try {
    file = await readRegularFile(path, MAX_SIDECAR_BYTES);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  if (!file.ok) return new Error(`checkpoint sidecar ${path} ${file.problem}, not a signed note`);
  const note = file.bytes.toString('utf8');
  try {
    return { size: parseCheckpoint(note).size, note };
  } catch (error) {
    return new Error(`checkpoint sidecar ${path} is not a valid checkpoint note: ${(error as Error).message}`);
  }
}

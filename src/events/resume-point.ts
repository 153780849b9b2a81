import { open, readFile, rename, writeFile } from 'node:fs/promises';
import { toSha256 } from './canonical.js';
import { ChainChecker, type ChainSnapshot } from './chain-checker.js';
import { hashLeaf } from './merkle.js';

/**
 * A resume point, `<ledger>.resume`, lets a writer reopen a ledger without reading it again from
 * the genesis. A coding-agent hook opens the ledger before every tool call and the ledger grows
 * with every call, so without it each call would cost time proportional to the whole history.
 *
 * The writer saves one at a clean close, under its lock: the byte length of the ledger, where the
 * chain checker stood (head line and hash, Merkle subtrees, genesis keys, last checkpoint), and
 * the owner's projection folded over the same records. Reopening from it checks that the ledger
 * still holds exactly that head line at exactly that offset, then checks and folds only the
 * records after it. Anything that does not fit (a missing, unreadable or foreign file, a ledger
 * that was cut or rewritten) means the whole ledger is read as before.
 *
 * It is a cache, not evidence: it is written without fsync (a power loss leaves the old file, no
 * file or one that does not parse) and `svc verify-export` never reads it. It lives in `.svc/`
 * with the ledger and its key, which the protected-path guard keeps agents from writing.
 */
export const RESUME_FORMAT = 'svc.ledger.resume.v1';

export interface ResumePoint {
  /** Byte length of the ledger prefix the point describes. */
  bytes: number;
  chain: ChainSnapshot;
  /** The writer's owner's state after the same records (the enforcer's runtime state). */
  projection: unknown;
}

export function resumeFileOf(ledgerPath: string): string {
  return `${ledgerPath}.resume`;
}

/** Replaces the resume point atomically (temp file and rename). */
export async function writeResumePoint(ledgerPath: string, point: ResumePoint): Promise<void> {
  const file = resumeFileOf(ledgerPath);
  const temp = `${file}.tmp-${process.pid}`;
  await writeFile(temp, JSON.stringify({ format: RESUME_FORMAT, ...point }), { mode: 0o600 });
  await rename(temp, file);
}

/**
 * The resume point of the ledger at `ledgerPath` and a checker positioned there, or undefined when
 * there is none or it does not describe a prefix of the file as it is now (`fileSize` bytes).
 */
export async function readResumePoint(ledgerPath: string, fileSize: number): Promise<{ bytes: number; checker: ChainChecker; projection: unknown } | undefined> {
  let point: Partial<ResumePoint> & { format?: unknown };
  try {
    point = JSON.parse(await readFile(resumeFileOf(ledgerPath), 'utf8')) as typeof point;
  } catch {
    return undefined;
  }
  const { bytes, chain } = point;
  if (point.format !== RESUME_FORMAT || !Number.isSafeInteger(bytes) || bytes === undefined || bytes > fileSize || typeof chain?.headLine !== 'string') return undefined;
  const headLine = Buffer.from(chain.headLine, 'utf8');
  if (toSha256(hashLeaf(headLine)) !== chain.headHash || !(await endsWithLine(ledgerPath, bytes, headLine))) return undefined;
  try {
    return { bytes, checker: ChainChecker.fromSnapshot(chain, { parsedRecords: true }), projection: point.projection };
  } catch {
    return undefined;
  }
}

/** Whether the file's first `bytes` bytes end with `line` as a whole line. */
async function endsWithLine(path: string, bytes: number, line: Buffer): Promise<boolean> {
  const lineStart = bytes - line.length - 1;
  if (lineStart < 0) return false;
  // One byte more in front, to see the newline that ends the line before.
  const from = Math.max(0, lineStart - 1);
  const found = Buffer.alloc(bytes - from);
  const handle = await open(path, 'r');
  try {
    const { bytesRead } = await handle.read(found, 0, found.length, from);
    const lead = lineStart - from;
    return bytesRead === found.length && (lead === 0 || found[0] === 10) && found[found.length - 1] === 10 && found.subarray(lead, lead + line.length).equals(line);
  } finally {
    await handle.close();
  }
}

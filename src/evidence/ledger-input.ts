import type { Stats } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { SvcError } from '../errors.js';
import { MAX_NOTE_BYTES } from '../events/checkpoint.js';
import type { Defect } from '../events/defects.js';
import { readRegularFile, type SmallFile } from '../fs/regular-file.js';

/**
 * A ledger's signed checkpoint file as found, before it is parsed: its text, or why it holds no
 * note (runLedgerPass refuses the ledger then, with `checkpoint_signature_invalid`).
 */
export type CheckpointFile = { path: string; note: string } | { path: string; problem: string };

/**
 * lstat of a path named on the command line. Error codes: `not_found`, `unreadable`, and
 * `path_is_symlink`, because evidence is checked where it lies: a link could point the check at
 * other bytes than the ones a reader later looks at.
 */
export async function lstatInput(path: string): Promise<Stats> {
  let info: Stats;
  try {
    info = await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new SvcError('not_found', `${path} does not exist`);
    throw unreadable(path, error);
  }
  if (info.isSymbolicLink()) throw new SvcError('path_is_symlink', `${path} is a symbolic link; give the real path`);
  return info;
}

/**
 * The input rules of every command that reads a ledger file (replay, export, prove-equivalence):
 * the path is a readable regular file, not a link (`path_not_file`, and the codes of lstatInput).
 * Returns the ledger's signed checkpoint file (by default the sidecar `<ledger>.checkpoint`), which
 * the caller hands to runLedgerPass: without it a ledger cut below its checkpoint would read as a
 * shorter valid one.
 *
 * The checkpoint file is read before the pass takes the ledger's size, so on a live ledger it
 * never covers more than the pass reads: the writer renames a new sidecar into place only after
 * the records it covers are durable.
 */
export async function checkLedgerInput(ledgerPath: string, checkpointPath = `${ledgerPath}.checkpoint`): Promise<CheckpointFile | undefined> {
  const info = await lstatInput(ledgerPath);
  if (!info.isFile()) throw new SvcError('path_not_file', `${ledgerPath} is ${info.isDirectory() ? 'a directory' : 'not a regular file'}; give the path of a ledger file`);
  // Opened once now so that a permission problem is named here, not as a raw errno mid-pass.
  try {
    await (await open(ledgerPath, 'r')).close();
  } catch (error) {
    throw unreadable(ledgerPath, error);
  }
  return readCheckpointFile(checkpointPath);
}

/**
 * The checkpoint file, or undefined when there is none. Read as verify-export reads a sidecar:
 * without following a link or waiting on a FIFO for a writer, and only up to the largest note.
 */
export async function readCheckpointFile(path: string): Promise<CheckpointFile | undefined> {
  let file: SmallFile;
  try {
    file = await readRegularFile(path, MAX_NOTE_BYTES);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unreadable(path, error);
  }
  return file.ok ? { path, note: file.bytes.toString('utf8') } : { path, problem: file.problem };
}

function unreadable(path: string, error: unknown): SvcError {
  return new SvcError('unreadable', `${path} cannot be read: ${(error as Error).message}`);
}

/** One line for a defect: code, where (seq, byte offset, file) as far as known, and why. */
export function describeDefect(defect: Defect): string {
  const where = [defect.seq !== undefined && `at seq ${defect.seq}`, defect.offset !== undefined && `byte offset ${defect.offset}`, defect.file !== undefined && `in ${defect.file}`].filter(Boolean).join(', ');
  return `${defect.code}${where ? ` ${where}` : ''}: ${defect.message}`;
}

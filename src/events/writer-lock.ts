import { hostname } from 'node:os';
import { readFile, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import lockfile from 'proper-lockfile';
import { SvcError } from '../errors.js';
import { isAlive } from './process-alive.js';
import { monotonicMs } from '../monotonic-clock.js';

/**
 * One writer per ledger (DESIGN.md section 4), held with proper-lockfile's directory lock.
 *
 * proper-lockfile only notices a dead holder once its lock goes stale (10 s here). A writer killed
 * with SIGKILL on this host would then block the restart for that long, so the holder also leaves
 * `<lock>.owner` naming its pid, host and the lock directory's identity (inode and birth time). A
 * contender on the same host that finds the owner's process gone ages the lock directory so
 * proper-lockfile takes it over by its own stale rule. The identity check keeps an owner file left
 * by an earlier holder from describing a newer lock; should both race anyway, the writer's
 * size-and-tail fencing stops the loser before it writes.
 */
export interface WriterLock {
  /** Idempotent: every call after the first returns the first one's promise. */
  release(): Promise<void>;
}

interface Owner {
  pid: number;
  host: string;
  lockId: string;
}

const STALE_MS = 10_000;

/**
 * Runs `open` again while it fails with `ledger_locked`, until `deadline` (a `monotonicMs()`
 * time): a hook holds the lock for milliseconds, so waiting briefly beats failing.
 */
export async function retryWhileLocked<T>(open: () => Promise<T>, deadline: number): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await open();
    } catch (error) {
      if (!(error instanceof SvcError && error.code === 'ledger_locked') || monotonicMs() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(5 + attempt * 5, 50)));
    }
  }
}

export async function acquireWriterLock(ledgerPath: string, onCompromised: (error: Error) => void): Promise<WriterLock> {
  const lockPath = `${ledgerPath}.lock`;
  const ownerPath = `${lockPath}.owner`;
  const options = { realpath: false, lockfilePath: lockPath, stale: STALE_MS, retries: 0, onCompromised };
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(ledgerPath, options);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    const owner = await readOwner(ownerPath, lockPath);
    if (owner === undefined || owner.host !== hostname() || isAlive(owner.pid)) {
      const holder = owner ? ` (pid ${owner.pid} on ${owner.host})` : '';
      throw new SvcError('ledger_locked', `ledger ${ledgerPath} is held by another writer${holder}; stop it first, or read the ledger without writing`);
    }
    await utimes(lockPath, 0, 0);
    try {
      release = await lockfile.lock(ledgerPath, options);
    } catch (retryError) {
      if ((retryError as NodeJS.ErrnoException).code === 'ELOCKED') throw new SvcError('ledger_locked', `ledger ${ledgerPath} was taken by another writer during recovery`);
      throw retryError;
    }
  }
  await writeFile(ownerPath, JSON.stringify({ pid: process.pid, host: hostname(), lockId: await lockIdentity(lockPath) } satisfies Owner));
  let released: Promise<void> | undefined;
  return {
    // Once only: a second release, after another writer took the lock, would delete its owner record.
    release() {
      released ??= (async () => {
        await unlink(ownerPath).catch(() => undefined);
        await release().catch(() => undefined);
      })();
      return released;
    },
  };
}

async function readOwner(ownerPath: string, lockPath: string): Promise<Owner | undefined> {
  try {
    const owner = JSON.parse(await readFile(ownerPath, 'utf8')) as Partial<Owner>;
    if (typeof owner.pid !== 'number' || typeof owner.host !== 'string' || owner.lockId !== (await lockIdentity(lockPath))) return undefined;
    return owner as Owner;
  } catch {
    return undefined;
  }
}

async function lockIdentity(lockPath: string): Promise<string> {
  const info = await stat(lockPath, { bigint: true });
  return `${info.ino}:${info.birthtimeNs}`;
}

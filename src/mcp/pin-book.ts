import { userInfo } from 'node:os';
import { loadPinKey } from '../actionpass/key-ring.js';
import type { SigningKey } from '../actionpass/keys.js';
import { readTrustIndex, type TrustIndex } from '../actionpass/trust-store.js';
import { SvcError } from '../errors.js';
import type { ServerPins } from './pin-check.js';
import { checkPinLock, lockVersion, readPinLock, sameVersion, signPin, updatePinLock, type LockVersion, type PinEntry, type PinLock, type PinMethod, type PinProblem } from './pin-lock.js';
import type { ToolDefinition } from './tool-definition.js';

/**
 * The lock as the wrapper sees it, kept current: read again whenever the file or trust.json
 * changed on disk (a person ran `svc mcp pins approve`, a key was revoked), so the check at call
 * time uses the pins in force at that moment. Pinning on first use goes through here too.
 */
export interface PinPlaces {
  lockFile: string;
  trustFile: string;
  keysDir: string;
  tenant: string;
}

interface Snapshot {
  lockVersion: LockVersion;
  trustVersion: LockVersion;
  lock?: PinLock;
  problems: PinProblem[];
  /** Why the file could not be read as a lock at all. */
  unreadable?: string;
}

export class PinBook {
  private snapshot: Snapshot | undefined;
  private key: SigningKey | undefined;
  /** Counts the reads of lock and trust store: equal numbers mean equal pins. */
  version = 0;

  constructor(
    readonly places: PinPlaces,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Re-reads lock and trust store if either changed since the last look; cheap otherwise (two stats). */
  async refresh(): Promise<void> {
    const lockNow = lockVersion(this.places.lockFile);
    const trustNow = lockVersion(this.places.trustFile);
    if (this.snapshot && sameVersion(this.snapshot.lockVersion, lockNow) && sameVersion(this.snapshot.trustVersion, trustNow)) return;
    this.snapshot = await this.read(lockNow, trustNow);
    this.version += 1;
  }

  /** The pins of `server`, or why the lock cannot be used. Call `refresh` first. */
  serverPins(server: string): ServerPins {
    const snapshot = this.snapshot;
    if (!snapshot) return { ok: false, message: 'the lock has not been read yet' };
    if (snapshot.unreadable !== undefined) return { ok: false, message: snapshot.unreadable };
    if (snapshot.problems.length > 0) return { ok: false, message: describeProblems(this.places.lockFile, snapshot.problems) };
    const byTool = new Map<string, PinEntry>();
    for (const entry of snapshot.lock?.pins ?? []) if (entry.server === server) byTool.set(entry.tool, entry);
    return { ok: true, byTool };
  }

  /**
   * Signs `definitions` into the lock as first-use pins of `server`. Tools another process pinned
   * meanwhile keep that pin; a lock that does not verify is never rewritten (it stays failed closed
   * until a person restores or resets it).
   */
  async pinFirstUse(server: string, definitions: readonly ToolDefinition[]): Promise<PinEntry[]> {
    if (definitions.length === 0) return [];
    return this.write(server, definitions, 'first_use', `os:${osLogin()}`, { replace: false });
  }

  /** Signs `definitions` as approved by `pinnedBy`, replacing any earlier pin of the same tools. */
  async approve(server: string, definitions: readonly ToolDefinition[], pinnedBy: string): Promise<PinEntry[]> {
    return this.write(server, definitions, 'approved', pinnedBy, { replace: true });
  }

  private async write(server: string, definitions: readonly ToolDefinition[], method: PinMethod, pinnedBy: string, options: { replace: boolean }): Promise<PinEntry[]> {
    this.key ??= (await loadPinKey({ keysDir: this.places.keysDir, trustFile: this.places.trustFile, tenant: this.places.tenant })).key;
    const key = this.key;
    const trust = await readTrustIndex(this.places.trustFile);
    const written = await updatePinLock(this.places.lockFile, (current) => {
      // First use never writes into a lock that does not verify: that lock stays failed closed. An
      // approval is a person vouching for the entries it writes, and leaves the others as they are.
      const problems = checkPinLock(current, trust);
      if (!options.replace && problems.length > 0) throw new SvcError('mcp_lock_invalid', describeProblems(this.places.lockFile, problems));
      const pinnedAt = this.now().toISOString();
      const fresh = definitions
        .filter((definition) => options.replace || !current.pins.some((entry) => entry.server === server && entry.tool === definition.name))
        .map((definition) => signPin(key, { server, definition, method, pinnedBy, pinnedAt }));
      if (fresh.length === 0) return { result: fresh };
      const replaced = new Set(fresh.map((entry) => entry.tool));
      const pins = [...current.pins.filter((entry) => !(entry.server === server && replaced.has(entry.tool))), ...fresh];
      return { next: { ...current, pins }, result: fresh };
    });
    this.snapshot = undefined;
    await this.refresh();
    return written;
  }

  private async read(lockNow: LockVersion, trustNow: LockVersion): Promise<Snapshot> {
    let trust: TrustIndex;
    try {
      trust = await readTrustIndex(this.places.trustFile);
    } catch (error) {
      return { lockVersion: lockNow, trustVersion: trustNow, problems: [], unreadable: (error as Error).message };
    }
    try {
      const lock = await readPinLock(this.places.lockFile);
      return { lockVersion: lockNow, trustVersion: trustNow, lock, problems: checkPinLock(lock, trust) };
    } catch (error) {
      return { lockVersion: lockNow, trustVersion: trustNow, problems: [], unreadable: (error as Error).message };
    }
  }
}

export function describeProblems(file: string, problems: readonly PinProblem[]): string {
  const first = problems[0];
  if (!first) return `${file} holds`;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
  return `${file}: pins[${first.index}] ${first.server}/${first.tool}: ${first.message} [${first.code}]${more}; run svc mcp pins list to see every problem, then restore the file from version control or re-approve with svc mcp pins approve`;
}

/** The login of the person (or process) pinning: `os:<login>` when no `user:<email>` is given. */
export function osLogin(): string {
  try {
    return userInfo().username || 'unknown';
  } catch {
    return process.env.USER ?? 'unknown';
  }
}

/**
 * A recording LedgerFs and a power-loss model over its log.
 *
 * `recordingFs()` wraps a LedgerFs (by default the real one) and appends every operation the ledger
 * writer performs to an ordered log: opens with path and flags, writes with the fd's path, position
 * and a copy of the bytes, file and directory syncs, truncates, renames, mkdirs, closes. The
 * workload adds `ack` entries to the same log when an append promise resolves.
 *
 * `PowerLossModel` replays a log and answers: if the power failed after the first k entries, which
 * disk states are possible? The model is the usual POSIX/ext4 one used by crash-consistency
 * checkers (ALICE, CrashMonkey), kept deliberately simple:
 *
 * - File content: what the file held when its last fsync or fdatasync started is durable. The
 *   writes and truncates since then (the unsynced tail) may have reached the disk in part: each
 *   unsynced write may be cut at a byte offset (a prefix of it persisted), or its region may read
 *   back as zeros from an offset on (the size was persisted, the data blocks were not), with the
 *   unsynced operations before it applied in full.
 * - Pages (`pageSubsets`): writeback persists the page cache page by page, in no particular order,
 *   so the unsynced writes of a file may also have persisted as any subset of the PAGE_BYTES pages
 *   they touch: each page kept, or lost (it reads back as it was durably, zeros past the durable
 *   end), and lost pages at the end may be missing altogether (the size persisted only up to the
 *   last page kept). This is what leaves a hole inside an earlier batch with later lines persisted
 *   after it, when two commits are in flight. The subsets are sampled (seeded), not enumerated.
 * - Directory entries: a name created, renamed into place or renamed away after the last
 *   fsyncDirectory of its directory may be in its state as of that sync: a new file or directory
 *   may be missing entirely, a rename target may still name the old file. Each such name varies
 *   independently.
 *
 * A sync counts from the moment it started (log index `since`) and only once it completed (its own
 * log position), so an operation issued while a sync runs is never assumed to be covered by it.
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { nodeLedgerFs, type LedgerFs } from '../../src/events/ledger-fs.js';
import { seededRandom } from '../children/seeded-random.js';

export type FsLogEntry =
  | { op: 'open'; path: string; flags: string; fd: number }
  | { op: 'write'; fd: number; path: string; position: number; bytes: Buffer }
  | { op: 'fdatasync' | 'fsync'; fd: number; path: string; since: number }
  | { op: 'ftruncate'; fd: number; path: string; length: number }
  | { op: 'close'; fd: number; path: string }
  | { op: 'rename'; from: string; to: string }
  | { op: 'mkdir'; path: string; created: string | undefined }
  | { op: 'fsyncDirectory'; path: string; since: number }
  | { op: 'ack'; seq: number; hash: string };

export interface RecordingFs extends LedgerFs {
  readonly log: FsLogEntry[];
  /** Logs that an append was acknowledged (its promise resolved). */
  ack(seq: number, hash: string): void;
}

/**
 * Every operation is logged when it has completed (a crash before that is the same disk state as
 * a crash before the operation, which the model also produces by leaving unsynced work out), except
 * that a sync also carries the log index at which it started.
 */
export function recordingFs(inner: LedgerFs = nodeLedgerFs): RecordingFs {
  const log: FsLogEntry[] = [];
  const paths = new Map<number, string>();
  const pathOf = (fd: number): string => {
    const path = paths.get(fd);
    if (path === undefined) throw new Error(`recording fs: fd ${fd} was not opened through this fs`);
    return path;
  };
  return {
    log,
    ack(seq, hash) {
      log.push({ op: 'ack', seq, hash });
    },
    async open(path, flags, mode) {
      const fd = await inner.open(path, flags, mode);
      paths.set(fd, path);
      log.push({ op: 'open', path, flags, fd });
      return fd;
    },
    async write(fd, buffer, position) {
      const bytes = Buffer.from(buffer);
      await inner.write(fd, buffer, position);
      log.push({ op: 'write', fd, path: pathOf(fd), position, bytes });
    },
    read: (fd, buffer, position) => inner.read(fd, buffer, position),
    async fdatasync(fd) {
      const since = log.length;
      await inner.fdatasync(fd);
      log.push({ op: 'fdatasync', fd, path: pathOf(fd), since });
    },
    async fsync(fd) {
      const since = log.length;
      await inner.fsync(fd);
      log.push({ op: 'fsync', fd, path: pathOf(fd), since });
    },
    async ftruncate(fd, length) {
      await inner.ftruncate(fd, length);
      log.push({ op: 'ftruncate', fd, path: pathOf(fd), length });
    },
    async close(fd) {
      const path = pathOf(fd);
      await inner.close(fd);
      paths.delete(fd);
      log.push({ op: 'close', fd, path });
    },
    async rename(from, to) {
      await inner.rename(from, to);
      log.push({ op: 'rename', from, to });
    },
    async mkdir(path) {
      const created = await inner.mkdir(path);
      log.push({ op: 'mkdir', path, created });
      return created;
    },
    async fsyncDirectory(path) {
      const since = log.length;
      await inner.fsyncDirectory(path);
      log.push({ op: 'fsyncDirectory', path, since });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The model

type InodeOp = { kind: 'write'; position: number; bytes: Buffer } | { kind: 'truncate'; length: number };
type Entry = { kind: 'dir' } | { kind: 'file'; inode: number };

interface Snapshot {
  /** The namespace as the running process sees it: path -> entry. */
  names: Map<string, Entry>;
  /** The namespace as of each directory's last completed fsync: path -> entry, null = absent. */
  durableNames: Map<string, Entry | null>;
  /** Per inode: how many of its operations had been issued, and how many are durable. */
  issued: Map<number, number>;
  synced: Map<number, number>;
  fds: Map<number, number>;
  acks: Array<{ seq: number; hash: string }>;
}

/** One possible disk state after a power loss: every file and directory under the root. */
export interface CrashState {
  /** Relative path -> file bytes, or 'dir'. */
  entries: Map<string, Buffer | 'dir'>;
  /** Human-readable account of the choices made, for failure messages. */
  description: string;
}

export interface CrashPoint {
  /** The power failed after this many log entries. */
  index: number;
  /** Appends acknowledged before the power failed. */
  acks: ReadonlyArray<{ seq: number; hash: string }>;
  states: CrashState[];
}

function sameEntry(a: Entry | null | undefined, b: Entry | null | undefined): boolean {
  const x = a ?? null;
  const y = b ?? null;
  if (x === null || y === null) return x === y;
  return x.kind === y.kind && (x.kind === 'dir' || (y.kind === 'file' && x.inode === y.inode));
}

function applyOp(content: Buffer, op: InodeOp): Buffer {
  if (op.kind === 'truncate') {
    return op.length <= content.length ? content.subarray(0, op.length) : Buffer.concat([content, Buffer.alloc(op.length - content.length)]);
  }
  const end = op.position + op.bytes.length;
  const out = Buffer.alloc(Math.max(content.length, end));
  content.copy(out);
  op.bytes.copy(out, op.position);
  return out;
}


export interface ModelOptions {
  /** Only paths under this directory are modelled; it is assumed to exist durably. */
  root: string;
  /** Log indices to treat as if the writer had never performed them (negative controls). */
  ignore?: ReadonlySet<number>;
  /** Random byte offsets drawn per unsynced write, on top of the fixed ones. */
  randomOffsets?: number;
  /** Page subsets per file and crash point (0, the default, leaves the page model out); see pageVariants. */
  pageSubsets?: number;
  seed?: number;
}

export class PowerLossModel {
  private readonly inodes: InodeOp[][] = [];
  private readonly snapshots: Snapshot[] = [];
  /** Per log prefix: how many of its entries are operations on files (not acknowledgements). */
  private readonly diskOps: number[] = [0];
  private readonly root: string;

  constructor(
    readonly log: readonly FsLogEntry[],
    private readonly options: ModelOptions,
  ) {
    this.root = options.root;
    let state: Snapshot = { names: new Map(), durableNames: new Map(), issued: new Map(), synced: new Map(), fds: new Map(), acks: [] };
    this.snapshots.push(state);
    for (let index = 0; index < log.length; index += 1) {
      const entry = log[index] as FsLogEntry;
      state = this.step(state, entry, options.ignore?.has(index) === true);
      this.snapshots.push(state);
      this.diskOps.push((this.diskOps[index] as number) + (entry.op === 'ack' ? 0 : 1));
    }
  }

  private inside(path: string): boolean {
    const rel = relative(this.root, path);
    return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep);
  }

  private step(previous: Snapshot, entry: FsLogEntry, ignored: boolean): Snapshot {
    const next: Snapshot = {
      names: new Map(previous.names),
      durableNames: new Map(previous.durableNames),
      issued: new Map(previous.issued),
      synced: new Map(previous.synced),
      fds: new Map(previous.fds),
      acks: entry.op === 'ack' ? [...previous.acks, { seq: entry.seq, hash: entry.hash }] : previous.acks,
    };
    if (ignored) return next;
    const push = (inode: number, op: InodeOp): void => {
      const ops = this.inodes[inode] as InodeOp[];
      // Operations are issued in log order, so an inode's op list is the same prefix in every snapshot.
      if (ops.length !== (next.issued.get(inode) ?? 0)) throw new Error('recording fs model: inode operations out of order');
      ops.push(op);
      next.issued.set(inode, ops.length);
    };
    switch (entry.op) {
      case 'open': {
        if (!this.inside(entry.path)) throw new Error(`recording fs model: ${entry.path} is outside ${this.root}`);
        const existing = next.names.get(entry.path);
        let inode: number;
        if (existing?.kind === 'file') {
          inode = existing.inode;
          if (/^w/.test(entry.flags)) push(inode, { kind: 'truncate', length: 0 });
        } else if (existing === undefined && /^[wa]/.test(entry.flags)) {
          inode = this.inodes.length;
          this.inodes.push([]);
          next.issued.set(inode, 0);
          next.synced.set(inode, 0);
          next.names.set(entry.path, { kind: 'file', inode });
        } else {
          throw new Error(`recording fs model: open ${entry.path} ${entry.flags} of a ${existing?.kind ?? 'missing'} entry`);
        }
        next.fds.set(entry.fd, inode);
        break;
      }
      case 'write':
      case 'ftruncate': {
        const inode = next.fds.get(entry.fd);
        if (inode === undefined) throw new Error(`recording fs model: ${entry.op} on unknown fd ${entry.fd}`);
        push(inode, entry.op === 'write' ? { kind: 'write', position: entry.position, bytes: entry.bytes } : { kind: 'truncate', length: entry.length });
        break;
      }
      case 'fsync':
      case 'fdatasync': {
        const inode = next.fds.get(entry.fd);
        if (inode === undefined) throw new Error(`recording fs model: ${entry.op} on unknown fd ${entry.fd}`);
        const atStart = (this.snapshots[entry.since] as Snapshot).issued.get(inode) ?? 0;
        next.synced.set(inode, Math.max(next.synced.get(inode) ?? 0, atStart));
        break;
      }
      case 'close':
        next.fds.delete(entry.fd);
        break;
      case 'rename': {
        const moved = next.names.get(entry.from);
        if (moved === undefined) throw new Error(`recording fs model: rename of missing ${entry.from}`);
        next.names.delete(entry.from);
        next.names.set(entry.to, moved);
        break;
      }
      case 'mkdir': {
        if (entry.created === undefined) break;
        for (let dir = entry.path; this.inside(dir); dir = dirname(dir)) {
          next.names.set(dir, { kind: 'dir' });
          if (dir === entry.created) break;
        }
        break;
      }
      case 'fsyncDirectory': {
        const atStart = (this.snapshots[entry.since] as Snapshot).names;
        const children = new Set([...atStart.keys(), ...next.durableNames.keys()].filter((path) => dirname(path) === entry.path));
        for (const path of children) next.durableNames.set(path, atStart.get(path) ?? null);
        break;
      }
      case 'ack':
        break;
    }
    return next;
  }

  /** The possible disk states if the power failed after the first `index` log entries. */
  crashPoint(index: number): CrashPoint {
    const state = this.snapshots[index];
    if (state === undefined) throw new Error(`crash point ${index} is outside the log (0..${this.log.length})`);
    // Seeded by the operations that reach the disk, not by acknowledgements: a crash just after an
    // acknowledgement leaves the same disk as one just before it, so it draws the same samples
    // (and the sweep checks those states once, against the most acknowledgements).
    const random = seededRandom(((this.options.seed ?? 1) * 1_000_003 + (this.diskOps[index] as number)) >>> 0);

    // Names whose durable state differs from what the process sees.
    const allPaths = [...new Set([...state.names.keys(), ...state.durableNames.keys()])].sort();
    const uncertain = allPaths.filter((path) => !sameEntry(state.names.get(path), state.durableNames.get(path)));
    const nameChoices: Array<{ revert: Set<string>; label: string }> = [{ revert: new Set(), label: 'all names as issued' }];
    if (uncertain.length > 0) {
      if (uncertain.length <= 4) {
        for (let mask = 1; mask < 1 << uncertain.length; mask += 1) {
          const revert = new Set(uncertain.filter((_, bit) => (mask & (1 << bit)) !== 0));
          nameChoices.push({ revert, label: `as of the last directory sync: ${[...revert].map((path) => relative(this.root, path)).join(', ')}` });
        }
      } else {
        nameChoices.push({ revert: new Set(uncertain), label: 'all names as of the last directory sync' });
        for (const path of uncertain) nameChoices.push({ revert: new Set([path]), label: `as of the last directory sync: ${relative(this.root, path)}` });
      }
    }

    // Per inode with unsynced operations: the possible contents.
    const contents = new Map<number, Array<{ bytes: Buffer; label: string }>>();
    const issuedContent = new Map<number, Buffer>();
    const syncedContent = new Map<number, Buffer>();
    for (const [inode, issued] of state.issued) {
      const ops = (this.inodes[inode] as InodeOp[]).slice(0, issued);
      const synced = state.synced.get(inode) ?? 0;
      let content: Buffer = Buffer.alloc(0);
      for (const op of ops.slice(0, synced)) content = applyOp(content, op);
      syncedContent.set(inode, content);
      const durable = content;
      const variants: Array<{ bytes: Buffer; label: string }> = [];
      for (let at = synced; at < ops.length; at += 1) {
        const op = ops[at] as InodeOp;
        if (op.kind === 'write' && op.bytes.length > 1) {
          for (const cut of cutOffsets(op.bytes, random, this.options.randomOffsets ?? 2)) {
            variants.push({ bytes: applyOp(content, { kind: 'write', position: op.position, bytes: op.bytes.subarray(0, cut) }), label: `unsynced write @${op.position} cut after ${cut}/${op.bytes.length} bytes` });
          }
          for (const zeroFrom of zeroOffsets(op.bytes, random, this.options.randomOffsets ?? 2)) {
            const bytes = Buffer.concat([op.bytes.subarray(0, zeroFrom), Buffer.alloc(op.bytes.length - zeroFrom)]);
            variants.push({ bytes: applyOp(content, { kind: 'write', position: op.position, bytes }), label: `unsynced write @${op.position} zero-filled from ${zeroFrom}/${op.bytes.length}` });
          }
        }
        content = applyOp(content, op);
        if (at + 1 < ops.length) variants.push({ bytes: content, label: `${at + 1 - synced} of ${ops.length - synced} unsynced operations` });
      }
      issuedContent.set(inode, content);
      const unsynced = ops.slice(synced);
      // Pages of writes only: a truncate is always synced at once by the writer, and mixing pages across one is beyond this model.
      if ((this.options.pageSubsets ?? 0) > 0 && unsynced.every((op) => op.kind === 'write')) {
        variants.push(...pageVariants(durable, content, unsynced as Array<Extract<InodeOp, { kind: 'write' }>>, random, this.options.pageSubsets ?? 0));
      }
      if (variants.length > 0) contents.set(inode, variants);
    }

    type ContentChoice = { pick: (inode: number) => Buffer; label: string };
    const contentChoices: ContentChoice[] = [{ pick: (inode) => issuedContent.get(inode) as Buffer, label: 'all writes persisted' }];
    if (contents.size > 0 || [...state.issued.keys()].some((inode) => !(issuedContent.get(inode) as Buffer).equals(syncedContent.get(inode) as Buffer))) {
      contentChoices.push({ pick: (inode) => syncedContent.get(inode) as Buffer, label: 'only synced content' });
    }
    for (const [changed, variants] of contents) {
      for (const variant of variants) {
        contentChoices.push({ pick: (inode) => (inode === changed ? variant.bytes : (issuedContent.get(inode) as Buffer)), label: `inode ${changed}: ${variant.label}` });
      }
    }

    const states: CrashState[] = [];
    for (const names of nameChoices) {
      const resolved = new Map<string, Entry>();
      for (const path of allPaths) {
        const entry = names.revert.has(path) ? state.durableNames.get(path) : state.names.get(path);
        if (entry) resolved.set(path, entry);
      }
      const present = (path: string): boolean => {
        for (let dir = dirname(path); this.inside(dir); dir = dirname(dir)) if (resolved.get(dir)?.kind !== 'dir') return false;
        return true;
      };
      for (const content of contentChoices) {
        const entries = new Map<string, Buffer | 'dir'>();
        for (const [path, entry] of resolved) {
          if (!present(path)) continue;
          entries.set(relative(this.root, path), entry.kind === 'dir' ? 'dir' : content.pick(entry.inode));
        }
        states.push({ entries, description: `${names.label}; ${content.label}` });
      }
    }
    return { index, acks: state.acks, states };
  }
}

export const PAGE_BYTES = 4096;

/**
 * Disk contents where the unsynced `writes` of a file persisted as a subset of the pages they
 * touch (see the model above), `count` of them: first the first page lost and every later one
 * kept, the shape of a power loss in the middle of one batch with the next batch already written,
 * then random subsets, each with lost pages at the end either zero-filled or missing. Nothing when
 * the writes touch a single page: the cuts and zero fills above cover that.
 */
function pageVariants(durable: Buffer, issued: Buffer, writes: ReadonlyArray<{ position: number; bytes: Buffer }>, random: () => number, count: number): Array<{ bytes: Buffer; label: string }> {
  const touched = new Set<number>();
  for (const write of writes) {
    for (let page = Math.floor(write.position / PAGE_BYTES); page * PAGE_BYTES < write.position + write.bytes.length; page += 1) touched.add(page);
  }
  const pages = [...touched].sort((a, b) => a - b);
  if (pages.length < 2) return [];
  const subsets: boolean[][] = [pages.map((_, index) => index > 0)];
  // All kept or all lost is what the whole-write variants already give.
  for (let attempt = 0; subsets.length < count && attempt < 4 * count; attempt += 1) {
    const kept = pages.map(() => random() < 0.5);
    if (kept.some(Boolean) && !kept.every(Boolean)) subsets.push(kept);
  }
  return subsets.map((kept, index) => {
    const bytes = Buffer.from(issued);
    pages.forEach((page, at) => {
      if (kept[at]) return;
      const end = Math.min((page + 1) * PAGE_BYTES, bytes.length);
      for (let byte = page * PAGE_BYTES; byte < end; byte += 1) bytes[byte] = byte < durable.length ? (durable[byte] as number) : 0;
    });
    const lastKept = pages[kept.lastIndexOf(true)] as number;
    const missingFrom = Math.max(durable.length, Math.min(bytes.length, (lastKept + 1) * PAGE_BYTES));
    // The first subset keeps the size (its lost page is inside); the others drop lost pages at the end half of the time.
    const drop = index > 0 && missingFrom < bytes.length && random() < 0.5;
    const lost = pages.filter((_, at) => !kept[at]);
    return {
      bytes: drop ? bytes.subarray(0, missingFrom) : bytes,
      label: `unsynced pages ${pages.join(',')}: lost ${lost.join(',')}${drop ? `, missing from byte ${missingFrom}` : ', zero-filled'}`,
    };
  });
}

/** Byte counts of a prefix to keep: 1, half, all but one, a line boundary, and random ones. */
function cutOffsets(bytes: Buffer, random: () => number, randomCount: number): number[] {
  const length = bytes.length;
  const offsets = new Set([1, Math.floor(length / 2), length - 1]);
  const boundaries: number[] = [];
  for (let at = bytes.indexOf(10); at !== -1 && at < length - 1; at = bytes.indexOf(10, at + 1)) boundaries.push(at + 1);
  if (boundaries.length > 0) offsets.add(boundaries[Math.floor(random() * boundaries.length)] as number);
  for (let i = 0; i < randomCount; i += 1) offsets.add(1 + Math.floor(random() * (length - 1)));
  return [...offsets].filter((cut) => cut > 0 && cut < length).sort((a, b) => a - b);
}

/** Offsets from which an unsynced write reads back as zeros: all of it, the last byte, a line boundary, random ones. */
function zeroOffsets(bytes: Buffer, random: () => number, randomCount: number): number[] {
  const length = bytes.length;
  const offsets = new Set([0, length - 1]);
  const newline = bytes.indexOf(10);
  if (newline !== -1 && newline < length - 1) offsets.add(newline + 1);
  for (let i = 0; i < randomCount; i += 1) offsets.add(Math.floor(random() * length));
  return [...offsets].filter((from) => from >= 0 && from < length).sort((a, b) => a - b);
}

/** A stable key of a crash state, to check each distinct state once. */
export function stateKey(state: CrashState): string {
  const hash = createHash('sha256');
  for (const [path, value] of [...state.entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    hash.update(path).update('\0');
    if (value === 'dir') hash.update('dir\0');
    else hash.update(`file ${value.length}\0`).update(value);
  }
  return hash.digest('hex');
}

/** Writes a crash state under `root` (which must exist and be empty). */
export async function materialize(state: CrashState, root: string): Promise<void> {
  const entries = [...state.entries].sort(([a], [b]) => a.split(sep).length - b.split(sep).length);
  for (const [path, value] of entries) {
    const target = join(root, path);
    if (value === 'dir') await mkdir(target, { recursive: true });
    else await writeFile(target, value);
  }
}

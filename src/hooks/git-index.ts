import { lstatSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The paths git tracks in a working tree, as its index (`.git/index`) lists them. Versions 2, 3
 * and 4 are read (4 stores each path as a change to the one before), SHA-1 and SHA-256
 * repositories alike: the hash length is the one under which the whole file parses to its last
 * byte (entries, extensions, then a checksum of that length). A split index (`link` extension) adds the
 * shared index it names. Anything that cannot be read that way is reported as unknown, never as
 * "tracks nothing": the callers treat unknown as "may track anything".
 */
export type TrackedFiles =
  /** `writtenAtNs`: when the index was last written, which tells racily clean entries (unchangedSinceStaged). */
  | { known: true; entries: IndexEntry[]; writtenAtNs: bigint }
  | { known: false; why: string };

export interface IndexEntry {
  /** Relative to the top of the working tree, `/`-separated; a sparse directory's ends in `/`. */
  path: string;
  /**
   * Where in `index` (the file's bytes) the entry's 40 bytes of stat data start: what git compares
   * with the file's own to take it as unchanged without reading it.
   */
  statAt: number;
  index: Buffer;
}

/** An index this large is not read (about 600,000 entries). */
const MAX_INDEX_BYTES = 64 * 1024 * 1024;

const SIGNATURE = 'DIRC';
const HEADER_BYTES = 12;
/** ctime, mtime (seconds, nanoseconds), dev, ino, mode, uid, gid, size: ten 32-bit fields. */
const STAT_BYTES = 40;
/** Where the mode sits among them. */
const MODE_OFFSET = 24;
const HASH_BYTES = [20, 32] as const;
const EXTENDED_FLAG = 0x4000;
const NAME_LENGTH_MASK = 0x0fff;
const SPARSE_DIRECTORY_MODE = 0o040000;

/** The index of the working tree whose top is `root`, read from its `.git` directory or the one a `.git` file names. */
export function trackedFilesOf(root: string): TrackedFiles {
  const gitDir = gitDirectoryOf(root);
  if (gitDir === undefined) return { known: false, why: `${join(root, '.git')} is neither a directory nor a gitdir file` };
  const own = readIndexFile(join(gitDir, 'index'));
  if (own.kind === 'unknown') return { known: false, why: own.why };
  if (own.kind === 'missing') return { known: true, entries: [], writtenAtNs: 0n }; // nothing staged yet
  const { index, writtenAtNs } = own;
  if (index.sharedIndex === undefined) return { known: true, entries: index.entries, writtenAtNs };
  // A split index holds only the entries changed since its shared index; the rest are there. The
  // union may still list a path the split index removed: one more file counted as tracked.
  const shared = readIndexFile(join(gitDir, `sharedindex.${index.sharedIndex}`));
  if (shared.kind !== 'read') return { known: false, why: shared.kind === 'unknown' ? shared.why : 'its shared index is missing' };
  return { known: true, entries: [...shared.index.entries, ...index.entries], writtenAtNs };
}

/**
 * Whether git takes the working-tree file at `path` as unchanged since `entry` staged it, and so
 * prints nothing of it in `git diff`: its size, times and inode are those the index recorded, and
 * it was not modified in the same instant the index was written (a racily clean entry, whose
 * content git compares). Any doubt, a missing file included (its deletion prints it), is "changed".
 */
export function unchangedSinceStaged(path: string, entry: IndexEntry, writtenAtNs: bigint): boolean {
  let info;
  try {
    info = lstatSync(path, { bigint: true, throwIfNoEntry: false });
  } catch {
    return false;
  }
  if (info === undefined) return false;
  const field = (offset: number) => entry.index.readUInt32BE(entry.statAt + offset);
  const stagedMtimeNs = BigInt(field(8)) * NS_PER_SECOND + BigInt(field(12));
  if (stagedMtimeNs >= writtenAtNs) return false;
  const low32 = (value: bigint) => Number(value & 0xffffffffn);
  return (
    field(0) === low32(info.ctimeNs / NS_PER_SECOND) &&
    field(4) === Number(info.ctimeNs % NS_PER_SECOND) &&
    field(8) === low32(info.mtimeNs / NS_PER_SECOND) &&
    field(12) === Number(info.mtimeNs % NS_PER_SECOND) &&
    field(20) === low32(info.ino) &&
    field(36) === low32(info.size)
  );
}

const NS_PER_SECOND = 1_000_000_000n;

/** `<root>/.git` when a directory; the directory a `gitdir: <path>` file there names (worktrees, submodules). */
function gitDirectoryOf(root: string): string | undefined {
  const dotGit = join(root, '.git');
  try {
    if (statSync(dotGit).isDirectory()) return dotGit;
    const named = /^gitdir: (.+?)\r?\n?$/.exec(readFileSync(dotGit, 'utf8'))?.[1];
    return named === undefined ? undefined : resolve(root, named);
  } catch {
    return undefined;
  }
}

interface ParsedIndex {
  entries: IndexEntry[];
  /** The hex hash of the shared index when this one is split. */
  sharedIndex?: string;
}

type IndexFile = { kind: 'read'; index: ParsedIndex; writtenAtNs: bigint } | { kind: 'missing' } | { kind: 'unknown'; why: string };

function readIndexFile(path: string): IndexFile {
  let bytes: Buffer;
  let writtenAtNs: bigint;
  try {
    const info = statSync(path, { bigint: true, throwIfNoEntry: false });
    if (info === undefined) return { kind: 'missing' };
    if (info.size > MAX_INDEX_BYTES) return { kind: 'unknown', why: `${path} is larger than ${MAX_INDEX_BYTES} bytes` };
    writtenAtNs = info.mtimeNs;
    bytes = readFileSync(path);
  } catch (error) {
    return { kind: 'unknown', why: `${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  const index = parseIndex(bytes);
  return index === undefined ? { kind: 'unknown', why: `${path} is not a git index of version 2, 3 or 4` } : { kind: 'read', index, writtenAtNs };
}

/** The index in `bytes`, or undefined when it parses under neither hash length. */
export function parseIndex(bytes: Buffer): ParsedIndex | undefined {
  if (bytes.length < HEADER_BYTES || bytes.toString('latin1', 0, 4) !== SIGNATURE) return undefined;
  const version = bytes.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  const count = bytes.readUInt32BE(8);
  for (const hashBytes of HASH_BYTES) {
    const parsed = parseWithHashLength(bytes, version, count, hashBytes);
    if (parsed !== undefined) return parsed;
  }
  return undefined;
}

function parseWithHashLength(bytes: Buffer, version: number, count: number, hashBytes: number): ParsedIndex | undefined {
  // The entries are read from the bytes as a latin1 string, one character a byte: string searches
  // and slices cost a hook process (whose code runs cold) a fraction of Buffer's. A name with bytes
  // above 0x7f is decoded again as UTF-8.
  const text = bytes.toString('latin1');
  const entries: IndexEntry[] = [];
  // Version 4 writes each name as a change to the one before, counted in bytes.
  let previous = '';
  let at = HEADER_BYTES;
  for (let entry = 0; entry < count; entry += 1) {
    const start = at;
    const flagsAt = start + STAT_BYTES + hashBytes;
    if (flagsAt + 2 > text.length) return undefined;
    const flags = (text.charCodeAt(flagsAt) << 8) | text.charCodeAt(flagsAt + 1);
    const extended = (flags & EXTENDED_FLAG) !== 0;
    if (extended && version < 3) return undefined;
    const nameAt = flagsAt + 2 + (extended ? 2 : 0);
    let name: string;
    if (version === 4) {
      const strip = readOffsetVarint(bytes, nameAt);
      if (strip === undefined || strip.value > previous.length) return undefined;
      const end = text.indexOf('\0', strip.next);
      if (end === -1) return undefined;
      name = previous.slice(0, previous.length - strip.value) + text.slice(strip.next, end);
      previous = name;
      at = end + 1;
    } else {
      const end = text.indexOf('\0', nameAt);
      if (end === -1) return undefined;
      name = text.slice(nameAt, end);
      // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes from their start.
      at = start + ((nameAt - start + name.length + 8) & ~7);
      if (at > text.length || !text.startsWith(PADDING.slice(0, at - end), end)) return undefined;
    }
    // The flags state the name's length, or 0xfff for "that long or longer".
    if ((flags & NAME_LENGTH_MASK) !== Math.min(name.length, NAME_LENGTH_MASK)) return undefined;
    const path = NOT_ASCII.test(name) ? Buffer.from(name, 'latin1').toString('utf8') : name;
    const sparseDirectory = bytes.readUInt32BE(start + MODE_OFFSET) === SPARSE_DIRECTORY_MODE;
    entries.push({ path: sparseDirectory && !path.endsWith('/') ? `${path}/` : path, index: bytes, statAt: start });
  }
  return readExtensions(bytes, at, hashBytes, entries);
}

const PADDING = '\0'.repeat(8);
const NOT_ASCII = /[^\x00-\x7f]/;

/** The extensions after the entries, which must end exactly where the trailing checksum starts. */
function readExtensions(bytes: Buffer, from: number, hashBytes: number, entries: IndexEntry[]): ParsedIndex | undefined {
  const end = bytes.length - hashBytes;
  let sharedIndex: string | undefined;
  let at = from;
  while (at < end) {
    if (at + 8 > end) return undefined;
    const signature = bytes.toString('latin1', at, at + 4);
    const size = bytes.readUInt32BE(at + 4);
    if (at + 8 + size > end) return undefined;
    if (signature === 'link') {
      if (size < hashBytes) return undefined;
      sharedIndex = bytes.toString('hex', at + 8, at + 8 + hashBytes);
    }
    at += 8 + size;
  }
  if (at !== end) return undefined;
  return sharedIndex === undefined ? { entries } : { entries, sharedIndex };
}

/**
 * git's offset varint (varint.c): seven bits a byte, most significant first, each continuation
 * adding one so that every number has a single encoding.
 */
function readOffsetVarint(bytes: Buffer, at: number): { value: number; next: number } | undefined {
  let byte = bytes[at];
  if (byte === undefined) return undefined;
  let value = byte & 0x7f;
  let next = at + 1;
  while ((byte & 0x80) !== 0) {
    byte = bytes[next];
    if (byte === undefined || value > 0xffffff) return undefined;
    value = ((value + 1) << 7) | (byte & 0x7f);
    next += 1;
  }
  return { value, next };
}

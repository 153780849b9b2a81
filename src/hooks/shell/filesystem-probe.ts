import { closeSync, constants, fstatSync, type Dirent, lstatSync, openSync, opendirSync, readSync, realpathSync, statSync, type Stats } from 'node:fs';
import { MAX_COMMAND_BYTES, MAX_DIRECTORY_ENTRIES, MAX_DIRECTORY_LISTINGS } from './analysis-limits.js';

/**
 * The only filesystem access of the analysis: synchronous, read-only lookups (what is at a path,
 * where a symlink leads, the names in a directory), cached for the length of one analysis so a
 * command that names the same directory twenty times costs one system call. Nothing is cached
 * across analyses: a command may have changed the filesystem since the last one.
 */
export interface FilesystemProbe {
  /** realpath(3) of `path` (symlinks and `..` resolved by the kernel), or undefined if it does not exist. */
  realpath(path: string): string | undefined;
  /** What is at `path` (following symlinks), or undefined if nothing is. */
  kind(path: string): PathKind | undefined;
  /** What `path` itself is (a symlink is not followed), or undefined if nothing is. */
  linkKind(path: string): PathKind | 'symlink' | undefined;
  /**
   * The names in a directory (never `.` and `..`), undefined if it cannot be listed, `too_large`
   * beyond MAX_DIRECTORY_ENTRIES, or once MAX_DIRECTORY_LISTINGS directories were listed in this
   * analysis (the caller must not pretend it saw every name).
   */
  list(directory: string): readonly string[] | 'too_large' | undefined;
  /**
   * The names in a directory as `list` gives them, but only when there are at most `maxEntries`
   * (undefined otherwise, or when it cannot be listed): one listing that costs no more than
   * looking up that many names one by one. A directory with more is not taken as too large
   * for `list`.
   */
  listUpTo(directory: string, maxEntries: number): readonly string[] | undefined;
  /**
   * The bytes of the script file at `path` (a physical path: the last component is not followed)
   * as text, NULs included, for a shell that runs it: undefined when there is nothing to read (no
   * such file, a directory, unreadable), `not_regular` for a FIFO or device (its code is unknown
   * until it is read), `linked` for a file with other names (a hard link: it could be a protected
   * file under an innocent name), and for a file beyond MAX_COMMAND_BYTES its first bytes (`/bin/ls`
   * is a compiled program, not shell code too long to follow).
   */
  readScript(path: string): ScriptText;
  /** Physical paths already worked out in this analysis (path-resolution.ts), by raw absolute path. */
  readonly physical: Map<string, string>;
  /**
   * Records a symlink an earlier command of the line creates (`ln -s ~ h && cat h/.ssh/id_rsa`):
   * from then on `path` is seen as a symlink to `target` (absolute, where the link leads), so
   * every later path through it resolves to where the kernel will arrive.
   */
  assumeSymlink(path: string, target: string): void;
  /**
   * True once a symlink is assumed: realpath(3) of a path through it would not see it. A probe
   * without this method is taken to assume some.
   */
  assumesSymlinks?(): boolean;
}

export type PathKind = 'file' | 'directory' | 'other';

export type ScriptText = string | 'not_regular' | 'linked' | { tooLarge: true; head: string } | undefined;

/** How much of a file too large to follow is read: enough for bash's binary test (a NUL in the first line, within 80 bytes) and a `#!` line. */
const SCRIPT_HEAD_BYTES = 256;

function kindOf(stats: Stats | undefined): PathKind | undefined {
  return stats === undefined ? undefined : stats.isDirectory() ? 'directory' : stats.isFile() ? 'file' : 'other';
}

/** A `//`, a `.` or `..` component, or a trailing `/` (as in path-resolution.ts). */
const NOT_NORMALIZED = /\/(?:\.{1,2})?(?:\/|$)/;

/** What an lstat of a directory entry would say, from its type; undefined when the type is not known. */
function entryKind(entry: Dirent): PathKind | 'symlink' | undefined {
  if (entry.isSymbolicLink()) return 'symlink';
  if (entry.isDirectory()) return 'directory';
  if (entry.isFile()) return 'file';
  return entry.isFIFO() || entry.isSocket() || entry.isCharacterDevice() || entry.isBlockDevice() ? 'other' : undefined;
}

/** The directory part of an absolute path (everything before its last `/`), undefined for `/name` and relative paths. */
function parentOf(path: string): string | undefined {
  const slash = path.lastIndexOf('/');
  return slash > 0 && path.startsWith('/') ? path.slice(0, slash) : undefined;
}

function forgetFrom(cache: Map<string, unknown>, path: string): void {
  for (const known of cache.keys()) if (known === path || known.startsWith(`${path}/`)) cache.delete(known);
}

export function createFilesystemProbe(): FilesystemProbe {
  const realpaths = new Map<string, string | undefined>();
  const kinds = new Map<string, PathKind | undefined>();
  const linkKinds = new Map<string, PathKind | 'symlink' | undefined>();
  const listings = new Map<string, readonly string[] | 'too_large' | undefined>();
  let listed = 0;
  /** Symlinks assumed (assumeSymlink): link path → where it leads. */
  const assumed = new Map<string, string>();
  /** `path` with an assumed link at its start replaced by where it leads (the real filesystem has no such link yet). */
  const throughAssumed = (path: string): string => {
    for (const [link, real] of assumed) {
      if (path.startsWith(`${link}/`)) return real + path.slice(link.length);
    }
    return path;
  };
  /**
   * True when what is already known of `directory` says no path under it exists: the kernel
   * resolves the directory part of a path before the name in it, so when that is missing (an
   * lstat or a stat of it failed) or not a directory, so is everything under it. `split` asks
   * for hundreds of names in a directory that may not exist, each a stat otherwise. Only the
   * real filesystem is known this way, not one with assumed links.
   */
  const holdsNothing = (directory: string | undefined): boolean => {
    if (directory === undefined || assumed.size > 0) return false;
    if (kinds.has(directory)) return kinds.get(directory) !== 'directory';
    if (!linkKinds.has(directory)) return false;
    const link = linkKinds.get(directory);
    return link !== 'directory' && link !== 'symlink';
  };
  const probe: FilesystemProbe = {
    physical: new Map(),
    assumesSymlinks() {
      return assumed.size > 0;
    },
    assumeSymlink(path, target) {
      // Where the target leads now (it may be a link itself); a missing target is kept as written.
      const real = probe.realpath(target) ?? target;
      assumed.set(path, real);
      // Anything worked out at or under `path` before the link existed is stale.
      for (const cache of [realpaths, kinds, linkKinds, listings]) forgetFrom(cache, path);
      probe.physical.clear();
    },
    realpath(path) {
      if (realpaths.has(path)) return realpaths.get(path);
      let real: string | undefined;
      try {
        const link = assumed.get(path);
        real = link !== undefined ? link : realpathSync.native(throughAssumed(path));
      } catch {
        real = undefined;
      }
      realpaths.set(path, real);
      return real;
    },
    kind(path) {
      if (kinds.has(path)) return kinds.get(path);
      // The lstat first: it answers for anything but a symlink (what is there is what a stat
      // finds; nothing there, nothing to follow), so only a symlink costs a stat too. Resolving
      // the path asks for that lstat anyway (path-resolution.ts): `cp a dir/` asks what dir/ is,
      // then reports it.
      const link = probe.linkKind(path);
      let kind: PathKind | undefined;
      if (link !== 'symlink') kind = link;
      else {
        try {
          kind = kindOf(statSync(assumed.get(path) ?? throughAssumed(path), { throwIfNoEntry: false }));
        } catch {
          kind = undefined;
        }
      }
      kinds.set(path, kind);
      return kind;
    },
    linkKind(path) {
      if (linkKinds.has(path)) return linkKinds.get(path);
      let kind: PathKind | 'symlink' | undefined;
      try {
        if (assumed.has(path)) return 'symlink';
        if (holdsNothing(parentOf(path))) return undefined;
        const stats = lstatSync(throughAssumed(path), { throwIfNoEntry: false });
        kind = stats?.isSymbolicLink() ? 'symlink' : kindOf(stats);
      } catch {
        kind = undefined;
      }
      linkKinds.set(path, kind);
      return kind;
    },
    readScript(path) {
      return readScriptFile(throughAssumed(path));
    },
    list(directory) {
      if (listings.has(directory)) return listings.get(directory);
      if (listed === MAX_DIRECTORY_LISTINGS) return 'too_large';
      const names = readDirectory(directory, MAX_DIRECTORY_ENTRIES);
      listings.set(directory, names);
      return names;
    },
    listUpTo(directory, maxEntries) {
      const known = listings.get(directory);
      if (known !== undefined) return known === 'too_large' ? undefined : known;
      if (listings.has(directory) || listed === MAX_DIRECTORY_LISTINGS) return undefined;
      const names = readDirectory(directory, Math.min(maxEntries, MAX_DIRECTORY_ENTRIES));
      // A directory past the smaller bound is not known to be too large for list().
      if (names === 'too_large') return undefined;
      listings.set(directory, names);
      return names;
    },
  };
  /** Lists `directory` (counted against MAX_DIRECTORY_LISTINGS), at most `maxEntries` names. */
  const readDirectory = (directory: string, maxEntries: number): string[] | 'too_large' | undefined => {
    listed += 1;
    let names: string[] | 'too_large' | undefined;
    try {
      const dir = opendirSync(assumed.get(directory) ?? throughAssumed(directory), { bufferSize: 256 });
      try {
        const read: string[] = [];
        // An entry's type is what an lstat of it would say (Node lstats an entry whose type the
        // filesystem does not report, at the lexically joined path: hence only for a normalized
        // directory), so the listing answers linkKind for every name in it and a glob's matches
        // are resolved without an lstat each. Not once a link is assumed: the real directory
        // does not hold it yet.
        const prefix = assumed.size === 0 && directory.startsWith('/') && !NOT_NORMALIZED.test(directory) ? `${directory}/` : undefined;
        for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) {
          if (read.length === maxEntries) {
            names = 'too_large';
            break;
          }
          read.push(entry.name);
          if (prefix !== undefined) {
            const type = entryKind(entry);
            const path = prefix + entry.name;
            if (type !== undefined && !linkKinds.has(path)) linkKinds.set(path, type);
          }
        }
        names ??= read;
      } finally {
        dir.closeSync();
      }
    } catch {
      names = undefined;
    }
    return names;
  };
  return probe;
}

function readScriptFile(path: string): ScriptText {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer (the hook would hang).
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const info = fstatSync(fd);
    if (info.isDirectory()) return undefined;
    if (!info.isFile()) return 'not_regular';
    if (info.nlink > 1) return 'linked';
    // One byte more than measured, to see a file that grew meanwhile.
    const tooLarge = info.size > MAX_COMMAND_BYTES;
    const buffer = Buffer.alloc(tooLarge ? SCRIPT_HEAD_BYTES : info.size + 1);
    let length = 0;
    while (length < buffer.length) {
      const read = readSync(fd, buffer, length, buffer.length - length, length);
      if (read === 0) break;
      length += read;
    }
    if (tooLarge || length > info.size) return { tooLarge: true, head: buffer.toString('utf8', 0, Math.min(length, SCRIPT_HEAD_BYTES)) };
    return buffer.toString('utf8', 0, length);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

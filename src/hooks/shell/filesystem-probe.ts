import { lstatSync, opendirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { MAX_DIRECTORY_ENTRIES, MAX_DIRECTORY_LISTINGS } from './analysis-limits.js';

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
  /** Physical paths already worked out in this analysis (path-resolution.ts), by raw absolute path. */
  readonly physical: Map<string, string>;
}

export type PathKind = 'file' | 'directory' | 'other';

function kindOf(stats: Stats | undefined): PathKind | undefined {
  return stats === undefined ? undefined : stats.isDirectory() ? 'directory' : stats.isFile() ? 'file' : 'other';
}

export function createFilesystemProbe(): FilesystemProbe {
  const realpaths = new Map<string, string | undefined>();
  const kinds = new Map<string, PathKind | undefined>();
  const linkKinds = new Map<string, PathKind | 'symlink' | undefined>();
  const listings = new Map<string, readonly string[] | 'too_large' | undefined>();
  let listed = 0;
  const probe: FilesystemProbe = {
    physical: new Map(),
    realpath(path) {
      if (realpaths.has(path)) return realpaths.get(path);
      let real: string | undefined;
      try {
        real = realpathSync.native(path);
      } catch {
        real = undefined;
      }
      realpaths.set(path, real);
      return real;
    },
    kind(path) {
      if (kinds.has(path)) return kinds.get(path);
      // An lstat already made answers for anything but a symlink.
      const link = linkKinds.get(path);
      let kind: PathKind | undefined;
      if (link !== undefined && link !== 'symlink') kind = link;
      else {
        try {
          kind = kindOf(statSync(path, { throwIfNoEntry: false }));
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
        const stats = lstatSync(path, { throwIfNoEntry: false });
        kind = stats?.isSymbolicLink() ? 'symlink' : kindOf(stats);
      } catch {
        kind = undefined;
      }
      linkKinds.set(path, kind);
      return kind;
    },
    list(directory) {
      if (listings.has(directory)) return listings.get(directory);
      if (listed === MAX_DIRECTORY_LISTINGS) return 'too_large';
      listed += 1;
      let names: string[] | 'too_large' | undefined;
      try {
        const dir = opendirSync(directory, { bufferSize: 256 });
        try {
          const read: string[] = [];
          for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) {
            if (read.length === MAX_DIRECTORY_ENTRIES) {
              names = 'too_large';
              break;
            }
            read.push(entry.name);
          }
          names ??= read;
        } finally {
          dir.closeSync();
        }
      } catch {
        names = undefined;
      }
      listings.set(directory, names);
      return names;
    },
  };
  return probe;
}

import { lstatSync, opendirSync, realpathSync, statSync } from 'node:fs';
import { MAX_DIRECTORY_ENTRIES } from './analysis-limits.js';

/**
 * The only filesystem access of the analysis: synchronous, read-only lookups (realpath of a
 * path, the kind of a path, the names in a directory), cached for the length of one analysis so
 * a command that names the same directory twenty times costs one system call.
 */
export interface FilesystemProbe {
  /** The physical path (`realpath(3)`: symlinks and `..` resolved by the kernel), or undefined if it does not exist. */
  realpath(path: string): string | undefined;
  /** What is at `path` (following symlinks), or undefined if nothing is. */
  kind(path: string): 'file' | 'directory' | 'other' | undefined;
  /** True when `path` itself is a symlink (not followed). */
  isSymlink(path: string): boolean;
  /**
   * The names in a directory (never `.` and `..`), undefined if it cannot be listed, `too_large`
   * beyond MAX_DIRECTORY_ENTRIES (the caller must not pretend it saw every name).
   */
  list(directory: string): readonly string[] | 'too_large' | undefined;
}

export function createFilesystemProbe(): FilesystemProbe {
  const realpaths = new Map<string, string | undefined>();
  const kinds = new Map<string, 'file' | 'directory' | 'other' | undefined>();
  const listings = new Map<string, readonly string[] | 'too_large' | undefined>();
  const symlinks = new Map<string, boolean>();
  return {
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
      let kind: 'file' | 'directory' | 'other' | undefined;
      try {
        const stats = statSync(path, { throwIfNoEntry: false });
        kind = stats === undefined ? undefined : stats.isDirectory() ? 'directory' : stats.isFile() ? 'file' : 'other';
      } catch {
        kind = undefined;
      }
      kinds.set(path, kind);
      return kind;
    },
    isSymlink(path) {
      let symlink = symlinks.get(path);
      if (symlink === undefined) {
        try {
          symlink = lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
        } catch {
          symlink = false;
        }
        symlinks.set(path, symlink);
      }
      return symlink;
    },
    list(directory) {
      if (listings.has(directory)) return listings.get(directory);
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
}

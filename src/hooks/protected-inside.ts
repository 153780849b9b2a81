import { readdirSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { monotonicMs } from '../monotonic-clock.js';

/**
 * The protected files a recursive read of `dir` would reach (`grep -r KEY .` reads `.env`). The
 * walk is bounded so a hook stays fast in a large tree: past the bounds it reports itself
 * incomplete, and the caller treats the rest as unknown (never as clean). Symlinks are followed:
 * to a protected file, and into directories (bounded by the same limits, each real directory
 * entered once). `.git`, `node_modules` and `.venv` are not entered: they hold the repository's
 * objects and installed packages, not the workspace's secrets (docs/hooks.md says so).
 */
export interface ProtectedInside {
  /** Each protected entry, with where it leads when it is a symlink. */
  found: { path: string; realPath?: string }[];
  complete: boolean;
}

const SKIPPED_DIRECTORIES = new Set(['.git', 'node_modules', '.venv']);

/** Bounds of one walk: entries read, and milliseconds. */
export const WALK_LIMITS = { entries: 20_000, ms: 150 } as const;

export function findProtectedInside(dir: string, protects: (path: string) => string | undefined, limits: { entries: number; ms: number } = WALK_LIMITS): ProtectedInside {
  const found: ProtectedInside['found'] = [];
  const deadline = monotonicMs() + limits.ms;
  let seen = 0;
  // The walk reads physical directories and checks both names: under `src/h -> ~`, the entry
  // `src/h/.aws` is `~/.aws` for the kernel, and only that name is protected.
  const root = realPathOf(dir) ?? dir;
  const visited = new Set([root]);
  const pending: { path: string; real: string }[] = [{ path: dir, real: root }];
  while (pending.length > 0) {
    const current = pending.pop() as { path: string; real: string };
    let entries: Dirent[];
    try {
      entries = readdirSync(current.real, { withFileTypes: true });
    } catch {
      continue; // unreadable to us is unreadable to the command too
    }
    for (const entry of entries) {
      seen += 1;
      if (seen > limits.entries || (seen % 256 === 0 && monotonicMs() > deadline)) return { found, complete: false };
      const path = join(current.path, entry.name);
      let real = join(current.real, entry.name);
      if (protects(path) !== undefined) {
        found.push(real === path ? { path } : { path, realPath: real });
        continue;
      }
      if (entry.isSymbolicLink()) {
        const target = realPathOf(real);
        if (target === undefined) continue; // dangling: leads nowhere
        real = target;
      }
      if (real !== path && protects(real) !== undefined) {
        found.push({ path, realPath: real });
        continue;
      }
      // A symlinked directory is walked like any other (`grep -R`, `cp -rL`, `tar h`, `rsync -L`,
      // `find -L` follow it), once per real directory, so a link to an ancestor ends.
      const directory = entry.isDirectory() || (entry.isSymbolicLink() && isDirectory(real));
      if (directory && !SKIPPED_DIRECTORIES.has(entry.name) && !visited.has(real)) {
        visited.add(real);
        pending.push({ path, real });
      }
    }
  }
  return { found: found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)), complete: true };
}

/** Where `path` leads, symlinks resolved; undefined when nowhere. */
export function realPathOf(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

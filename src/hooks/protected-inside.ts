import { readdirSync, realpathSync, type Dirent } from 'node:fs';
import { join } from 'node:path';

/**
 * The protected files a recursive read of `dir` would reach (`grep -r KEY .` reads `.env`). The
 * walk is bounded so a hook stays fast in a large tree: past the bounds it reports itself
 * incomplete, and the caller treats the rest as unknown (never as clean). `.git` and
 * `node_modules` are not entered: they hold the repository's objects and installed packages, not
 * the workspace's secrets (docs/hooks.md says so).
 */
export interface ProtectedInside {
  /** Each protected entry, with where it leads when it is a symlink. */
  found: { path: string; realPath?: string }[];
  complete: boolean;
}

const SKIPPED_DIRECTORIES = new Set(['.git', 'node_modules']);

export function findProtectedInside(dir: string, protects: (path: string) => string | undefined, limits = { entries: 20_000, ms: 150 }): ProtectedInside {
  const found: ProtectedInside['found'] = [];
  const deadline = performance.now() + limits.ms;
  let seen = 0;
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    let entries: Dirent[];
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      continue; // unreadable to us is unreadable to the command too
    }
    for (const entry of entries) {
      seen += 1;
      if (seen > limits.entries || (seen % 256 === 0 && performance.now() > deadline)) return { found, complete: false };
      const path = join(current, entry.name);
      if (protects(path) !== undefined) {
        found.push({ path });
        continue;
      }
      const realPath = entry.isSymbolicLink() ? protectedTarget(path, protects) : undefined;
      if (realPath !== undefined) {
        found.push({ path, realPath });
        continue;
      }
      if (entry.isDirectory() && !SKIPPED_DIRECTORIES.has(entry.name)) pending.push(path);
    }
  }
  return { found: found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)), complete: true };
}

/** Where the symlink at `path` leads, if that is protected. */
function protectedTarget(path: string, protects: (path: string) => string | undefined): string | undefined {
  try {
    const realPath = realpathSync(path);
    return protects(realPath) !== undefined ? realPath : undefined;
  } catch {
    return undefined;
  }
}

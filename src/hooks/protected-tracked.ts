import { trackedFilesOf, unchangedSinceStaged } from './git-index.js';
import { realPathOf, type ProtectedInside } from './protected-inside.js';

/**
 * The protected files git tracks in the working tree whose top is `root`: what `git diff`,
 * `git log -p` or `git show` print without a path being named. The index lists them whether or
 * not they are on disk, so nothing is walked. `skipsUnchanged` (`git diff` of the working tree)
 * leaves out those unchanged since they were staged. An index that cannot be read, or a sparse
 * directory (the index does not list its files), leaves the answer incomplete.
 */
export function findProtectedTracked(root: string, protects: (path: string) => string | undefined, skipsUnchanged: boolean): ProtectedInside {
  const tracked = trackedFilesOf(root);
  if (!tracked.known) return { found: [], complete: false };
  // The rules name files as the kernel reaches them: a repository at `~/dotfiles -> ~/.ssh` tracks `~/.ssh/id_rsa`.
  const realRoot = realPathOf(root);
  const found: ProtectedInside['found'] = [];
  let complete = true;
  // git writes no `.`, `..` or empty segment into an index path, so joining is concatenating; an
  // index written by other means may hold one (`../.ssh/id_rsa`), and leaves the answer incomplete.
  const prefix = root.endsWith('/') ? root : `${root}/`;
  const realPrefix = realRoot === undefined || realRoot === root ? undefined : realRoot.endsWith('/') ? realRoot : `${realRoot}/`;
  for (const entry of tracked.entries) {
    const relative = entry.path;
    const path = prefix + relative;
    const realPath = realPrefix === undefined ? undefined : realPrefix + relative;
    // A sparse directory (the files it holds are listed in a tree object, not here), or a path git would not write.
    if (relative.endsWith('/') || NOT_PLAIN_PATH.test(relative)) {
      complete = false;
      continue;
    }
    const named = protects(path) !== undefined ? { path } : realPath !== undefined && protects(realPath) !== undefined ? { path, realPath } : undefined;
    if (named === undefined || (skipsUnchanged && unchangedSinceStaged(path, entry, tracked.writtenAtNs))) continue;
    if (!found.some((other) => other.path === path)) found.push(named); // a path at several merge stages
  }
  return { found: found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)), complete };
}

const NOT_PLAIN_PATH = /(?:^|\/)\.{0,2}(?:\/|$)/;

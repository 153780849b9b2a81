import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { trackedFilesOf } from './git-index.js';

/**
 * Whether git leaves a file out when it stages a tree (`git add .`, `git add -A`, `git stash`):
 * it does so only for a file it ignores and does not track. Both are answered conservatively, so
 * every doubt means "staged": only the plainest ignore rule counts (see listsExactly), and a file
 * counts as tracked unless the index plainly does not name it.
 */
export function ignoredAndUntracked(file: string): boolean {
  const root = repositoryRootOf(dirname(file));
  if (root === undefined) return false;
  return listedByGitignore(file, root) && !namedByIndex(file, root);
}

/** The nearest directory at or above `dir` holding a `.git`. */
export function repositoryRootOf(dir: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, '.git'))) return at;
    if (dirname(at) === at) return undefined;
  }
}

/** Whether a `.gitignore` between `root` and `file` names one of the segments on the way, exactly. */
export function listedByGitignore(file: string, root: string): boolean {
  const segments = relative(root, file).split(sep);
  if (segments.length === 0 || segments[0] === '' || segments[0] === '..') return false;
  let dir = root;
  for (const [index, name] of segments.entries()) {
    if (listsExactly(join(dir, '.gitignore'), name, index < segments.length - 1)) return true;
    dir = join(dir, name);
  }
  return false;
}

/** Larger ignore files are not parsed: the answer is then "not ignored". */
const MAX_IGNORE_FILE_BYTES = 256 * 1024;

/**
 * Whether `ignoreFile` lists `name` as a plain line (`name`, `/name`, or `name/` for a
 * directory) and has no negation that could take it back (`!` with a wildcard, or naming it).
 * The same reading serves npm's `.npmignore`, which is written in .gitignore's syntax.
 */
export function listsExactly(ignoreFile: string, name: string, isDirectory: boolean): boolean {
  let text: string;
  try {
    if (statSync(ignoreFile).size > MAX_IGNORE_FILE_BYTES) return false;
    text = readFileSync(ignoreFile, 'utf8');
  } catch {
    return false;
  }
  let listed = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trimEnd(); // git ignores trailing spaces, not leading ones
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('!')) {
      if (/[*?[\\]/.test(line) || line.includes(name)) return false;
      continue;
    }
    const bare = line.replace(/^\//, '');
    if (bare === name || (isDirectory && bare === `${name}/`)) listed = true;
  }
  return listed;
}

/**
 * Whether git's index names `file`, or any file under it. An index that cannot be read counts as
 * naming it; a missing one means a repository with nothing staged yet.
 */
function namedByIndex(file: string, root: string): boolean {
  const tracked = trackedFilesOf(root);
  if (!tracked.known) return true;
  const path = relative(root, file).split(sep).join('/');
  return tracked.entries.some(({ path: named }) => named === path || named.startsWith(`${path}/`) || (named.endsWith('/') && path.startsWith(named)));
}

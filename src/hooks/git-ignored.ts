import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

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
 */
function listsExactly(ignoreFile: string, name: string, isDirectory: boolean): boolean {
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

/** An index this large is not searched: everything then counts as tracked. */
const MAX_INDEX_BYTES = 64 * 1024 * 1024;

/**
 * Whether `.git/index` names `file`, or any file under it. Index versions 2 and 3 store each
 * path whole, followed by a NUL, so a plain byte search finds it; anything else (version 4's
 * compressed paths, a `.git` file of a worktree, an unreadable or huge index) counts as naming it.
 * A missing index means a repository with nothing staged yet.
 */
function namedByIndex(file: string, root: string): boolean {
  const gitDir = join(root, '.git');
  let index: Buffer;
  try {
    if (!statSync(gitDir).isDirectory()) return true;
    const path = join(gitDir, 'index');
    if (!existsSync(path)) return false;
    if (statSync(path).size > MAX_INDEX_BYTES) return true;
    index = readFileSync(path);
  } catch {
    return true;
  }
  if (index.length < 12 || index.toString('latin1', 0, 4) !== 'DIRC') return true;
  const version = index.readUInt32BE(4);
  if (version !== 2 && version !== 3) return true;
  const rel = relative(root, file).split(sep).join('/');
  return containsPath(index, Buffer.from(`${rel}\0`, 'utf8')) || containsPath(index, Buffer.from(`${rel}/`, 'utf8'));
}

/** `needle` at the start of a stored path: not preceded by `/`, which would make it the tail of a longer one. */
function containsPath(index: Buffer, needle: Buffer): boolean {
  for (let at = index.indexOf(needle, 12); at !== -1; at = index.indexOf(needle, at + 1)) {
    if (index[at - 1] !== 0x2f) return true;
  }
  return false;
}

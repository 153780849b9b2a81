import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/**
 * Whether Claude Code's Grep tool, searching `root`, leaves `file` (somewhere under it) unread
 * because a `.gitignore` ignores it. The tool runs ripgrep with `--hidden` (hidden files ARE
 * searched) and without `--no-ignore`, so the one thing that keeps a file out is an ignore rule;
 * `svc init` writes `.svc/` into .gitignore, which is why a search of the workspace does not read
 * the ledger keys.
 *
 * Only the plainest case counts, and anything that could undo it makes the answer "read":
 * - the search runs inside a git repository (ripgrep honours .gitignore only there);
 * - the .gitignore of the directory directly holding the ignored name lists that name exactly
 *   (`.svc/`, `/.svc`, `.env`; a `name/` line only for a directory), and has no negation (`!…`)
 *   that names it or holds a wildcard, since a later `!.svc` would un-ignore it;
 * - no `.ignore` or `.rgignore` above the file (they outrank .gitignore and can whitelist it);
 * - no ripgrep configuration file in force (`RIPGREP_CONFIG_PATH` could add `--no-ignore`).
 * An explicit search of an ignored directory (`path: ".svc"`) is a read: ripgrep searches what
 * it is given. A Grep with a `glob` is never asked: ripgrep's globs override ignore rules.
 */
export function ignoredByRipgrep(file: string, root: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.RIPGREP_CONFIG_PATH !== undefined && env.RIPGREP_CONFIG_PATH !== '') return false;
  const segments = relative(root, file).split(sep);
  if (segments.length === 0 || segments[0] === '' || segments[0] === '..') return false;
  if (!insideGitRepository(root) || overrideFileAbove(file)) return false;
  let dir = root;
  for (const [index, name] of segments.entries()) {
    if (listsExactly(join(dir, '.gitignore'), name, index < segments.length - 1)) return true;
    dir = join(dir, name);
  }
  return false;
}

function insideGitRepository(dir: string): boolean {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, '.git'))) return true;
    if (dirname(at) === at) return false;
  }
}

/** A `.ignore` or `.rgignore` in a directory holding `file` (ripgrep reads them up to the filesystem root). */
function overrideFileAbove(file: string): boolean {
  for (let at = dirname(file); ; at = dirname(at)) {
    if (existsSync(join(at, '.ignore')) || existsSync(join(at, '.rgignore'))) return true;
    if (dirname(at) === at) return false;
  }
}

/** Larger ignore files are not parsed: the answer is then "read". */
const MAX_IGNORE_FILE_BYTES = 256 * 1024;

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

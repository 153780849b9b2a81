import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { listedByGitignore, repositoryRootOf } from './git-ignored.js';

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
  if (repositoryRootOf(root) === undefined || overrideFileAbove(file)) return false;
  return listedByGitignore(file, root);
}

/** A `.ignore` or `.rgignore` in a directory holding `file` (ripgrep reads them up to the filesystem root). */
function overrideFileAbove(file: string): boolean {
  for (let at = dirname(file); ; at = dirname(at)) {
    if (existsSync(join(at, '.ignore')) || existsSync(join(at, '.rgignore'))) return true;
    if (dirname(at) === at) return false;
  }
}

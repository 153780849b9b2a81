import { readdirSync, type Dirent } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import picomatch from 'picomatch';

/**
 * Whether a search's positive glob (`Grep {glob: "*.ts"}`, ripgrep's `--glob`) certainly leaves
 * `found` (a protected file or directory under `root`) unread. Whatever a glob is anchored to, a
 * file it selects has a name matching its last segment: `*.ts` and `src/**\/*.ts` never select
 * `.env`, nor anything under `.svc/keys` unless a file there ends in `.ts`. For a directory, each
 * file under it is checked. The answer is "unread" only when that is certain; anything else
 * keeps the read:
 * - a negative glob (`!*.md`) selects everything else;
 * - a last segment that is `**`, or braces holding a `/` (`{a/*.ts,.env}`), could select anything;
 * - a directory too large to list within the bound;
 * - a file or a directory on the way from `root` whose name matches (ripgrep does not select
 *   files under a directory a glob names, but keeping them costs only a refusal).
 * Matching ignores case, which can only keep more.
 */
export function globLeavesUnread(glob: string, found: string, root: string): boolean {
  const trimmed = glob.trim();
  if (trimmed === '' || trimmed.startsWith('!')) return false;
  const lastSlash = trimmed.lastIndexOf('/');
  const brace = trimmed.indexOf('{');
  if (brace >= 0 && brace < lastSlash) return false;
  const last = trimmed.slice(lastSlash + 1);
  if (last === '' || last.includes('**')) return false;
  let matches: (name: string) => boolean;
  try {
    matches = picomatch(last, { dot: true, nocase: true });
  } catch {
    return false;
  }
  const rest = relative(root, found);
  if (rest === '' || rest.startsWith('..')) return false;
  if (rest.split(sep).some((name) => matches(name))) return false;
  const files = filesUnder(found);
  return files !== undefined && !files.some((file) => matches(basename(file)) || relative(found, file).split(sep).some((name) => matches(name)));
}

/** Bound on the entries listed under one protected directory. */
const MAX_LISTED = 2_000;

/** Every entry under `path` (none for a file); undefined when there are more than the bound. */
function filesUnder(path: string): string[] | undefined {
  const listed: string[] = [];
  const pending = [path];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    let entries: Dirent[];
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      continue; // a file, or unreadable: nothing under it to check
    }
    for (const entry of entries) {
      const child = join(current, entry.name);
      listed.push(child);
      if (listed.length > MAX_LISTED) return undefined;
      if (entry.isDirectory() || entry.isSymbolicLink()) pending.push(child);
    }
  }
  return listed;
}

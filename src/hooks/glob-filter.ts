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
 * - a glob whose reading differs between ripgrep's globset and picomatch (see `plainForGlobset`).
 * Matching ignores case, which can only keep more.
 */
export function globLeavesUnread(glob: string, found: string, root: string): boolean {
  const trimmed = glob.trim();
  if (trimmed === '' || trimmed.startsWith('!')) return false;
  if (!plainForGlobset(trimmed)) return false;
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

/**
 * Whether `glob` avoids every construct where globset (ripgrep, Claude Code's Grep) and picomatch
 * may disagree, or where the string may hold several globs: a backslash (`.e\\nv`), a `[` class
 * holding `/` or negated with `!`/`^` (`.en[v/]`, `.[!x]nv`), a `{` group without a top-level
 * comma (`{.env}`, `.e{n}v`), whitespace (`*.ts .env`), or a comma outside braces (`*.ts,.env`).
 * Any of these keeps the read.
 */
function plainForGlobset(glob: string): boolean {
  if (/[\\\s]/.test(glob)) return false;
  let depth = 0;
  let groupStart = -1;
  let groupHasComma = false;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      const body = close < 0 ? glob.slice(i + 1) : glob.slice(i + 1, close);
      if (close < 0 || body.includes('/') || body.startsWith('!') || body.startsWith('^')) return false;
      i = close;
    } else if (c === '{') {
      if (depth === 0) {
        groupStart = i;
        groupHasComma = false;
      }
      depth++;
    } else if (c === '}') {
      if (depth === 0) return false;
      depth--;
      if (depth === 0 && (!groupHasComma || groupStart < 0)) return false;
    } else if (c === ',') {
      if (depth === 0) return false;
      if (depth === 1) groupHasComma = true;
    }
  }
  return depth === 0;
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

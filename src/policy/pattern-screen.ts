/**
 * What a protected-path pattern needs of a path before it can match it: a segment with this name
 * (a bare name), a segment matching a regular expression (a bare glob), or a literal beginning
 * (an anchored pattern: its directory, up to the first segment with glob syntax).
 */
export type PatternNeed = { name: string } | { segment: string } | { prefix: string };

/**
 * One quick test standing for a list of patterns: false only for a path none of them can match.
 * A guard checks its patterns one by one (about fifty, some of them on every segment) only for
 * the paths that pass it, which the paths of a tree walk or of git's index seldom do. Each need
 * is a necessary condition of its pattern, so the screen never turns away a path a pattern matches.
 * Ignoring case, names are in the segments' expression too, whose `i` flag folds case as the
 * patterns' own expressions do; otherwise they are a set. The prefixes are one expression: a
 * hook process runs this cold, where one search costs less than a call per prefix.
 */
export function patternScreen(needs: readonly PatternNeed[], nocase: boolean): (path: string) => boolean {
  const names = new Set<string>();
  const segments: string[] = [];
  const prefixes: string[] = [];
  for (const need of needs) {
    if ('prefix' in need) prefixes.push(need.prefix);
    else if ('segment' in need) segments.push(`(?:${need.segment})`);
    else if (nocase) segments.push(`^${escapeRegExp(need.name)}$`);
    else names.add(need.name);
  }
  const anySegment = segments.length === 0 ? undefined : new RegExp(segments.join('|'), nocase ? 'i' : '');
  const hasPrefix = prefixTest(prefixes, nocase);
  const matches = (segment: string): boolean => segment !== '' && (names.has(segment) || anySegment?.test(segment) === true);
  // The paths of a walk or of git's index come directory by directory: the last directory's answer
  // is kept, so each path costs a test of its last segment.
  let lastDirectory: string | undefined;
  let lastDirectoryMatches = false;
  return (path) => {
    if (hasPrefix(path)) return true;
    const slash = path.lastIndexOf('/');
    const directory = path.slice(0, slash + 1);
    if (directory !== lastDirectory) {
      lastDirectory = directory;
      lastDirectoryMatches = directory.split('/').some(matches);
    }
    return lastDirectoryMatches || matches(path.slice(slash + 1));
  };
}

function prefixTest(prefixes: readonly string[], nocase: boolean): (path: string) => boolean {
  if (prefixes.length === 0) return () => false;
  const expression = new RegExp(`^(?:${prefixes.map(escapeRegExp).join('|')})`, nocase ? 'i' : '');
  return (path) => expression.test(path);
}

export function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

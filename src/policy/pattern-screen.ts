/**
 * What a protected-path pattern needs of a path before it can match it: a segment matching a
 * regular expression (a bare name or glob, tried on every segment), or a literal beginning (an
 * anchored pattern: its directory, up to the first segment with glob syntax).
 */
export type PatternNeed = { segment: string } | { prefix: string };

/**
 * One quick test standing for a list of patterns: false only for a path none of them can match.
 * A guard checks its patterns one by one (about fifty, some of them on every segment) only for
 * the paths that pass it, which the paths of a tree walk or of git's index seldom do. Each need
 * is a necessary condition of its pattern, so the screen never turns away a path a pattern matches.
 */
export function patternScreen(needs: readonly PatternNeed[], nocase: boolean): (path: string) => boolean {
  const flags = nocase ? 'i' : '';
  const segments = needs.flatMap((need) => ('segment' in need ? [`(?:${need.segment})`] : []));
  const prefixes = needs.flatMap((need) => ('prefix' in need ? [escapeRegExp(need.prefix)] : []));
  const anySegment = segments.length === 0 ? undefined : new RegExp(segments.join('|'), flags);
  const anyPrefix = prefixes.length === 0 ? undefined : new RegExp(`^(?:${prefixes.join('|')})`, flags);
  return (path) => {
    if (anyPrefix?.test(path) === true) return true;
    if (anySegment === undefined) return false;
    return path.split('/').some((segment) => segment !== '' && anySegment.test(segment));
  };
}

export function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

import { MAX_GLOB_MATCHES } from './analysis-limits.js';
import type { FilesystemProbe } from './filesystem-probe.js';
import { hasBare, unmark } from './marked-text.js';

/**
 * Pathname expansion the way bash does it, against the real directory: `cat .en*` reads `.env`
 * and `.env.local`. Rules kept from bash (no nullglob, failglob, globstar or extglob, and
 * `globskipdots` as in bash 5.2 and zsh; dotglob and nocaseglob as the script set them, see
 * GlobOptions):
 * - `*`, `?` and `[…]` act only when unquoted; each path component is matched on its own;
 * - a name starting with `.` matches only when the pattern component starts with a `.`;
 * - `.` and `..` are never produced by a wildcard;
 * - no match leaves the word as written (quotes removed).
 */

export type GlobResult = { matches: string[] } | { tooMany: true } | undefined;

/**
 * The shell options that change what a pattern matches, as the command line set them
 * (glob-options.ts): `dot` is bash's dotglob (or GLOBIGNORE set, zsh's globdots): a wildcard
 * matches a leading `.`; `caseless` is nocaseglob: `.EN*` matches `.env`.
 */
export interface GlobOptions {
  readonly dot: boolean;
  readonly caseless: boolean;
}

export const DEFAULT_GLOB_OPTIONS: GlobOptions = { dot: false, caseless: false };

/** True when the marked word has a bare `*`, `?` or `[` and so is a pattern. */
export function isGlobPattern(marked: string): boolean {
  return hasBare(marked, '*?[');
}

/**
 * The paths the marked pattern matches, written the way the pattern was (relative stays
 * relative), sorted per directory; undefined when nothing matches. `base` is the directory a
 * relative pattern is matched in.
 */
export function expandGlob(marked: string, base: string, probe: FilesystemProbe, options: GlobOptions = DEFAULT_GLOB_OPTIONS): GlobResult {
  const components = splitComponents(marked);
  const absolute = components[0] === '';
  let candidates: { written: string; path: string }[] = [{ written: absolute ? '/' : '', path: absolute ? '/' : base }];
  let matchedAny = false;
  let literalAfterWildcard = false;
  for (let index = absolute ? 1 : 0; index < components.length; index += 1) {
    const component = components[index] as string;
    const last = index === components.length - 1;
    if (component === '') {
      // `a//b` or a trailing `dir*/`: the slash stays; a trailing one keeps only directories.
      candidates = candidates
        .filter((candidate) => !last || !matchedAny || probe.kind(candidate.path) === 'directory')
        .map((candidate) => ({ written: `${candidate.written}/`, path: candidate.path }));
      continue;
    }
    const matcher = isGlobPattern(component) ? compileComponent(component, options) : undefined;
    const next: { written: string; path: string }[] = [];
    for (const candidate of candidates) {
      if (matcher === undefined) {
        next.push(join(candidate, unmark(component)));
        continue;
      }
      const names = probe.list(candidate.path);
      if (names === 'too_large') return { tooMany: true };
      if (names === undefined) continue;
      const matching = names.filter((name) => (name[0] !== '.' || matcher.dot) && matcher.matches(name)).sort();
      for (const name of matching) {
        next.push(join(candidate, name));
        if (next.length > MAX_GLOB_MATCHES) return { tooMany: true };
      }
    }
    if (matcher !== undefined) matchedAny = true;
    literalAfterWildcard = matchedAny && matcher === undefined;
    candidates = next;
    if (candidates.length === 0) return undefined;
  }
  // Literal components after the last wildcard (`*/README.md`) must exist for the path to be a match.
  const existing = literalAfterWildcard ? candidates.filter((candidate) => probe.kind(candidate.path) !== undefined) : candidates;
  return existing.length === 0 ? undefined : { matches: existing.map((candidate) => candidate.written) };
}

function join(candidate: { written: string; path: string }, name: string): { written: string; path: string } {
  const separator = candidate.written === '' || candidate.written.endsWith('/') ? '' : '/';
  return { written: candidate.written + separator + name, path: candidate.path.endsWith('/') ? candidate.path + name : `${candidate.path}/${name}` };
}

/** Splits at every `/`, quoted or not: quoting never hides a path separator from the kernel. */
function splitComponents(marked: string): string[] {
  const components: string[] = [];
  let current = '';
  for (let i = 0; i < marked.length; i += 1) {
    const char = marked[i] as string;
    if (char === '\\') {
      const next = marked[i + 1] ?? '';
      i += 1;
      if (next === '/') {
        components.push(current);
        current = '';
      } else current += `\\${next}`;
    } else if (char === '/') {
      components.push(current);
      current = '';
    } else current += char;
  }
  components.push(current);
  return components;
}

interface ComponentMatcher {
  matches(name: string): boolean;
  /** True when a leading `.` may be matched by a wildcard. */
  dot: boolean;
}

/** One element of a compiled pattern: `*`, or a test of one character (a literal, `?`, a bracket). */
type PatternToken = { star: true } | { star: false; test: (char: string) => boolean };

/**
 * A pattern component compiled to tokens and matched in time proportional to the pattern's
 * length times the name's (matchTokens), never by a backtracking regular expression:
 * `a*a*a*…b` against a long name of `a`s would take minutes, and the analysis cannot be
 * interrupted while a regex runs.
 */
function compileComponent(component: string, options: GlobOptions): ComponentMatcher {
  const flags = options.caseless ? 'si' : 's';
  const literal = (char: string): PatternToken => {
    if (!options.caseless) return { star: false, test: (other) => other === char };
    const lower = char.toLowerCase();
    return { star: false, test: (other) => other.toLowerCase() === lower };
  };
  const tokens: PatternToken[] = [];
  for (let i = 0; i < component.length; i += 1) {
    const char = component[i] as string;
    if (char === '\\') {
      tokens.push(literal(component[i + 1] ?? ''));
      i += 1;
    } else if (char === '*') {
      if (tokens.at(-1)?.star !== true) tokens.push({ star: true });
    } else if (char === '?') {
      tokens.push({ star: false, test: () => true });
    } else if (char === '[') {
      const bracket = compileBracket(component, i);
      if (bracket === undefined) tokens.push(literal('['));
      else {
        // One character class against one character: a regex that cannot backtrack.
        const oneChar = new RegExp(`^${bracket.source}$`, flags);
        tokens.push({ star: false, test: (other) => oneChar.test(other) });
        i = bracket.end;
      }
    } else {
      tokens.push(literal(char));
    }
  }
  const first = component[0] === '\\' ? component[1] : component[0];
  return { matches: (name) => matchTokens(tokens, name), dot: first === '.' || options.dot };
}

/** Wildcard matching with one backtracking point (the last `*`): at most pattern × name steps. */
function matchTokens(tokens: readonly PatternToken[], name: string): boolean {
  let token = 0;
  let at = 0;
  let lastStar = -1;
  let starAt = 0;
  while (at < name.length) {
    const current = tokens[token];
    if (current !== undefined && !current.star && current.test(name[at] as string)) {
      token += 1;
      at += 1;
    } else if (current?.star === true) {
      lastStar = token;
      starAt = at;
      token += 1;
    } else if (lastStar !== -1) {
      // Let the last `*` take one more character and try the rest again from there.
      token = lastStar + 1;
      starAt += 1;
      at = starAt;
    } else return false;
  }
  while (tokens[token]?.star === true) token += 1;
  return token === tokens.length;
}

const POSIX_CLASSES: Record<string, string> = {
  alnum: 'a-zA-Z0-9',
  alpha: 'a-zA-Z',
  blank: ' \\t',
  cntrl: '\\x00-\\x1f\\x7f',
  digit: '0-9',
  graph: '\\x21-\\x7e',
  lower: 'a-z',
  print: '\\x20-\\x7e',
  punct: '!-\\/:-@\\[-`{-~',
  space: ' \\t\\n\\r\\f\\v',
  upper: 'A-Z',
  word: 'a-zA-Z0-9_',
  xdigit: '0-9A-Fa-f',
};

/** `[abc]`, `[!a-z]`, `[^.]`, `[]x]`, `[[:alpha:]]` starting at `open`; undefined when unterminated. */
function compileBracket(component: string, open: number): { source: string; end: number } | undefined {
  let i = open + 1;
  let negate = false;
  if (component[i] === '!' || component[i] === '^') {
    negate = true;
    i += 1;
  }
  let body = '';
  let first = true;
  for (; i < component.length; i += 1) {
    let char = component[i] as string;
    if (char === ']' && !first) return { source: `[${negate ? '^' : ''}${body}]`, end: i };
    first = false;
    if (char === '[' && component[i + 1] === ':') {
      const close = component.indexOf(':]', i + 2);
      const name = close === -1 ? undefined : component.slice(i + 2, close);
      const chars = name === undefined || !Object.hasOwn(POSIX_CLASSES, name) ? undefined : POSIX_CLASSES[name];
      if (chars !== undefined) {
        body += chars;
        i = close + 1;
        continue;
      }
    }
    if (char === '\\') {
      i += 1;
      char = component[i] ?? '';
      body += char === '-' ? '\\-' : escapeClass(char);
      continue;
    }
    body += escapeClass(char);
  }
  return undefined;
}

function escapeClass(char: string): string {
  return char === '\\' || char === ']' || char === '[' || char === '^' ? `\\${char}` : char;
}

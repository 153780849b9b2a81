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
      const matching = names.filter((name) => (name[0] !== '.' || matcher.dot) && matcher.regex.test(name)).sort();
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
  regex: RegExp;
  /** The component starts with a `.` (quoted or not), so it may match dot files. */
  dot: boolean;
}

function compileComponent(component: string, options: GlobOptions): ComponentMatcher {
  let source = '^';
  for (let i = 0; i < component.length; i += 1) {
    const char = component[i] as string;
    if (char === '\\') {
      source += escapeRegex(component[i + 1] ?? '');
      i += 1;
    } else if (char === '*') {
      source += '.*';
    } else if (char === '?') {
      source += '.';
    } else if (char === '[') {
      const bracket = compileBracket(component, i);
      if (bracket === undefined) source += '\\[';
      else {
        source += bracket.source;
        i = bracket.end;
      }
    } else {
      source += escapeRegex(char);
    }
  }
  const first = component[0] === '\\' ? component[1] : component[0];
  return { regex: new RegExp(`${source}$`, options.caseless ? 'si' : 's'), dot: first === '.' || options.dot };
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
      const chars = name === undefined ? undefined : POSIX_CLASSES[name];
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

function escapeRegex(char: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(char) ? `\\${char}` : char;
}

function escapeClass(char: string): string {
  return char === '\\' || char === ']' || char === '[' || char === '^' ? `\\${char}` : char;
}

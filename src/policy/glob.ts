/**
 * Globs of tool, resource and `glob` predicates: `*` is any run of characters (including none,
 * and including `.`, `:` and `/`), `?` is exactly one character (one Unicode code point),
 * everything else is literal, and the glob must match the whole text. There is no escape and no
 * character class: a policy can say `channel:*`, not `channel:[a-z]*` (use `regex` for that).
 *
 * Globs run on the hot path against caller-controlled text, so the common shapes (a plain name,
 * `prefix*`, `*suffix`, `prefix*suffix`) are string comparisons, and every other glob runs the
 * classic wildcard matcher, which backtracks only to the last `*` and so takes at most
 * O(text × glob) steps, where a translated regular expression could take polynomially more.
 */
export type TextMatcher = (text: string) => boolean;

export function compileGlob(glob: string): TextMatcher {
  const pattern = glob.replace(/\*{2,}/g, '*');
  const star = pattern.indexOf('*');
  const hasQuestion = pattern.includes('?');
  if (star < 0 && !hasQuestion) return (text) => text === pattern;
  if (!hasQuestion && star === pattern.lastIndexOf('*')) {
    if (pattern === '*') return () => true;
    const prefix = pattern.slice(0, star);
    const suffix = pattern.slice(star + 1);
    if (suffix === '') return (text) => text.startsWith(prefix);
    if (prefix === '') return (text) => text.endsWith(suffix);
    return (text) => text.length >= prefix.length + suffix.length && text.startsWith(prefix) && text.endsWith(suffix);
  }
  return (text) => wildcardMatch(pattern, text);
}

/** True when any of the globs matches; a list of plain names is one set lookup. */
export function compileGlobList(globs: readonly string[]): TextMatcher {
  if (globs.every((glob) => !glob.includes('*') && !glob.includes('?'))) {
    const names = new Set(globs);
    return (text) => names.has(text);
  }
  const matchers = globs.map(compileGlob);
  if (matchers.length === 1) return matchers[0] as TextMatcher;
  return (text) => {
    for (const matcher of matchers) if (matcher(text)) return true;
    return false;
  };
}

const STAR = 0x2a;
const QUESTION = 0x3f;

function wildcardMatch(pattern: string, text: string): boolean {
  let patternIndex = 0;
  let textIndex = 0;
  // Where the last `*` is, and where in the text its current match ends.
  let starIndex = -1;
  let starEnd = 0;
  while (textIndex < text.length) {
    if (patternIndex < pattern.length) {
      const code = pattern.charCodeAt(patternIndex);
      if (code === STAR) {
        starIndex = patternIndex;
        patternIndex += 1;
        starEnd = textIndex;
        continue;
      }
      if (code === QUESTION) {
        patternIndex += 1;
        textIndex += codePointWidth(text, textIndex);
        continue;
      }
      if (code === text.charCodeAt(textIndex)) {
        patternIndex += 1;
        textIndex += 1;
        continue;
      }
    }
    if (starIndex < 0) return false;
    // Let the last `*` take one more character (a whole code point) and retry after it.
    starEnd += codePointWidth(text, starEnd);
    patternIndex = starIndex + 1;
    textIndex = starEnd;
  }
  while (patternIndex < pattern.length && pattern.charCodeAt(patternIndex) === STAR) patternIndex += 1;
  return patternIndex === pattern.length;
}

/** 2 at the start of a surrogate pair, else 1: `?` and `*` never split a character. */
function codePointWidth(text: string, index: number): number {
  const code = text.charCodeAt(index);
  if (code >= 0xd800 && code <= 0xdbff) {
    const next = text.charCodeAt(index + 1);
    if (next >= 0xdc00 && next <= 0xdfff) return 2;
  }
  return 1;
}

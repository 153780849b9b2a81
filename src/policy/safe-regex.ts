/**
 * Regular expressions of `regex` predicates. They run on the hot path against caller-controlled
 * text (up to 16 KiB per string), so a pattern that can backtrack exponentially is refused when
 * the policy loads rather than discovered as a stalled proxy.
 *
 * Semantics: the pattern must match the whole value (it is anchored as `^(?:pattern)$`), `.`
 * matches any character including line breaks (flag `s`), and the pattern is read in Unicode
 * mode (flag `u`, which also rejects the sloppy escapes legacy mode accepts). A leading `(?i)`
 * makes it case-insensitive; JavaScript has no other inline flags, so none other is accepted.
 */

const CASE_INSENSITIVE_PREFIX = '(?i)';

export function compileAnchoredRegex(pattern: string): RegExp {
  const problem = regexProblem(pattern);
  if (problem) throw new TypeError(problem);
  const { body, flags } = splitFlags(pattern);
  return new RegExp(`^(?:${body})$`, flags);
}

/** Why `pattern` is refused, or undefined when it is accepted. */
export function regexProblem(pattern: string): string | undefined {
  const { body, flags } = splitFlags(pattern);
  try {
    new RegExp(body, flags);
  } catch (error) {
    return `not a valid regular expression: ${(error as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '')}`;
  }
  return backtrackingProblem(body);
}

function splitFlags(pattern: string): { body: string; flags: string } {
  return pattern.startsWith(CASE_INSENSITIVE_PREFIX) ? { body: pattern.slice(CASE_INSENSITIVE_PREFIX.length), flags: 'isu' } : { body: pattern, flags: 'su' };
}

interface GroupFrame {
  /** Whether something inside the group can repeat (`*`, `+`, `{n,}`, `{n,m}` with m > 1). */
  repeats: boolean;
}

/**
 * A conservative scan for the shapes behind catastrophic backtracking: a repeating quantifier
 * applied to a group that itself contains one (`(a+)+`, `(\w*\s?)*`, `((ab)*){2,}`), and
 * backreferences (matching them is NP-hard in general). It does not prove a pattern safe:
 * overlapping alternatives under a quantifier (`(a|a)*`) are not detected.
 */
function backtrackingProblem(body: string): string | undefined {
  const stack: GroupFrame[] = [{ repeats: false }];
  let index = 0;
  while (index < body.length) {
    const char = body[index];
    const frame = stack[stack.length - 1] as GroupFrame;
    if (char === '\\') {
      const next = body[index + 1] ?? '';
      if (/[1-9]/.test(next) || (next === 'k' && body[index + 2] === '<')) return 'backreferences are not allowed (they can make matching take exponential time)';
      index += 2;
      // \u{...}, \p{...} and \P{...} carry braces that are not a quantifier.
      if ((next === 'u' || next === 'p' || next === 'P') && body[index] === '{') index = after(body, '}', index);
      continue;
    }
    if (char === '[') {
      index = endOfClass(body, index);
      continue;
    }
    if (char === '(') {
      stack.push({ repeats: false });
      index = afterGroupPrefix(body, index + 1);
      continue;
    }
    if (char === ')') {
      const inner = stack.pop() as GroupFrame;
      const parent = stack[stack.length - 1] as GroupFrame;
      const quantifier = readQuantifier(body, index + 1);
      if (quantifier.repeating && inner.repeats) {
        return `nested quantifier near "${body.slice(Math.max(0, index - 20), index + 1 + quantifier.length)}": a repeated group that itself repeats can take exponential time; rewrite it without the inner or the outer repetition`;
      }
      parent.repeats ||= inner.repeats || quantifier.repeating;
      index += 1 + quantifier.length;
      continue;
    }
    const quantifier = readQuantifier(body, index);
    if (quantifier.length > 0) {
      frame.repeats ||= quantifier.repeating;
      index += quantifier.length;
      continue;
    }
    index += 1;
  }
  return undefined;
}

function endOfClass(body: string, start: number): number {
  let index = start + 1;
  while (index < body.length && body[index] !== ']') index += body[index] === '\\' ? 2 : 1;
  return index + 1;
}

/** Skips `?:`, `?=`, `?!`, `?<=`, `?<!` and `?<name>` after an opening parenthesis. */
function afterGroupPrefix(body: string, index: number): number {
  if (body[index] !== '?') return index;
  const kind = body[index + 1];
  if (kind === ':' || kind === '=' || kind === '!') return index + 2;
  if (kind === '<') {
    const lookbehind = body[index + 2];
    if (lookbehind === '=' || lookbehind === '!') return index + 3;
    return after(body, '>', index);
  }
  return index + 1;
}

/** The index just past the next `char` at or after `from`; the end of the text when there is none. */
function after(body: string, char: string, from: number): number {
  const found = body.indexOf(char, from);
  return found < 0 ? body.length : found + 1;
}

const BRACE_QUANTIFIER = /^\{(\d+)(,(\d*))?\}/;

function readQuantifier(body: string, index: number): { length: number; repeating: boolean } {
  const char = body[index];
  let length = 0;
  let repeating = false;
  if (char === '*' || char === '+') {
    length = 1;
    repeating = true;
  } else if (char === '?') {
    length = 1;
  } else if (char === '{') {
    const match = BRACE_QUANTIFIER.exec(body.slice(index, index + 24));
    if (!match) return { length: 0, repeating: false };
    length = match[0].length;
    const min = Number(match[1]);
    const max = match[2] === undefined ? min : match[3] === '' ? Infinity : Number(match[3]);
    repeating = max > 1;
  } else {
    return { length: 0, repeating: false };
  }
  // A lazy quantifier (`*?`, `+?`, `{2,}?`) backtracks just as much.
  if (body[index + length] === '?') length += 1;
  return { length, repeating };
}

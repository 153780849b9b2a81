import { decodeAnsiC } from './ansi-c-string.js';
import { BraceLimitExceeded, expandBraces } from './brace-expansion.js';
import type { FilesystemProbe } from './filesystem-probe.js';
import { expandGlob, isGlobPattern, type GlobOptions } from './glob-expansion.js';
import { MAX_ATOMS, atom, bare, firstAtom, literal, unmark } from './marked-text.js';
import { isPromptExpansion } from './evaluated-text.js';
import type { DynamicReason } from './shell-analysis.js';
import type { SyntaxNode } from './syntax-tree.js';

/**
 * Turns the syntax of one shell word into the words bash would pass to the command: quotes and
 * escapes removed, `$'…'` decoded, braces expanded, `~` and `$HOME` replaced, globs matched
 * against the directory. What only the running shell can know (`$X`, `$(…)`, `~user`) makes the
 * word dynamic, kept with its text and the reason, never dropped.
 */

/** A word known before the command runs. `text` is the word as written. */
export interface StaticWord {
  value: string;
  text: string;
  reason?: undefined;
}

/** A word known only at run time. */
export interface DynamicWord {
  value: undefined;
  text: string;
  reason: DynamicReason;
}

export type Word = StaticWord | DynamicWord;

export interface ExpansionScope {
  readonly source: string;
  /** `$HOME` and `~`; undefined once the script assigned HOME itself (they are dynamic then). */
  readonly home: string | undefined;
  /** The directory relative globs are matched in and `~+` names; undefined when not known. */
  readonly cwd: string | undefined;
  readonly probe: FilesystemProbe;
  /** The glob options in effect (bash's defaults when absent). */
  readonly glob?: GlobOptions;
  /** Command and process substitutions inside a word run: the analyzer follows them. */
  substitution(node: SyntaxNode): void;
  /** Text bash evaluates again when it expands the word: arithmetic, a `${x@P}` prompt string (evaluated-text.ts). */
  evaluated(node: SyntaxNode, as: 'arithmetic' | 'prompt'): void;
}

export interface ExpansionOptions {
  /** Pathname expansion (off for assignment values and `case` patterns, as in bash). */
  glob?: boolean;
  /** The word is `name=value` (an assignment or `dd if=…`): `~` after `=` and `:` expands too. */
  assignment?: boolean;
}

interface Atom {
  text: string;
  reason: DynamicReason;
}

/** Characters that make a plain word need the slow path. */
const SPECIAL = /[\\{*?[~$'"\ue000-\ue0ff]/;

/**
 * The words that the adjacent syntax nodes `nodes` (one shell word, possibly split by the grammar
 * like `$` + `"…"`) expand to. Usually one; brace expansion and globs can make more.
 */
export function expandWord(nodes: readonly SyntaxNode[], scope: ExpansionScope, options: ExpansionOptions = {}): Word[] {
  const first = nodes[0];
  if (first === undefined) return [];
  const last = nodes[nodes.length - 1] as SyntaxNode;
  const text = scope.source.slice(first.start, last.end);
  if (nodes.length === 1 && (first.type === 'word' || first.type === 'number') && first.children.length === 0 && !SPECIAL.test(text)) {
    return [{ value: text, text }];
  }
  const atoms: Atom[] = [];
  let marked = '';
  for (let index = 0; index < nodes.length; index += 1) {
    const node = nodes[index] as SyntaxNode;
    // `$"…"` (a translated string) comes as a lone `$` token followed by the string, or by a
    // concatenation that starts with it (`$".e"nv`).
    const next = nodes[index + 1];
    const startsWithString = next?.type === 'string' || (next?.type === 'concatenation' && next.children[0]?.type === 'string');
    if (node.type === '$' && startsWithString && next?.start === node.end) continue;
    marked += markNode(node, scope, atoms);
  }
  if (atoms.length > MAX_ATOMS) return [{ value: undefined, text, reason: 'unsupported' }];
  return finishWord(marked, text, atoms, scope, options);
}

function finishWord(marked: string, text: string, atoms: Atom[], scope: ExpansionScope, options: ExpansionOptions): Word[] {
  let alternatives: string[];
  try {
    alternatives = expandBraces(marked);
  } catch (error) {
    if (error instanceof BraceLimitExceeded) return [{ value: undefined, text, reason: 'unsupported' }];
    throw error;
  }
  const words: Word[] = [];
  const single = alternatives.length === 1;
  for (const alternative of alternatives) {
    const rendered = single ? text : unmark(alternative, (index) => atoms[index]?.text ?? '');
    const dynamicAt = firstAtom(alternative);
    if (dynamicAt !== -1) {
      words.push({ value: undefined, text: rendered, reason: atoms[dynamicAt]?.reason ?? 'unsupported' });
      continue;
    }
    const tilde = expandTildes(alternative, scope, options.assignment === true);
    if (typeof tilde !== 'string') {
      words.push({ value: undefined, text: rendered, reason: tilde.reason });
      continue;
    }
    if (options.glob !== false && isGlobPattern(tilde)) {
      const base = tilde.startsWith('/') || tilde.startsWith('\\/') ? '/' : scope.cwd;
      const result = base === undefined ? undefined : expandGlob(tilde, base, scope.probe, scope.glob);
      if (result && 'tooMany' in result) {
        words.push({ value: undefined, text: rendered, reason: 'unsupported' });
        continue;
      }
      if (result) {
        for (const match of result.matches) words.push({ value: match, text: rendered });
        continue;
      }
    }
    words.push({ value: unmark(tilde), text: rendered });
  }
  return words;
}

/**
 * Tilde expansion: a bare `~` at the start (and, in assignments, after a bare `=` or `:`), up
 * to the next `/`. `~` is home, `~+` the working directory; `~user` and `~-` are dynamic.
 */
function expandTildes(marked: string, scope: ExpansionScope, assignment: boolean): string | { reason: DynamicReason } {
  let out = expandTildeAt(marked, 0, scope, false);
  if (typeof out !== 'string' || !assignment) return out;
  const equals = /^[A-Za-z_][A-Za-z0-9_]*=/.exec(out);
  if (!equals) return out;
  let index = equals[0].length;
  for (;;) {
    const expanded = expandTildeAt(out, index, scope, true);
    if (typeof expanded !== 'string') return expanded;
    out = expanded;
    const colon = nextBare(out, ':', index);
    if (colon === -1) return out;
    index = colon + 1;
  }
}

/** `inList`: inside an assignment value, where `:` also ends the prefix (`PATH=~/a:~/b`). */
function expandTildeAt(marked: string, at: number, scope: ExpansionScope, inList: boolean): string | { reason: DynamicReason } {
  if (marked[at] !== '~') return marked;
  let end = at + 1;
  while (end < marked.length && marked[end] !== '/' && !(inList && marked[end] === ':')) {
    if (marked[end] === '\\') return marked; // a quoted character in the prefix: no expansion
    end += 1;
  }
  if (marked[end] === '\\') return marked;
  const user = marked.slice(at + 1, end);
  let replacement: string | undefined;
  if (user === '') {
    if (scope.home === undefined) return { reason: 'variable' };
    replacement = scope.home;
  } else if (user === '+') {
    if (scope.cwd === undefined) return { reason: 'unsupported' };
    replacement = scope.cwd;
  } else {
    return { reason: 'unsupported' };
  }
  return marked.slice(0, at) + literal(replacement) + marked.slice(end);
}

function nextBare(marked: string, char: string, from: number): number {
  for (let i = from; i < marked.length; i += 1) {
    if (marked[i] === '\\') i += 1;
    else if (marked[i] === char) return i;
  }
  return -1;
}

/** The marked form of one syntax node (see marked-text.ts); dynamic parts are added to `atoms`. */
function markNode(node: SyntaxNode, scope: ExpansionScope, atoms: Atom[]): string {
  const source = scope.source;
  switch (node.type) {
    case 'word':
    case 'number':
    case 'brace_expression':
    case 'extglob_pattern':
    case 'command_name':
    case 'concatenation':
      if (node.children.length === 0 || node.type === 'brace_expression') return markUnquoted(source.slice(node.start, node.end));
      return markChildren(node, node.start, node.end, scope, atoms, markUnquoted);
    case 'string':
      return markChildren(node, node.start + 1, Math.max(node.start + 1, node.end - 1), scope, atoms, markDoubleQuoted);
    case 'translated_string': {
      const inner = node.children.find((child) => child.type === 'string');
      return inner ? markNode(inner, scope, atoms) : '';
    }
    case 'raw_string':
      return literal(source.slice(node.start + 1, Math.max(node.start + 1, node.end - 1)));
    case 'ansi_c_string':
      return literal(decodeAnsiC(source.slice(node.start + 2, Math.max(node.start + 2, node.end - 1))));
    case 'simple_expansion':
    case 'expansion': {
      const text = source.slice(node.start, node.end);
      if (text === '$HOME' || text === '${HOME}') {
        if (scope.home !== undefined) return literal(scope.home);
      } else {
        visitSubstitutions(node, scope);
        visitEvaluated(node, scope);
      }
      return addAtom(atoms, text, 'variable');
    }
    case 'command_substitution':
      scope.substitution(node);
      return addAtom(atoms, source.slice(node.start, node.end), 'command_substitution');
    case 'process_substitution':
      scope.substitution(node);
      return addAtom(atoms, source.slice(node.start, node.end), 'process_substitution');
    case 'arithmetic_expansion':
      visitSubstitutions(node, scope);
      scope.evaluated(node, 'arithmetic');
      return addAtom(atoms, source.slice(node.start, node.end), 'arithmetic');
    default:
      if (!node.named && node.children.length === 0) return markUnquoted(source.slice(node.start, node.end));
      visitSubstitutions(node, scope);
      return addAtom(atoms, source.slice(node.start, node.end), 'unsupported');
  }
}

/** Marks the children of a node that are expansions, and the text between them with `markGap`. */
function markChildren(node: SyntaxNode, from: number, to: number, scope: ExpansionScope, atoms: Atom[], markGap: (text: string) => string): string {
  let out = '';
  let at = from;
  for (const child of node.children) {
    if (!isPart(child, node.type)) continue;
    if (child.start > at) out += markGap(scope.source.slice(at, child.start));
    // `.e$"nv"`: the grammar leaves the `$` of a translated string to the text before it.
    if (child.type === 'string' && endsWithBareDollar(out)) out = out.slice(0, -1);
    out += markNode(child, scope, atoms);
    at = Math.max(at, child.end);
  }
  if (to > at) out += markGap(scope.source.slice(at, to));
  return out;
}

/** True when marked text ends with an unquoted `$` (an even run of marking backslashes before it). */
function endsWithBareDollar(marked: string): boolean {
  if (!marked.endsWith('$')) return false;
  let backslashes = 0;
  for (let i = marked.length - 2; i >= 0 && marked[i] === '\\'; i -= 1) backslashes += 1;
  return backslashes % 2 === 0;
}

/** Which children of a string or concatenation carry their own meaning (the rest is text). */
function isPart(child: SyntaxNode, parent: string): boolean {
  if (parent === 'string') {
    return child.type === 'simple_expansion' || child.type === 'expansion' || child.type === 'command_substitution' || child.type === 'arithmetic_expansion';
  }
  return child.named || child.type === '$';
}

/** Unquoted text: `\x` is a literal x, `\` + newline disappears, the rest stays bare. */
function markUnquoted(text: string): string {
  if (!text.includes('\\')) return bare(text);
  let out = '';
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i] as string;
    if (char === '\\' && i + 1 < text.length) {
      const next = text[i + 1] as string;
      i += 1;
      if (next !== '\n') out += `\\${next}`;
    } else {
      out += bare(char);
    }
  }
  return out;
}

/** Text inside double quotes: a backslash escapes only `$`, `` ` ``, `"`, `\` and newline. */
function markDoubleQuoted(text: string): string {
  if (!text.includes('\\')) return literal(text);
  let out = '';
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i] as string;
    const next = text[i + 1];
    if (char === '\\' && next !== undefined && '$`"\\\n'.includes(next)) {
      i += 1;
      if (next !== '\n') out += literal(next);
    } else {
      out += literal(char);
    }
  }
  return out;
}

function addAtom(atoms: Atom[], text: string, reason: DynamicReason): string {
  atoms.push({ text, reason });
  return atom(Math.min(atoms.length - 1, MAX_ATOMS - 1));
}

/** Runs every command or process substitution under `node` (they execute wherever they appear). */
export function visitSubstitutions(node: SyntaxNode, scope: Pick<ExpansionScope, 'substitution' | 'evaluated'>): void {
  for (const child of node.children) {
    if (child.type === 'command_substitution' || child.type === 'process_substitution') scope.substitution(child);
    else if (child.children.length > 0) {
      visitSubstitutions(child, scope);
      visitEvaluated(child, scope);
    }
  }
}

/** Reports what expanding `node` itself evaluates again: `$((…))`, `${a[i]}` and `${s:i:n}` (arithmetic), `${x@P}`. */
export function visitEvaluated(node: SyntaxNode, scope: Pick<ExpansionScope, 'evaluated'>): void {
  if (node.type === 'arithmetic_expansion') scope.evaluated(node, 'arithmetic');
  if (node.type !== 'expansion') return;
  if (isPromptExpansion(node)) scope.evaluated(node, 'prompt');
  // `${!x}` resolves the name x holds, a subscript included.
  if (node.children[1]?.type === '!') for (const child of node.children) if (child.type === 'variable_name') scope.evaluated(child, 'arithmetic');
  for (const child of node.children) {
    const index = child.type === 'subscript' ? child.children.find((part) => part.field === 'index') : undefined;
    if (index !== undefined) scope.evaluated(index, 'arithmetic');
  }
  // `${s:offset:length}`: whatever follows a bare `:` operator is arithmetic.
  const colon = node.children.findIndex((child) => child.field === 'operator' && child.type === ':');
  if (colon !== -1) for (const child of node.children.slice(colon + 1)) if (child.named) scope.evaluated(child, 'arithmetic');
}

import type { SyntaxNode } from './syntax-tree.js';

/**
 * The syntax tree of the commonest command line, one simple command of plain words
 * (`cat README.md`, `grep -rn TODO src`), built without running the parser: about a third of
 * the commands an agent runs, for which parsing and copying the tree would be most of the
 * analysis. It is exactly the tree tree-sitter-bash gives (a differential test holds it to the
 * parser over the corpus and generated lines); anything outside the narrow language below goes
 * to the parser.
 *
 * The language: a program name of letters, digits, `_`, `.`, `/` and `-`, then arguments that
 * may also hold `~`, `:`, `,`, `@`, `%` and `+`, separated by spaces, with no space before the
 * first word or after the last. Left to the parser: `=` (an assignment, or `==` which the
 * grammar reads as an operator), a word that starts with a digit or with `-` and a digit (the
 * grammar may read it as a `number`), and any line with a reserved word or a declaration
 * builtin (`if`, `done`, `export`, `unset`, ...), which the grammar reads as syntax of their own.
 */
const PLAIN_COMMAND = /^[A-Za-z_./][A-Za-z0-9_./-]*(?: +(?:[A-Za-z_./~:,@%+]|-(?![0-9]))[A-Za-z0-9_./~:,@%+-]*)*$/;

const WORD = /[^ ]+/g;

const RESERVED: ReadonlySet<string> = new Set([
  'if', 'then', 'else', 'elif', 'fi', 'case', 'esac', 'for', 'select', 'while', 'until', 'do', 'done', 'in', 'function', 'time', 'coproc',
  'declare', 'typeset', 'export', 'readonly', 'local', 'unset', 'unsetenv', 'test',
]);

/** Lines longer than this go to the parser: the point is the usual short line. */
const MAX_PLAIN_LENGTH = 1024;

/** The tree of `source` and its node count when it is a plain command line, else undefined. */
export function plainCommandTree(source: string): { root: SyntaxNode; nodes: number } | undefined {
  if (source.length > MAX_PLAIN_LENGTH || !PLAIN_COMMAND.test(source)) return undefined;
  const children: SyntaxNode[] = [];
  for (const match of source.matchAll(WORD)) {
    const text = match[0];
    if (RESERVED.has(text)) return undefined;
    const start = match.index;
    const end = start + text.length;
    const word: SyntaxNode = { type: 'word', named: true, field: undefined, start, end, children: [] };
    if (children.length === 0) children.push({ type: 'command_name', named: true, field: 'name', start, end, children: [word] });
    else {
      word.field = 'argument';
      children.push(word);
    }
  }
  const command: SyntaxNode = { type: 'command', named: true, field: undefined, start: 0, end: source.length, children };
  const root: SyntaxNode = { type: 'program', named: true, field: undefined, start: 0, end: source.length, children: [command] };
  // program, command, command_name, and a word each.
  return { root, nodes: children.length + 3 };
}

import type { SyntaxNode } from './syntax-tree.js';

/**
 * The syntax tree of the commonest command lines, built without running the parser: one simple
 * command of plain words (`cat README.md`, `grep -rn TODO src`), with plain redirections at its
 * end (`> out.txt`, `2>&1`, `2>/dev/null`), or a pipeline of such commands (`ls | head`): much of
 * what an agent runs (382 of the 866 lines of the shell corpus, which is mostly tricks), for which
 * parsing and copying the tree would be most of the analysis, and a hook process need not load the
 * grammar at all. It is exactly the tree tree-sitter-bash gives, quirks included (see
 * plainCommandTree); a differential test holds it to the parser over the corpus and generated
 * lines. Anything outside the narrow language below goes to the parser.
 *
 * The language, tokens separated by spaces, none before the first or after the last:
 * - a command is a program name of letters, digits, `_`, `.`, `/` and `-`, then arguments that
 *   may also hold `~`, `:`, `,`, `@`, `%` and `+`, then redirections;
 * - a redirection is `>`, `>>` or `<` followed by an argument-like word, `2>` or `2>>` joined to
 *   one (`2>/dev/null`), or `2>&1` or `1>&2`;
 * - commands are joined by `|`, a token of its own.
 * Left to the parser: `=` (an assignment, or `==` which the grammar reads as an operator), a word
 * that starts with a digit or with `-` and a digit (the grammar may read it as a `number`), and
 * a reserved word or a declaration builtin (`if`, `done`, `export`, `unset`, ...) as a program
 * name or a destination, where the grammar reads them as syntax of their own.
 */
const NAME = /^[A-Za-z_./][A-Za-z0-9_./-]*$/;
const ARGUMENT = /^(?:[A-Za-z_./~:,@%+]|-(?![0-9]))[A-Za-z0-9_./~:,@%+-]*$/;
/** A redirection written as one token: `2>/dev/null`, `2>>log` (descriptor, operator, destination). */
const JOINED_REDIRECT = /^2(>>?)(.+)$/;
/** `2>&1` and `1>&2`: a descriptor made a copy of the other. */
const DUPLICATION = /^[12]>&[12]$/;
const SPACED_OPERATORS: ReadonlySet<string> = new Set(['>', '>>', '<']);
const TOKEN = /[^ ]+/g;
/**
 * A character no token above may hold (a quote, `$`, `;`, `=`, a glob, a tab or newline, ...):
 * such a line is the parser's, known before it is cut into tokens.
 */
const OUTSIDE_LANGUAGE = /[^A-Za-z0-9_./~:,@%+<>&| -]/;
const DESCRIPTOR = /^[0-9]/;

const RESERVED: ReadonlySet<string> = new Set([
  'if', 'then', 'else', 'elif', 'fi', 'case', 'esac', 'for', 'select', 'while', 'until', 'do', 'done', 'in', 'function', 'time', 'coproc',
  'declare', 'typeset', 'export', 'readonly', 'local', 'unset', 'unsetenv', 'test',
]);

/** Lines longer than this go to the parser: the point is the usual short line. */
const MAX_PLAIN_LENGTH = 1024;

interface Token {
  text: string;
  start: number;
  end: number;
}

function node(type: string, named: boolean, field: string | undefined, start: number, end: number, children: SyntaxNode[] = []): SyntaxNode {
  return { type, named, field, start, end, children };
}

/** A redirection's destination: an argument-like word, unless it is a reserved word. */
function plainDestination(text: string): boolean {
  return ARGUMENT.test(text) && !RESERVED.has(text);
}

/** The tree of `source` and its node count when it is a plain command line, else undefined. */
export function plainCommandTree(source: string): { root: SyntaxNode; nodes: number } | undefined {
  if (source.length === 0 || source.length > MAX_PLAIN_LENGTH || source.startsWith(' ') || source.endsWith(' ') || OUTSIDE_LANGUAGE.test(source)) return undefined;
  const tokens: Token[] = [];
  for (const match of source.matchAll(TOKEN)) tokens.push({ text: match[0], start: match.index, end: match.index + match[0].length });
  // tree-sitter-bash reads a pipeline from the left: the commands so far are one flat pipeline,
  // and redirections after one of them apply to all of it (`a | b > x | c` is `(a | b) > x`, then
  // `| c`), as a statement that starts the next flat pipeline.
  let pipeline: SyntaxNode[] = [];
  let index = 0;
  while (index < tokens.length) {
    const name = tokens[index] as Token;
    if (!NAME.test(name.text) || RESERVED.has(name.text)) return undefined;
    const children = [node('command_name', true, 'name', name.start, name.end, [node('word', true, undefined, name.start, name.end)])];
    index += 1;
    // A reserved word after the program name is an argument like any other (`npm test`, `echo done`).
    for (let token = tokens[index]; token !== undefined && ARGUMENT.test(token.text); token = tokens[++index]) children.push(node('word', true, 'argument', token.start, token.end));
    pipeline.push(node('command', true, undefined, name.start, (children[children.length - 1] as SyntaxNode).end, children));
    const redirects: SyntaxNode[] = [];
    for (let token = tokens[index]; token !== undefined && token.text !== '|'; token = tokens[index]) {
      // tree-sitter-bash loses a lone `-` before a file descriptor (`cat - 2>/dev/null` has no
      // argument): that line is the parser's, since the analysis reads the parser's tree.
      if (tokens[index - 1]?.text === '-' && DESCRIPTOR.test(token.text)) return undefined;
      const redirect = redirection(tokens, index);
      if (redirect === undefined) return undefined;
      redirects.push(redirect.node);
      index = redirect.next;
    }
    if (redirects.length > 0) pipeline = [redirected(statementOf(pipeline), redirects)];
    const pipe = tokens[index];
    if (pipe !== undefined) {
      // A `|` must join two commands.
      if (index + 1 === tokens.length) return undefined;
      pipeline.push(node('|', false, undefined, pipe.start, pipe.end));
      index += 1;
    }
  }
  const root = node('program', true, undefined, 0, source.length, [statementOf(pipeline)]);
  return { root, nodes: countNodes(root) };
}

/** One statement, or the flat pipeline of several joined by `|`. */
function statementOf(pipeline: SyntaxNode[]): SyntaxNode {
  return pipeline.length === 1 ? (pipeline[0] as SyntaxNode) : node('pipeline', true, undefined, (pipeline[0] as SyntaxNode).start, (pipeline[pipeline.length - 1] as SyntaxNode).end, pipeline);
}

function countNodes(tree: SyntaxNode): number {
  let count = 1;
  for (const child of tree.children) count += countNodes(child);
  return count;
}

/** `body` with its redirections, as one `redirected_statement`. */
function redirected(body: SyntaxNode, redirects: readonly SyntaxNode[]): SyntaxNode {
  body.field = 'body';
  return node('redirected_statement', true, undefined, body.start, (redirects[redirects.length - 1] as SyntaxNode).end, [body, ...redirects]);
}

/** The `file_redirect` starting at tokens[index], and the index after it. */
function redirection(tokens: readonly Token[], index: number): { node: SyntaxNode; next: number } | undefined {
  const token = tokens[index] as Token;
  if (SPACED_OPERATORS.has(token.text)) {
    const destination = tokens[index + 1];
    if (destination === undefined || !plainDestination(destination.text)) return undefined;
    const children = [node(token.text, false, undefined, token.start, token.end), node('word', true, 'destination', destination.start, destination.end)];
    return { node: node('file_redirect', true, 'redirect', token.start, destination.end, children), next: index + 2 };
  }
  if (DUPLICATION.test(token.text)) {
    const children = [node('file_descriptor', true, 'descriptor', token.start, token.start + 1), node('>&', false, undefined, token.start + 1, token.start + 3), node('number', true, 'destination', token.start + 3, token.end)];
    return { node: node('file_redirect', true, 'redirect', token.start, token.end, children), next: index + 1 };
  }
  const joined = JOINED_REDIRECT.exec(token.text);
  if (joined !== null && plainDestination(joined[2] as string)) {
    const operator = joined[1] as string;
    const destination = token.start + 1 + operator.length;
    const children = [node('file_descriptor', true, 'descriptor', token.start, token.start + 1), node(operator, false, undefined, token.start + 1, destination), node('word', true, 'destination', destination, token.end)];
    return { node: node('file_redirect', true, 'redirect', token.start, token.end, children), next: index + 1 };
  }
  return undefined;
}

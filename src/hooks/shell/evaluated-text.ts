import type { SyntaxNode } from './syntax-tree.js';

/**
 * Places where bash evaluates text a second time, after expansion, and so can run commands that
 * no word of the command line shows:
 *
 * - arithmetic (`$((x))`, `((…))`, `for ((…))`, `[[ x -eq y ]]`, `let`, `declare -i`, array
 *   subscripts, `${s:x:1}`): a variable's value, or a command's output, is an expression there,
 *   and an array subscript inside that expression expands `$(…)`. `x='a[$(cat .env)0]'; echo $((x))`
 *   runs `cat .env`;
 * - a name with a subscript given to a builtin that assigns or tests it (`read 'a[$(…)]'`,
 *   `printf -v`, `test -v`, `unset`, `declare`);
 * - `${x@P}`, which expands the value as a prompt string, command substitutions included.
 *
 * What such text holds is known only when the command runs, so each place is code for policy to
 * decide. A variable the command line never assigns comes from the environment the runtime
 * started the shell with, not from the agent: it is not suspect. One the line assigns from a
 * command's output, from input (`read`), or from text holding a subscript with an expansion is.
 */

/** Text that, evaluated as an arithmetic expression or a variable name, runs a command: a subscript holding `$` or a backquote. */
const SUBSCRIPT_WITH_EXPANSION = /\[[^\]]*[$`]/;

export function holdsSubscriptCode(text: string): boolean {
  return SUBSCRIPT_WITH_EXPANSION.test(text);
}

/** `${x@P}`: the value expanded as a prompt string. */
export function isPromptExpansion(node: SyntaxNode): boolean {
  if (node.type !== 'expansion') return false;
  const operators = node.children.filter((child) => child.field === 'operator');
  return operators.some((operator, index) => operator.type === '@' && operators[index + 1]?.type === 'P');
}

const ARITHMETIC_TEST_OPERATORS: ReadonlySet<string> = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);

/** In `[[ … ]]`, the operands of `-eq` and its kin are arithmetic expressions. */
export function isArithmeticTest(node: SyntaxNode, source: string): boolean {
  if (node.type !== 'binary_expression') return false;
  const operator = node.children.find((child) => child.field === 'operator');
  return operator !== undefined && ARITHMETIC_TEST_OPERATORS.has(source.slice(operator.start, operator.end));
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Why evaluating `node` as arithmetic could run a command, or undefined when it cannot:
 * a substitution inside (its output becomes part of the expression), a variable the command
 * line set from run-time data (`suspect`), or literal text holding a subscript with an expansion.
 */
export function arithmeticRisk(node: SyntaxNode, source: string, suspect: ReadonlySet<string>): string | undefined {
  if (node.type === 'command_substitution' || node.type === 'process_substitution') return printsOnlyNumbers(node, source) ? undefined : 'the output of a command, evaluated as an expression';
  if (node.type === 'variable_name' || node.type === 'word') {
    const text = source.slice(node.start, node.end);
    if (IDENTIFIER.test(text) && suspect.has(text)) return `${text}, set by this command line from data known only at run time, evaluated as an expression`;
  }
  if (node.children.length === 0 || node.type === 'raw_string' || node.type === 'string') {
    const text = source.slice(node.start, node.end);
    if (holdsSubscriptCode(text)) return 'an array subscript holding an expansion, evaluated as an expression';
  }
  for (const child of node.children) {
    const risk = arithmeticRisk(child, source, suspect);
    if (risk !== undefined) return risk;
  }
  return undefined;
}

/**
 * Programs that print numbers (and, at most, names the command line spells out), so their output
 * in arithmetic holds no subscript: `$(( $(date +%s) - start ))`, `$(wc -l < f)`.
 */
const NUMBER_PRINTERS: ReadonlySet<string> = new Set(['wc', 'nproc', 'date', 'seq', 'id', 'stat', 'getconf', 'expr']);

/**
 * True for a substitution that is one pipeline of plain words ending in a number printer: no
 * expansion, quote, glob, list or group that could put other text in its output.
 */
export function printsOnlyNumbers(node: SyntaxNode, source: string): boolean {
  if (node.type !== 'command_substitution') return false;
  const inner = source.slice(node.start + 2, node.end - 1);
  // One pipeline of plain words: no expansion, quote, glob, list (`wc -l; cat f`) or group.
  if (!/^[\w\s.\/+%:=,<>|-]*$/.test(inner)) return false;
  const last = inner.split('|').pop()?.trim().split(/\s+/)[0];
  return last !== undefined && NUMBER_PRINTERS.has(last);
}

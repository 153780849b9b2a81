import type { SyntaxNode } from './syntax-tree.js';

/**
 * tree-sitter-bash hangs redirections written after the last command of `a && b` or `a | b` on
 * the whole list or pipeline: `cd ~/.aws && cat < credentials` parses as
 * (redirected_statement body: (list cd cat) redirect: < credentials), and with `| head` after it
 * the list even lands inside the pipeline. Bash gives such redirections to the last command only,
 * after everything before it ran (`a && b < f` opens `f` only for `b`, in the directory `a` left),
 * and `|` binds tighter than `&&` and `||`. This regroups a statement the way bash groups it, on
 * plain copies of the nodes; a statement already grouped right is returned as is (the same object).
 */
export function regroupStatement(node: SyntaxNode): SyntaxNode {
  if (node.type === 'redirected_statement') {
    const body = node.children.find((child) => child.field === 'body');
    if (body === undefined || (body.type !== 'list' && body.type !== 'pipeline')) return node;
    const trailing = node.children.filter((child) => child !== body);
    return withField(attach(body, trailing), node.field);
  }
  if (node.type === 'pipeline') {
    const index = node.children.findIndex(isOperand);
    const first = node.children[index];
    if (first === undefined) return node;
    const grouped = first.type === 'redirected_statement' ? regroupStatement(first) : first;
    if (grouped.type !== 'list') return grouped === first ? node : rebuild('pipeline', node.field, [...node.children.slice(0, index), grouped, ...node.children.slice(index + 1)]);
    // `a && b < f | c` is `a && (b < f | c)`: the rest of the pipeline joins the list's last operand.
    const rest = node.children.slice(index + 1);
    return replaceLastOperand(grouped, (last) => regroupStatement(rebuild('pipeline', last.field, last.type === 'pipeline' ? [...last.children, ...rest] : [last, ...rest])));
  }
  return node;
}

/** `target` with `trailing` (redirections) given to the command that really receives them. */
function attach(target: SyntaxNode, trailing: readonly SyntaxNode[]): SyntaxNode {
  if (target.type === 'list' || target.type === 'pipeline') return replaceLastOperand(target, (last) => attach(last, trailing));
  if (target.type === 'redirected_statement') return regroupStatement(rebuild('redirected_statement', target.field, [...target.children, ...trailing]));
  return rebuild('redirected_statement', target.field, [withField(target, 'body'), ...trailing]);
}

/** A copy of a list or pipeline with its last operand replaced. */
function replaceLastOperand(node: SyntaxNode, replace: (last: SyntaxNode) => SyntaxNode): SyntaxNode {
  let index = node.children.length - 1;
  while (index >= 0 && !isOperand(node.children[index] as SyntaxNode)) index -= 1;
  const last = node.children[index];
  if (last === undefined) return node;
  return rebuild(node.type, node.field, [...node.children.slice(0, index), replace(last), ...node.children.slice(index + 1)]);
}

function isOperand(child: SyntaxNode): boolean {
  return child.named && child.type !== 'comment';
}

function rebuild(type: string, field: string | undefined, children: SyntaxNode[]): SyntaxNode {
  return { type, named: true, field, start: children[0]?.start ?? 0, end: children[children.length - 1]?.end ?? 0, children };
}

function withField(node: SyntaxNode, field: string | undefined): SyntaxNode {
  return node.field === field ? node : { ...node, field };
}

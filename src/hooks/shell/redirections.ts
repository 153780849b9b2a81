import type { SyntaxNode } from './syntax-tree.js';
import { groupAdjacent } from './syntax-words.js';

/**
 * What a redirection node says, read off the grammar's shape: its operator, the file it names,
 * and the pieces tree-sitter-bash attaches to it that belong elsewhere (words after the target
 * are arguments of the command; a heredoc's node also carries the rest of the line, such as
 * `| sh` or `&& rm x`, because the body only starts on the next line).
 */
export type Redirection =
  | {
      kind: 'file';
      /** `<`, `>`, `>>`, `>|`, `&>`, `&>>`, `<>`, `>&`, `<&`. */
      operator: string;
      descriptor: string | undefined;
      target: SyntaxNode[] | undefined;
      extraWords: SyntaxNode[][];
    }
  | { kind: 'herestring'; descriptor: string | undefined; content: SyntaxNode[] | undefined; extraWords: SyntaxNode[][] }
  | {
      kind: 'heredoc';
      descriptor: string | undefined;
      /** A quoted delimiter (`<<'EOF'`) keeps the body literal; otherwise `$…` in it expands. */
      quoted: boolean;
      /** The body as the command reads it (leading tabs removed for `<<-`). */
      text: string;
      body: SyntaxNode | undefined;
      extraWords: SyntaxNode[][];
      extraRedirects: SyntaxNode[];
      /** `cat <<EOF | sh`: the commands the output is piped to. */
      pipedTo: SyntaxNode[];
      /** `cat <<EOF && rm x`: the rest of the list. */
      then: { operator: string; right: SyntaxNode } | undefined;
    };

export function interpretRedirection(node: SyntaxNode, source: string): Redirection {
  const descriptorNode = node.children.find((child) => child.field === 'descriptor');
  const descriptor = descriptorNode ? source.slice(descriptorNode.start, descriptorNode.end) : touchingDescriptor(node, source);
  if (node.type === 'herestring_redirect') {
    const words = groupAdjacent(node.children.filter((child) => child.named && child.field !== 'descriptor'), source);
    return { kind: 'herestring', descriptor, content: words[0], extraWords: words.slice(1) };
  }
  if (node.type === 'heredoc_redirect') {
    const start = node.children.find((child) => child.type === 'heredoc_start');
    const delimiter = start ? source.slice(start.start, start.end) : '';
    const stripTabs = node.children.some((child) => child.type === '<<-');
    const body = node.children.find((child) => child.type === 'heredoc_body');
    let text = body ? source.slice(body.start, body.end) : '';
    if (stripTabs) text = text.replace(/^\t+/gm, '');
    const operatorNode = node.children.find((child) => child.field === 'operator');
    const right = node.children.find((child) => child.field === 'right');
    return {
      kind: 'heredoc',
      descriptor,
      quoted: /['"\\]/.test(delimiter),
      text,
      body,
      extraWords: groupAdjacent(node.children.filter((child) => child.field === 'argument'), source),
      extraRedirects: node.children.filter((child) => child.field === 'redirect'),
      pipedTo: node.children.filter((child) => child.type === 'pipeline').flatMap((pipeline) => pipeline.children.filter((child) => child.named)),
      then: operatorNode && right ? { operator: source.slice(operatorNode.start, operatorNode.end), right } : undefined,
    };
  }
  const operatorNode = node.children.find((child) => !child.named && child.field !== 'descriptor');
  const words = groupAdjacent(node.children.filter((child) => child.field === 'destination'), source);
  return {
    kind: 'file',
    operator: operatorNode ? source.slice(operatorNode.start, operatorNode.end) : '',
    descriptor,
    target: words[0],
    extraWords: words.slice(1),
  };
}

/**
 * tree-sitter-bash reads `0< file` as an argument `0` and a `< file` redirection (it gets `2>`
 * right). Digits touching the operator, after a blank, are the descriptor, as bash reads them;
 * the walker drops them from the arguments (see `isTouchingDescriptor`).
 */
function touchingDescriptor(node: SyntaxNode, source: string): string | undefined {
  // Nearly every redirection has no digit before it; the pattern needs one right there.
  if (!isDigit(source.charCodeAt(node.start - 1))) return undefined;
  return /(?:^|[\s;&|(])(\d+)$/.exec(source.slice(Math.max(0, node.start - 12), node.start))?.[1];
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** True when `word` is such a descriptor: only digits, ending where a redirection starts. */
export function isTouchingDescriptor(word: readonly SyntaxNode[], source: string, redirectionStarts: ReadonlySet<number>): boolean {
  const only = word.length === 1 ? word[0] : undefined;
  return only !== undefined && redirectionStarts.has(only.end) && /^\d+$/.test(source.slice(only.start, only.end));
}

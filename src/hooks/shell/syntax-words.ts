import type { SyntaxNode } from './syntax-tree.js';

/**
 * Shell words as syntax. The grammar sometimes splits one word into touching nodes (`$"…"` is a
 * `$` token and a string; a backslash-newline inside a word, which bash removes before reading
 * words, splits `.e\<newline>nv` in two) and sometimes hangs a command's words on the wrong node
 * (`cat >out .env` puts `.env` under the redirection); both are fixed by grouping nodes by
 * position, since a shell word is exactly a run of text with no blank in between.
 */
export function groupAdjacent(nodes: readonly SyntaxNode[], source: string): SyntaxNode[][] {
  const groups: SyntaxNode[][] = [];
  let current: SyntaxNode[] = [];
  let end = -1;
  for (const node of nodes) {
    if (current.length > 0 && node.start !== end && !LINE_CONTINUATIONS.test(source.slice(end, node.start))) {
      groups.push(current);
      current = [];
    }
    current.push(node);
    end = node.end;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

const LINE_CONTINUATIONS = /^(?:\\\n)+$/;

import type { SyntaxNode } from './syntax-tree.js';

/** The two sizes of a parsed script that the node budget is checked against. */
interface ParsedSizes {
  /** Nodes copied (what an analysis' node budget is charged). */
  nodes: number;
  /** tree-sitter's descendant count, checked against the budget before copying. */
  descendants: number;
}

/** A script parsed before: its tree (frozen), or why bash cannot parse it. */
export type CachedSyntaxTree = (ParsedSizes & { root: SyntaxNode }) | (ParsedSizes & { syntaxError: string });

/** What a cache may hold at most: syntax nodes and characters of source text (the keys). */
export interface SyntaxTreeCacheBounds {
  nodes: number;
  characters: number;
}

/**
 * Parsed scripts by their exact text, kept across analyses. A syntax tree is a function of the
 * text alone (one grammar per process), so a script seen before (agents repeat `git status`,
 * `npm test`, the same `sh -c` code) skips tree-sitter and the copy of its tree, about half of
 * an analysis. So is a syntax error: a line that does not parse (an agent retrying it, a broken
 * script run twice) is refused again without the parse, the copy of its tree with errors and
 * the search for the error, several times the cost of a tree that parses. The trees are frozen:
 * no analysis can change what a later one reads (a write throws, and the analysis fails
 * closed). Bounded in nodes (a syntax error is charged the nodes of the tree it came from) and
 * characters held; the least recently used scripts go first.
 */
export class SyntaxTreeCache {
  private readonly trees = new Map<string, CachedSyntaxTree>();
  private nodes = 0;
  private characters = 0;

  constructor(private readonly bounds: SyntaxTreeCacheBounds) {}

  get(source: string): CachedSyntaxTree | undefined {
    const tree = this.trees.get(source);
    if (tree !== undefined) {
      // Most recently used last: eviction takes the first.
      this.trees.delete(source);
      this.trees.set(source, tree);
    }
    return tree;
  }

  /** Keeps `tree` (freezing it) unless it alone exceeds the bounds. */
  add(source: string, tree: CachedSyntaxTree): void {
    if (tree.nodes > this.bounds.nodes || source.length > this.bounds.characters || this.trees.has(source)) return;
    if ('root' in tree) freezeTree(tree.root);
    this.trees.set(source, tree);
    this.nodes += tree.nodes;
    this.characters += source.length;
    for (const [oldest, evicted] of this.trees) {
      if (this.nodes <= this.bounds.nodes && this.characters <= this.bounds.characters) break;
      this.trees.delete(oldest);
      this.nodes -= evicted.nodes;
      this.characters -= oldest.length;
    }
  }
}

function freezeTree(root: SyntaxNode): void {
  const pending = [root];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    Object.freeze(node);
    Object.freeze(node.children);
    for (const child of node.children) pending.push(child);
  }
}

import type { Language, Node } from 'web-tree-sitter';
import { runtimeCursor, type CursorRuntime, type SyntaxCursor } from './runtime-cursor.js';

/**
 * A plain-object copy of a tree-sitter syntax tree. Every property read on a web-tree-sitter node
 * is a call into WebAssembly, so the analyzer copies the tree once, with one cursor walk, and
 * then works on ordinary objects (and frees the native tree at once).
 */
export interface SyntaxNode {
  /** The grammar's node type: `command`, `word`, `file_redirect`, or the token itself (`>`, `&&`). */
  type: string;
  /** Named nodes are grammar rules; anonymous ones are literal tokens. */
  named: boolean;
  /** The field this node fills in its parent (`name`, `argument`, `redirect`, ...). */
  field: string | undefined;
  /** Offsets into the source string (web-tree-sitter counts UTF-16 code units, like String#slice). */
  start: number;
  end: number;
  children: SyntaxNode[];
}

/** Names of node types and fields by id, read once per language. */
export interface GrammarTables {
  types: string[];
  named: boolean[];
  fields: (string | undefined)[];
}

export function grammarTables(language: Language): GrammarTables {
  const types: string[] = [];
  const named: boolean[] = [];
  for (let id = 0; id < language.nodeTypeCount; id += 1) {
    types.push(language.nodeTypeForId(id) ?? '');
    named.push(language.nodeTypeIsNamed(id));
  }
  const fields: (string | undefined)[] = [undefined];
  for (let id = 1; id <= language.fieldCount; id += 1) fields.push(language.fieldNameForId(id) ?? undefined);
  return { types, named, fields };
}

export type CopyResult =
  /** `hasErrors`: the copy holds ERROR nodes (without, there is nothing to repair or report). */
  | { ok: true; root: SyntaxNode; nodes: number; hasErrors: boolean }
  | { ok: false; reason: 'too_many_nodes' | 'too_deep' | 'syntax_error' | 'empty_backquotes'; offset: number };

/**
 * Copies the tree under `rootNode` into plain nodes. Stops at `maxNodes` nodes or `maxDepth`
 * levels. When the tree has errors, ERROR and MISSING nodes are kept as `ERROR` nodes so
 * `findSyntaxError` can judge them. With `runtime`, the walk calls the WebAssembly runtime's
 * cursor functions directly (runtime-cursor.ts); the copy is the same.
 */
export function copySyntaxTree(rootNode: Node, tables: GrammarTables, maxNodes: number, maxDepth: number, runtime?: CursorRuntime): CopyResult {
  const withErrors = rootNode.hasError;
  const cursor: SyntaxCursor = (runtime && runtimeCursor(runtime, rootNode)) ?? rootNode.walk();
  let hasErrors = false;
  let emptyBackquotes: number | undefined;
  try {
    const make = (): SyntaxNode => {
      const typeId = cursor.nodeTypeId;
      const missing = withErrors && cursor.nodeIsMissing;
      const type = missing ? 'ERROR' : (tables.types[typeId] ?? 'ERROR');
      if (type === 'ERROR') hasErrors = true;
      // tree-sitter-bash 0.25 reads an empty command substitution (``, ` `) as glue between
      // words, taking the blank before it: `cat ``.env` becomes one word where bash runs
      // `cat .env`. No tree with that token can be trusted.
      else if (type === '``') emptyBackquotes ??= cursor.startIndex;
      const named = tables.named[typeId] ?? true;
      const start = cursor.startIndex;
      // An anonymous node is a literal token of the grammar (`>`, `&&`, `$`): its text is its
      // type, so its end needs no call into WebAssembly (a MISSING one is zero-width).
      const end = named || withErrors ? cursor.endIndex : start + type.length;
      return { type, named, field: tables.fields[cursor.currentFieldId], start, end, children: [] };
    };
    const root = make();
    const path: SyntaxNode[] = [root];
    let nodes = 1;
    for (;;) {
      // An anonymous node is a token (tree-sitter-bash aliases no rule to an anonymous name):
      // it has no children, so asking for them would be a wasted call into WebAssembly. A tree
      // with errors is walked in full.
      const node = path[path.length - 1] as SyntaxNode;
      if ((node.named || withErrors) && cursor.gotoFirstChild()) {
        const child = make();
        node.children.push(child);
        path.push(child);
      } else {
        for (;;) {
          if (path.length === 1) return emptyBackquotes === undefined ? { ok: true, root, nodes, hasErrors } : { ok: false, reason: 'empty_backquotes', offset: emptyBackquotes };
          if (cursor.gotoNextSibling()) {
            path.pop();
            const sibling = make();
            (path[path.length - 1] as SyntaxNode).children.push(sibling);
            path.push(sibling);
            break;
          }
          cursor.gotoParent();
          path.pop();
        }
      }
      nodes += 1;
      const current = path[path.length - 1] as SyntaxNode;
      if (nodes > maxNodes) return { ok: false, reason: 'too_many_nodes', offset: current.start };
      if (path.length > maxDepth) return { ok: false, reason: 'too_deep', offset: current.start };
    }
  } finally {
    cursor.delete();
  }
}

/**
 * Two redirections tree-sitter-bash 0.25 gets wrong although bash accepts them, repaired in
 * place; any other error stays an error.
 *
 * - `<>` (open for reading and writing) comes out as a `<` token and an ERROR holding `>`;
 *   touching, they are the one operator.
 * - A here-string after another redirection (`cmd 2>&1 <<< text`) comes out as an ERROR holding
 *   `<<` and a `< text` redirect; touching, they are `<<< text`, rewritten into the
 *   `herestring_redirect` the grammar produces elsewhere.
 */
export function repairRedirections(node: SyntaxNode): void {
  const children = node.children;
  for (let index = 0; index < children.length; index += 1) {
    const child = children[index] as SyntaxNode;
    const next = children[index + 1];
    const lone = child.children[0];
    const previous = children[index - 1];
    if (
      // `<>` (open for reading and writing): the grammar reads `<` and an ERROR holding `>`.
      node.type === 'file_redirect' &&
      child.type === 'ERROR' &&
      child.children.length === 1 &&
      lone?.type === '>' &&
      previous?.type === '<' &&
      previous.end === child.start
    ) {
      children.splice(index - 1, 2, { type: '<>', named: false, field: undefined, start: previous.start, end: child.end, children: [] });
      index -= 1;
    } else if (
      child.type === 'ERROR' &&
      child.children.length === 1 &&
      lone?.type === '<<' &&
      next?.type === 'file_redirect' &&
      next.start === child.end &&
      next.children[0]?.type === '<'
    ) {
      const words = next.children.slice(1).filter((word) => word.field === 'destination');
      children.splice(index, 2, {
        type: 'herestring_redirect',
        named: true,
        field: 'redirect',
        start: child.start,
        end: next.end,
        children: [{ type: '<<<', named: false, field: undefined, start: child.start, end: next.children[0].end, children: [] }, ...words],
      });
    } else {
      repairRedirections(child);
    }
  }
}

/** The first ERROR (or MISSING) node left in the tree, if any. */
export function findSyntaxError(node: SyntaxNode): SyntaxNode | undefined {
  if (node.type === 'ERROR') return node;
  for (const child of node.children) {
    const found = findSyntaxError(child);
    if (found) return found;
  }
  return undefined;
}

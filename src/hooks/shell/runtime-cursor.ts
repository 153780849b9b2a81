import type { Node, TreeCursor } from 'web-tree-sitter';

/**
 * What the syntax-tree copy asks of a cursor (syntax-tree.ts): web-tree-sitter's TreeCursor, or
 * a RuntimeCursor doing the same through the WebAssembly runtime's own functions.
 */
export type SyntaxCursor = Pick<TreeCursor, 'nodeTypeId' | 'nodeIsMissing' | 'startIndex' | 'endIndex' | 'currentFieldId' | 'gotoFirstChild' | 'gotoNextSibling' | 'gotoParent' | 'delete'>;

/**
 * The cursor functions of web-tree-sitter's WebAssembly runtime (tree-sitter.c in the package,
 * exported on the module object handed to Parser.init). Each takes the tree's address and finds
 * the cursor in the runtime's transfer buffer; a move writes the moved cursor back there.
 */
export interface CursorRuntime {
  _ts_tree_cursor_delete_wasm(tree: number): void;
  _ts_tree_cursor_goto_first_child_wasm(tree: number): number;
  _ts_tree_cursor_goto_next_sibling_wasm(tree: number): number;
  _ts_tree_cursor_goto_parent_wasm(tree: number): number;
  _ts_tree_cursor_current_node_type_id_wasm(tree: number): number;
  _ts_tree_cursor_current_node_is_missing_wasm(tree: number): number;
  _ts_tree_cursor_start_index_wasm(tree: number): number;
  _ts_tree_cursor_end_index_wasm(tree: number): number;
  _ts_tree_cursor_current_field_id_wasm(tree: number): number;
}

const RUNTIME_FUNCTIONS: readonly (keyof CursorRuntime)[] = [
  '_ts_tree_cursor_delete_wasm',
  '_ts_tree_cursor_goto_first_child_wasm',
  '_ts_tree_cursor_goto_next_sibling_wasm',
  '_ts_tree_cursor_goto_parent_wasm',
  '_ts_tree_cursor_current_node_type_id_wasm',
  '_ts_tree_cursor_current_node_is_missing_wasm',
  '_ts_tree_cursor_start_index_wasm',
  '_ts_tree_cursor_end_index_wasm',
  '_ts_tree_cursor_current_field_id_wasm',
];

/** The runtime's cursor functions on the module object Parser.init filled in, or undefined when any is missing. */
export function cursorRuntimeOf(module: object): CursorRuntime | undefined {
  const functions: Record<string, unknown> = module as Record<string, unknown>;
  return RUNTIME_FUNCTIONS.every((name) => typeof functions[name] === 'function') ? (module as CursorRuntime) : undefined;
}

/**
 * A cursor walking `node`'s tree through the runtime's functions directly. web-tree-sitter's
 * TreeCursor writes its four words into the transfer buffer before every call and reads them
 * back after every move: a dozen JavaScript-to-WebAssembly crossings per node where the copy
 * needs five. Walked with no other call into the runtime meanwhile, the buffer holds this
 * cursor from its creation (Node#walk leaves it there) to its deletion, so nothing needs
 * copying. The TreeCursor object Node#walk returns is left behind unused: its words go stale
 * as the cursor moves, and deleting through it would free the wrong stack.
 */
export function runtimeCursor(runtime: CursorRuntime, node: Node): SyntaxCursor | undefined {
  const tree: unknown = (node.tree as unknown as Record<number, unknown>)[0];
  if (typeof tree !== 'number' || !Number.isInteger(tree) || tree <= 0) return undefined;
  node.walk();
  return new RuntimeCursor(runtime, tree);
}

class RuntimeCursor implements SyntaxCursor {
  constructor(
    private readonly runtime: CursorRuntime,
    private readonly tree: number,
  ) {}

  get nodeTypeId(): number {
    return this.runtime._ts_tree_cursor_current_node_type_id_wasm(this.tree);
  }

  get nodeIsMissing(): boolean {
    return this.runtime._ts_tree_cursor_current_node_is_missing_wasm(this.tree) === 1;
  }

  get startIndex(): number {
    return this.runtime._ts_tree_cursor_start_index_wasm(this.tree);
  }

  get endIndex(): number {
    return this.runtime._ts_tree_cursor_end_index_wasm(this.tree);
  }

  get currentFieldId(): number {
    return this.runtime._ts_tree_cursor_current_field_id_wasm(this.tree);
  }

  gotoFirstChild(): boolean {
    return this.runtime._ts_tree_cursor_goto_first_child_wasm(this.tree) === 1;
  }

  gotoNextSibling(): boolean {
    return this.runtime._ts_tree_cursor_goto_next_sibling_wasm(this.tree) === 1;
  }

  gotoParent(): boolean {
    return this.runtime._ts_tree_cursor_goto_parent_wasm(this.tree) === 1;
  }

  delete(): void {
    this.runtime._ts_tree_cursor_delete_wasm(this.tree);
  }
}

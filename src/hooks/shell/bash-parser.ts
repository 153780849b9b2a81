import { isDeepStrictEqual } from 'node:util';
import { Language, Parser } from 'web-tree-sitter';
import { MAX_TREE_DEPTH, PARSE_TIME_BUDGET_MS } from './analysis-limits.js';
import { grammarWasmCompiled, grammarWasmFiles, precompileGrammarWasm, readGrammarWasm } from './grammar-wasm.js';
import { plainCommandTree } from './plain-command-tree.js';
import { cursorRuntimeOf, type CursorRuntime } from './runtime-cursor.js';
import { copySyntaxTree, findSyntaxError, grammarTables, repairRedirections, type GrammarTables, type SyntaxNode } from './syntax-tree.js';
import { SyntaxTreeCache, type SyntaxTreeCacheBounds } from './syntax-tree-cache.js';
import { monotonicMs } from '../../monotonic-clock.js';

/**
 * The real bash grammar (tree-sitter-bash) running in web-tree-sitter. Both WebAssembly files
 * come from the installed packages and are read from disk: nothing is fetched at run time.
 */

export type ParseResult =
  | { ok: true; root: SyntaxNode; nodes: number }
  /** `limit`: a bound of the analysis (time, size), not a fault of the script itself. */
  | { ok: false; message: string; limit?: true };

export interface BashParser {
  /**
   * Parses one script. `nodeBudget` is what is left of the analysis' node allowance; `deadline`
   * (monotonicMs()) is when the analysis as a whole gives up.
   */
  parse(source: string, nodeBudget: number, deadline?: number): ParseResult;
}

/** Long inputs get a wall-clock budget; short ones skip the progress callback's overhead. */
const TIMED_PARSE_LENGTH = 8 * 1024;

/** What the trees kept across analyses may hold (syntax-tree-cache.ts): a few megabytes, thousands of usual commands. */
const CACHE_BOUNDS: SyntaxTreeCacheBounds = { nodes: 50_000, characters: 500_000 };

const TOO_LARGE: ParseResult = Object.freeze({ ok: false, message: 'the command is too large to analyze', limit: true });

/**
 * The parser of a process that has not loaded the grammar: plain command lines only
 * (plain-command-tree.ts). A hook process analyzes one command and exits, and for a plain line
 * (much of what agents run) loading the WebAssembly runtime and the grammar would be most of its
 * analysis. Asked for any other script (the line, or a script it runs), it fails and
 * remembers that it did: the caller loads the grammar and analyzes again (analyzeWithoutGrammar).
 */
export class PlainCommandParser implements BashParser {
  grammarNeeded = false;

  parse(source: string, nodeBudget: number): ParseResult {
    const plain = plainCommandTree(source);
    if (plain === undefined) {
      this.grammarNeeded = true;
      return { ok: false, message: 'the bash grammar is not loaded' };
    }
    return plain.nodes > nodeBudget ? TOO_LARGE : { ok: true, root: plain.root, nodes: plain.nodes };
  }
}

class TreeSitterBashParser implements BashParser {
  constructor(
    private readonly parser: Parser,
    private readonly tables: GrammarTables,
    private readonly cache: SyntaxTreeCache | undefined,
    private readonly cursorRuntime: () => CursorRuntime | undefined,
  ) {}

  /** Trees to copy through web-tree-sitter's public cursor before the runtime's own functions are probed (directCursor). */
  private publicCopiesLeft = PUBLIC_COPIES_BEFORE_PROBE;

  parse(source: string, nodeBudget: number, analysisDeadline = Infinity): ParseResult {
    // Only a script parsed without a time budget is kept: parsing it again would give the same tree.
    const cache = source.length > TIMED_PARSE_LENGTH ? undefined : this.cache;
    const cached = cache?.get(source);
    if (cached !== undefined) {
      // The checks of a parse, in its order: too large for the budget before anything else.
      if (cached.descendants > nodeBudget || cached.nodes > nodeBudget) return TOO_LARGE;
      return 'root' in cached ? { ok: true, root: cached.root, nodes: cached.nodes } : { ok: false, message: cached.syntaxError };
    }
    const plain = plainCommandTree(source);
    if (plain !== undefined) {
      // Its node count is the tree's descendant count too: one check stands for both of the parser's.
      if (plain.nodes > nodeBudget) return TOO_LARGE;
      // Kept like a parsed tree: a command seen before costs one lookup either way.
      cache?.add(source, { root: plain.root, nodes: plain.nodes, descendants: plain.nodes });
      return { ok: true, root: plain.root, nodes: plain.nodes };
    }
    let tree;
    if (source.length > TIMED_PARSE_LENGTH) {
      const deadline = Math.min(monotonicMs() + PARSE_TIME_BUDGET_MS, analysisDeadline);
      // Returning true cancels the parse (the typings say void; the runtime reads the value).
      tree = this.parser.parse(source, null, { progressCallback: () => monotonicMs() > deadline });
    } else {
      tree = this.parser.parse(source);
    }
    if (!tree) {
      this.parser.reset();
      return { ok: false, message: 'the command took too long to parse', limit: true };
    }
    try {
      const root = tree.rootNode;
      // One call tells the size; an oversized tree is refused before any copying.
      const descendants = root.descendantCount;
      if (descendants > nodeBudget) return TOO_LARGE;
      const copy = copySyntaxTree(root, this.tables, nodeBudget, MAX_TREE_DEPTH, this.directCursor());
      if (!copy.ok) {
        if (copy.reason === 'too_deep') return { ok: false, message: `the command nests too deeply (at offset ${copy.offset})` };
        if (copy.reason === 'empty_backquotes') return { ok: false, message: `the bash grammar misreads the empty command substitution at offset ${copy.offset}; write "" instead of \`\`` };
        return TOO_LARGE;
      }
      if (copy.hasErrors) {
        repairRedirections(copy.root);
        const error = findSyntaxError(copy.root);
        if (error) {
          const excerpt = source.slice(error.start, Math.min(error.end, error.start + 40));
          const message = `bash cannot parse the command near offset ${error.start}${excerpt ? `: ${JSON.stringify(excerpt)}` : ''}`;
          // Under any budget at least both sizes, a parse again would copy the same tree and find the same error.
          cache?.add(source, { syntaxError: message, nodes: copy.nodes, descendants });
          return { ok: false, message };
        }
      }
      cache?.add(source, { root: copy.root, nodes: copy.nodes, descendants });
      return { ok: true, root: copy.root, nodes: copy.nodes };
    } finally {
      tree.delete();
    }
  }

  private directCursor(): CursorRuntime | undefined {
    if (this.publicCopiesLeft === 0) return this.cursorRuntime();
    this.publicCopiesLeft -= 1;
    return undefined;
  }
}

/** The bash grammar loaded into web-tree-sitter, with its node type and field names. */
export interface BashGrammar {
  language: Language;
  tables: GrammarTables;
  /**
   * The runtime's cursor functions, when they copy trees exactly as web-tree-sitter's TreeCursor
   * does (runtime-cursor.ts): probed on the first call, which costs a hook process about 5 ms.
   */
  cursorRuntime: () => CursorRuntime | undefined;
}

/**
 * A hook process copies a tree or two and exits, and the direct cursor saves it microseconds
 * where the probe costs milliseconds; a process that parses on (the proxy, the playground, the
 * MCP wrapper) probes once, after this many trees.
 */
const PUBLIC_COPIES_BEFORE_PROBE = 16;

let grammar: Promise<BashGrammar> | undefined;
let parser: Promise<BashParser> | undefined;

/** Initializes web-tree-sitter and loads the bash grammar, once per process. */
export function loadBashGrammar(): Promise<BashGrammar> {
  grammar ??= (async () => {
    precompileGrammarWasm();
    await grammarWasmCompiled();
    const wasm = readGrammarWasm();
    const runtimeFile = grammarWasmFiles().runtime;
    // Handing the bytes over directly skips web-tree-sitter's own lookup (a URL next to its
    // module, or fetch() outside Node); locateFile covers any other file it might ask for. The
    // runtime's own messages go nowhere: stdout and stderr carry a hook's answer, and what went
    // wrong is in the error it throws.
    const silent = (): void => undefined;
    // The runtime makes this object its module and puts its exported functions on it.
    const module = { wasmBinary: wasm.runtime, locateFile: () => runtimeFile, print: silent, printErr: silent, ...(wasm.initialMemory !== undefined && { INITIAL_MEMORY: wasm.initialMemory }) };
    try {
      await Parser.init(module);
    } catch (error) {
      absorbRuntimeRejection(error);
      throw error;
    }
    const language = await Language.load(wasm.grammar);
    const tables = grammarTables(language);
    const runtime = cursorRuntimeOf(module);
    let probed: { runtime: CursorRuntime | undefined } | undefined;
    const cursorRuntime = (): CursorRuntime | undefined => (probed ??= { runtime: runtime !== undefined && copiesAlike(language, tables, runtime) ? runtime : undefined }).runtime;
    return { language, tables, cursorRuntime };
  })();
  // A failed load (missing package files) must not stay cached as a rejected promise forever.
  grammar.catch(() => (grammar = undefined));
  return grammar;
}

/** Scripts with fields, tokens, errors, MISSING nodes and text beyond ASCII: what the copy reads of a node. */
const CURSOR_PROBES = ['cat "é$(ls ~/x)" > out 2>&1 <<< t; if [ -f a ]; then echo `x`; fi', 'for f in *.ts; do wc -l "$f"; done | sort -u &', 'case $x in a) y=${z:-1};; esac; echo "x', 'f() { (( i++ )); }; a[$(id)]=1 cat <<EOF\n$HOME 🙂\nEOF\n', 'if then', '${'];

/**
 * True when the runtime's functions copy the probe scripts exactly as web-tree-sitter's
 * TreeCursor does. They are internals of the package, not its API: a version that changed
 * them would fail here, and the slower public cursor is used instead.
 */
function copiesAlike(language: Language, tables: GrammarTables, runtime: CursorRuntime): boolean {
  const parser = new Parser();
  try {
    parser.setLanguage(language);
    return CURSOR_PROBES.every((source) => {
      const tree = parser.parse(source);
      if (!tree) return false;
      try {
        const direct = copySyntaxTree(tree.rootNode, tables, 10_000, 100, runtime);
        return direct.ok && isDeepStrictEqual(direct, copySyntaxTree(tree.rootNode, tables, 10_000, 100));
      } finally {
        tree.delete();
      }
    });
  } catch {
    return false;
  } finally {
    parser.delete();
  }
}

/**
 * When its WebAssembly cannot be instantiated, web-tree-sitter's emscripten runtime also rejects
 * a promise of its own, which nothing awaits, with the error Parser.init rejects with. Node would
 * end the process on that unhandled rejection (exit 1, no answer: a runtime may take that as "go
 * ahead") before the caller turns the failure into a deny. Node reports unhandled rejections once
 * the current microtasks are done, so the listener only needs to last until the next turn of the
 * event loop; any other rejection in that window still ends the process, as it would without it.
 */
function absorbRuntimeRejection(error: unknown): void {
  const listener = (reason: unknown): void => {
    if (reason !== error) throw reason;
  };
  process.on('unhandledRejection', listener);
  setImmediate(() => process.off('unhandledRejection', listener)).unref();
}

/**
 * A parser of the loaded grammar. It keeps the trees of scripts it parsed for later calls
 * (syntax-tree-cache.ts) unless `reuseParses` is false, as for measuring a first parse.
 */
export function createBashParser({ language, tables, cursorRuntime }: BashGrammar, options: { reuseParses?: boolean } = {}): BashParser {
  const treeSitter = new Parser();
  treeSitter.setLanguage(language);
  return new TreeSitterBashParser(treeSitter, tables, options.reuseParses === false ? undefined : new SyntaxTreeCache(CACHE_BOUNDS), cursorRuntime);
}

/** The parser the analysis uses, created once per process. */
export function loadBashParser(): Promise<BashParser> {
  parser ??= loadBashGrammar().then((loaded) => createBashParser(loaded));
  parser.catch(() => (parser = undefined));
  return parser;
}

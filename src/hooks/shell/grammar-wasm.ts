import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { withMemoryMinimum } from './wasm-memory-minimum.js';

/**
 * The two WebAssembly files the bash parser runs (web-tree-sitter's runtime and the bash
 * grammar), and compiling them ahead of need.
 *
 * Compiling them is most of the time it takes to load the parser, and V8 does it on its
 * background threads. web-tree-sitter compiles the runtime first and the grammar only after the
 * runtime is initialized, each when the parser is first asked for. `precompileGrammarWasm` starts
 * both at once, as early as the caller knows a parser will be needed: a hook process starts them
 * before it loads its engine, so the compiling overlaps that. V8 keeps one compiled module per
 * distinct wire bytes while one is alive, and web-tree-sitter's own compilation of the same bytes
 * then takes it instead of compiling again. A second compilation started while the first is under
 * way would block the main thread until the first is done, so the parser loader awaits
 * `grammarWasmCompiled()` first. Without that sharing the parser would still load, as before, only
 * no sooner.
 *
 * The bytes are read once per process (`readGrammarWasm`), the runtime's with the memory it asks
 * for lowered to `RUNTIME_MEMORY_PAGES` (wasm-memory-minimum.ts): both the compiling and the
 * parser use those very bytes, so the compiled module is shared.
 */
export interface GrammarWasmFiles {
  runtime: string;
  grammar: string;
}

/** The two files' bytes, as the parser is to run them. */
export interface GrammarWasm {
  runtime: Uint8Array;
  grammar: Uint8Array;
  /** Bytes of memory to start the runtime with (emscripten's INITIAL_MEMORY), or undefined for its own default. */
  initialMemory?: number;
}

/**
 * 4 MiB: a hook call's parse never needed more than that (the memory grows on demand past it),
 * against the 32 MiB the runtime declares.
 */
const RUNTIME_MEMORY_PAGES = 64;
const PAGE_BYTES = 65_536;

/** Node's global WebAssembly, which this project's TypeScript libraries (ES2023, no DOM) do not declare. */
interface WasmCompiler {
  compile(bytes: Uint8Array): Promise<object>;
}

let files: GrammarWasmFiles | undefined;

/**
 * Once per process, not per copy of this module: a hook process holds two (its entry chunk starts
 * the compiling, its engine bundle loads the parser).
 */
const COMPILED = Symbol.for('svc.grammar-wasm.compiled');
const BYTES = Symbol.for('svc.grammar-wasm.bytes');
const processWide = globalThis as { [COMPILED]?: Promise<unknown>; [BYTES]?: GrammarWasm };

export function grammarWasmFiles(): GrammarWasmFiles {
  files ??= { runtime: wasmFile('web-tree-sitter/tree-sitter.wasm'), grammar: wasmFile('tree-sitter-bash/tree-sitter-bash.wasm') };
  return files;
}

/** The bytes of both files, read once per process; throws what reading them throws. */
export function readGrammarWasm(): GrammarWasm {
  if (processWide[BYTES]) return processWide[BYTES];
  const paths = grammarWasmFiles();
  const runtime = readFileSync(paths.runtime);
  const grammar = readFileSync(paths.grammar);
  const lowered = withMemoryMinimum(runtime, RUNTIME_MEMORY_PAGES);
  processWide[BYTES] = lowered ? { runtime: lowered, grammar, initialMemory: RUNTIME_MEMORY_PAGES * PAGE_BYTES } : { runtime, grammar };
  return processWide[BYTES];
}

/**
 * Starts compiling both files, once per process. The compiled modules are held for as long as
 * the process runs, which is what lets V8 hand them to web-tree-sitter. Best effort: a file that
 * cannot be read or compiled here fails again, with its error, where the parser is loaded.
 */
export function precompileGrammarWasm(): void {
  if (processWide[COMPILED]) return;
  try {
    const { WebAssembly } = globalThis as unknown as { WebAssembly: WasmCompiler };
    const { runtime, grammar } = readGrammarWasm();
    processWide[COMPILED] = Promise.all([WebAssembly.compile(runtime), WebAssembly.compile(grammar)]).catch(() => undefined);
  } catch {
    processWide[COMPILED] = Promise.resolve();
  }
}

/** Settles once the compiling `precompileGrammarWasm` started is over, however it ended. */
export function grammarWasmCompiled(): Promise<unknown> {
  return processWide[COMPILED] ?? Promise.resolve();
}

/**
 * A package's WebAssembly file: the copy beside this module when there is one (the hook bundle
 * ships both, which saves a hook process two package lookups), else the installed package's.
 */
function wasmFile(packageFile: string): string {
  const beside = fileURLToPath(new URL(packageFile.slice(packageFile.lastIndexOf('/') + 1), import.meta.url));
  return existsSync(beside) ? beside : createRequire(import.meta.url).resolve(packageFile);
}

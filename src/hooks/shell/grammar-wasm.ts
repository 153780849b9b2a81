import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

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
 */
export interface GrammarWasmFiles {
  runtime: string;
  grammar: string;
}

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
const processWide = globalThis as { [COMPILED]?: Promise<unknown> };

export function grammarWasmFiles(): GrammarWasmFiles {
  files ??= { runtime: wasmFile('web-tree-sitter/tree-sitter.wasm'), grammar: wasmFile('tree-sitter-bash/tree-sitter-bash.wasm') };
  return files;
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
    const { runtime, grammar } = grammarWasmFiles();
    processWide[COMPILED] = Promise.all([WebAssembly.compile(readFileSync(runtime)), WebAssembly.compile(readFileSync(grammar))]).catch(() => undefined);
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

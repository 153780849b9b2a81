import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { precompileGrammarWasm } from '../hooks/shell/grammar-wasm.js';
import { requireWithCodeCache, type CachedBundle } from './code-cache.js';

export type HookEngine = typeof import('../hooks/hook-process-engine.js');

/**
 * The engine of `svc hook` (src/hooks/hook-process-engine.ts: run-hook.ts and everything it needs). The build bundles it
 * into one CommonJS file beside the hook bundle, `engine.cjs`, with a V8 code cache made by
 * running typical hook calls (scripts/bundle-hook.ts). Running from the modules tsc emitted, or
 * with the bundle missing, it is imported module by module instead.
 */
const ENGINE_BUNDLE = 'engine.cjs';

/**
 * `file`: the bundle to load; by default the one beside this module (scripts/warm-hook-cache.ts names it).
 * `precompileGrammar`: the call may run a shell command, so the bash grammar's WebAssembly starts
 * compiling on V8's background threads while the engine loads (grammar-wasm.ts).
 */
export async function loadHookEngine(file = fileURLToPath(new URL(ENGINE_BUNDLE, import.meta.url)), options: { precompileGrammar?: boolean } = {}): Promise<{ engine: HookEngine; bundle?: CachedBundle }> {
  // A hook process parses one command and exits. V8 would otherwise optimize the bash grammar's
  // WebAssembly in the background and hold the exit until that finishes (about 400 ms); the
  // baseline compiler alone parses a command in well under a millisecond. Compiled eagerly, the
  // grammar is compiled on V8's background threads while the hook reads its config and opens the
  // ledger; lazily, the first parse would compile it on the main thread. Set before the engine
  // is compiled: V8's flags are part of what a code cache must match.
  setFlagsFromString('--liftoff-only');
  setFlagsFromString('--no-wasm-lazy-compilation');
  // Nearly everything a hook process allocates lives until it exits (the engine's modules, their
  // schemas), so every scavenge of a young generation that starts at 1 MB and doubles copies it
  // all. Growing it eightfold instead halves the collector's work (callgrind: 22M -> 11M of a
  // call's 866M instructions). Read by V8 each time the young generation grows.
  setFlagsFromString('--semi-space-growth-factor=8');
  if (options.precompileGrammar === true) precompileGrammarWasm();
  let bundle: CachedBundle;
  try {
    bundle = requireWithCodeCache(file);
  } catch (error) {
    // Only the bundle's own absence falls back; anything failing inside a bundle that is there is an error.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || (error as NodeJS.ErrnoException).path !== file) throw error;
    return { engine: await import('../hooks/hook-process-engine.js') };
  }
  return { engine: bundle.exports as HookEngine, bundle };
}

/**
 * The build step after tsc: bundles `svc hook` into dist/src/cli/hook-bundle/. A hook is a new
 * node process before every tool call of a coding agent, and resolving and compiling a few
 * hundred small ES modules costs it about 150 ms; a handful of files costs a fraction of that.
 *
 * Two bundles, of the JavaScript tsc emitted (so they hold exactly what tsc emitted), both
 * CommonJS, which the `svc` executable (svc.cjs) requires without starting Node's ES module loader:
 * - `hook-entry.cjs`: reading the event and forwarding it to a proxy that serves the workspace,
 *   and the loader of the engine, about 20 KB.
 * - `engine.cjs`: the engine that decides locally, loaded by src/cli/hook-engine.ts with a V8
 *   code cache (src/cli/code-cache.ts). A code cache needs a classic script, hence CommonJS. The
 *   cache is made last, by scripts/warm-hook-cache.ts running typical hook calls through the bundle.
 * - the two WebAssembly files the engine loads (the tree-sitter runtime, the bash grammar), copied
 *   beside it so that it need not look them up in node_modules.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const outdir = join(root, 'dist', 'src', 'cli', 'hook-bundle');
const engineFile = join(outdir, 'engine.cjs');
const require = createRequire(import.meta.url);
const builtins = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];

// Chunk names carry content hashes, so chunks of an earlier build would otherwise pile up.
rmSync(outdir, { recursive: true, force: true });

/**
 * The entry's two imports of modules it does not need on its way (the engine's modules, taken only
 * without engine.cjs; the runtimes' protocols, to word a proxy's refusal) stay imports of the
 * modules tsc emitted, written relative to the bundle folder.
 */
const OUTSIDE_ENTRY = /\/hooks\/(hook-process-engine|runtimes\/index)\.js$/;
const modulesOutsideEntry: Plugin = {
  name: 'modules-outside-entry',
  setup(build) {
    build.onResolve({ filter: OUTSIDE_ENTRY }, (args) => (args.kind === 'dynamic-import' ? { path: `../../hooks/${OUTSIDE_ENTRY.exec(args.path)?.[1] ?? ''}.js`, external: true } : undefined));
  },
};

/** Both bundles' `node:fs/promises` is the synchronous one of src/hooks/synchronous-fs-promises.cts (see the module). */
const synchronousFsPromises: Plugin = {
  name: 'synchronous-fs-promises',
  setup(build) {
    build.onResolve({ filter: /^(node:)?fs\/promises$/ }, () => ({ path: join(root, 'dist', 'src', 'hooks', 'synchronous-fs-promises.cjs') }));
  },
};

await build({
  // The `// <path>` comments before each module are relative to this, whatever the caller's cwd.
  absWorkingDir: root,
  entryPoints: [join(root, 'dist', 'src', 'cli', 'hook-entry.js')],
  outfile: join(outdir, 'hook-entry.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  external: builtins,
  plugins: [modulesOutsideEntry, synchronousFsPromises],
  // import() becomes require(), also of the two ES modules above (Node's require of an ES module):
  // an import() would start the ES module loader that a CommonJS entry is there to spare.
  supported: { 'dynamic-import': false },
  define: { 'import.meta.url': '__svcBundleUrl' },
  banner: { js: "const __svcBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
  logLevel: 'warning',
});

await build({
  absWorkingDir: root,
  entryPoints: [join(root, 'dist', 'src', 'hooks', 'hook-process-engine.js')],
  plugins: [synchronousFsPromises],
  outfile: engineFile,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  // Without comments and indentation the file is a third smaller and pure ASCII, which V8 keeps
  // as a one-byte string: less for every hook process to read, hash and decode.
  minifyWhitespace: true,
  // Everything from node_modules is bundled; only Node's own modules stay requires.
  external: builtins,
  // A dynamic import() of a builtin becomes require(): a classic script compiled by node:vm has
  // no import() without --experimental-vm-modules.
  supported: { 'dynamic-import': false },
  // web-tree-sitter's ES module build reaches `require` through `import('module')`, which a
  // CommonJS bundle cannot express; its CommonJS build is the same code for require.
  alias: {
    'web-tree-sitter': join(root, 'node_modules', 'web-tree-sitter', 'tree-sitter.cjs'),
    // proper-lockfile's dependencies as a short process needs them (see each module): an exit
    // handler without signal listeners, and Node's fs without graceful-fs's patching of it.
    'signal-exit': join(root, 'dist', 'src', 'hooks', 'exit-only-signal-exit.cjs'),
    'graceful-fs': join(root, 'dist', 'src', 'hooks', 'graceful-fs-as-node-fs.cjs'),
  },
  // import.meta.url in any bundled module means the bundle's own URL, as in the ES module chunks.
  define: { 'import.meta.url': '__svcBundleUrl' },
  banner: { js: "const __svcBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
  logLevel: 'warning',
});

// The WebAssembly the engine loads, beside it (src/hooks/shell/bash-parser.ts looks there first).
for (const wasm of ['web-tree-sitter/tree-sitter.wasm', 'tree-sitter-bash/tree-sitter-bash.wasm']) copyFileSync(require.resolve(wasm), join(outdir, basename(wasm)));

// The warm-up decides real calls, so it gets a workspace and a home of its own.
const scratch = mkdtempSync(join(tmpdir(), 'svc-warm-hook-cache-'));
try {
  const env = { ...process.env, HOME: join(scratch, 'home'), SVC_REVIEWER_KEYS_DIR: join(scratch, 'home', 'reviewer-keys') };
  const ws = join(scratch, 'ws');
  mkdirSync(ws);
  mkdirSync(env.HOME);
  const run = (args: string[]): void => {
    const child = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`node ${args.join(' ')} failed (${child.status}): ${child.stderr}`);
  };
  run([join(root, 'dist', 'src', 'cli', 'main.js'), 'init', '--dir', ws]);
  run([join(root, 'dist', 'scripts', 'warm-hook-cache.js'), engineFile, ws]);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

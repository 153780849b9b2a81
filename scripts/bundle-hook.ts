/**
 * The build step after tsc: bundles `svc hook` (dist/src/cli/hook-entry.js) into
 * dist/src/cli/hook-bundle/. A hook is a new node process before every tool call of a coding
 * agent, and resolving and compiling a few hundred small ES modules costs it about 150 ms; a
 * handful of files costs a fraction of that. main.js imports the bundle when it is there.
 *
 * The compiled JavaScript is bundled, not the TypeScript, so the bundle is exactly what tsc
 * emitted. Splitting keeps the lazily imported engine (`import('../hooks/run-hook.js')`) in its
 * own chunk: a hook that only forwards to a running proxy never parses it.
 */
import { rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const outdir = join(root, 'dist', 'src', 'cli', 'hook-bundle');

// Chunk names carry content hashes, so chunks of an earlier build would otherwise pile up.
rmSync(outdir, { recursive: true, force: true });

await build({
  // The `// <path>` comments before each module are relative to this, whatever the caller's cwd.
  absWorkingDir: root,
  entryPoints: [join(root, 'dist', 'src', 'cli', 'hook-entry.js')],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  // Everything from node_modules is bundled; only Node's own modules stay imports.
  external: [...builtinModules, ...builtinModules.map((name) => `node:${name}`)],
  // CommonJS dependencies (yaml, picomatch, proper-lockfile...) call require(), which an ES
  // module does not have. esbuild prepends the banner to every chunk.
  banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});

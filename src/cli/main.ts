#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EXIT_USAGE } from './context.js';
import { guardStdout } from './output.js';
import { reportFailure } from './report-failure.js';

/**
 * Every svc command. Commands set `process.exitCode`; anything thrown becomes one clear line
 * (or a JSON error body with --json) and exit status 2, never a stack trace. The `svc`
 * executable is svc.cjs, which starts `svc hook` itself and everything else here.
 *
 * `svc hook` run from here (hooks that `svc init` set up before svc.cjs existed, tests) skips
 * commander and the other commands' modules entirely, and loads the bundled hook
 * (scripts/bundle-hook.ts) when the build made one; `svc hook --help` and malformed hook
 * arguments still go through commander for the usual help and errors.
 */
async function main(argv: string[]): Promise<void> {
  try {
    if (argv[2] === 'hook' && (await (await loadHookEntry()).runHookMain(argv, fileURLToPath(import.meta.url)))) return;
    const [{ CommanderError }, { buildProgram }] = await Promise.all([import('commander'), import('./program.js')]);
    try {
      await buildProgram().parseAsync(argv);
    } catch (error) {
      if (!(error instanceof CommanderError)) throw error;
      process.exitCode = error.exitCode === 0 ? 0 : EXIT_USAGE;
      // Commander has told the person on stderr; a program reading --json output gets the same on stdout.
      if (error.exitCode !== 0 && argv.includes('--json')) {
        process.stdout.write(`${JSON.stringify({ error: { code: 'usage', message: error.message.replace(/^error: /, '') } }, null, 2)}\n`);
      }
    }
  } catch (error) {
    reportFailure(error, argv);
  }
}

type HookEntry = typeof import('./hook-entry.js');

/**
 * The bundled hook (a CommonJS file, which svc.cjs requires): one file instead of a few hundred
 * modules, which saves a hook process about 100 ms of module loading. Running from TypeScript
 * sources there is no bundle, so the modules themselves are loaded; a bundle that is there but
 * broken fails rather than hides.
 */
async function loadHookEntry(): Promise<HookEntry> {
  const bundle = new URL('./hook-bundle/hook-entry.cjs', import.meta.url);
  try {
    return ((await import(bundle.href)) as { default: HookEntry }).default;
  } catch (error) {
    // Checked only after a failed import, so the usual start pays for no extra file lookup.
    if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND' || existsSync(fileURLToPath(bundle))) throw error;
    return import('./hook-entry.js');
  }
}

guardStdout();

await main(process.argv);

#!/usr/bin/env node
import { SvcError } from '../errors.js';
import { EXIT_CHECK_FAILED, EXIT_USAGE } from './context.js';

/**
 * The `svc` executable. Commands set `process.exitCode`; anything thrown becomes one clear line
 * (or a JSON error body with --json) and exit status 2, never a stack trace.
 *
 * `svc hook` runs before every tool call of a coding agent, so it skips commander and the other
 * commands' modules entirely; `svc hook --help` and malformed hook arguments still go through
 * commander for the usual help and errors.
 */
async function main(argv: string[]): Promise<void> {
  try {
    if (argv[2] === 'hook') {
      const { parseHookArgs, runHookCommand } = await import('./hook-entry.js');
      const parsed = parseHookArgs(argv.slice(3));
      if (parsed) return await runHookCommand(parsed.runtime, parsed.options);
    }
    const [{ CommanderError }, { buildProgram }] = await Promise.all([import('commander'), import('./program.js')]);
    try {
      await buildProgram().parseAsync(argv);
    } catch (error) {
      if (!(error instanceof CommanderError)) throw error;
      process.exitCode = error.exitCode === 0 ? 0 : EXIT_USAGE;
    }
  } catch (error) {
    const code = error instanceof SvcError ? error.code : ((error as NodeJS.ErrnoException).code ?? 'internal_error').toLowerCase();
    const message = error instanceof Error ? error.message : String(error);
    if (argv.includes('--json')) process.stdout.write(`${JSON.stringify({ error: { code, message } }, null, 2)}\n`);
    else process.stderr.write(`svc: ${message} [${code}]\n`);
    // A refused approval or pass is an answer ("the action was refused"), not a usage error.
    process.exitCode = /^(approval|actionpass)_/.test(code) ? EXIT_CHECK_FAILED : EXIT_USAGE;
  }
}

// A reader that stops early (`svc replay | head`) is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

await main(process.argv);

import { SvcError } from '../errors.js';
import { EXIT_CHECK_FAILED, EXIT_USAGE } from './context.js';
import { writeStderr, writeStdout } from './output.js';

/**
 * What a command threw, told once: one clear line on stderr (or a JSON error body on stdout with
 * --json) and its exit status, never a stack trace. Shared by main.js and the bundled hook entry,
 * which the `svc` executable runs without main.js.
 */
export function reportFailure(error: unknown, argv: readonly string[]): void {
  const code = error instanceof SvcError ? error.code : ((error as NodeJS.ErrnoException).code ?? 'internal_error').toLowerCase();
  const message = error instanceof Error ? error.message : String(error);
  if (argv.includes('--json')) writeStdout(`${JSON.stringify({ error: { code, message } }, null, 2)}\n`);
  else writeStderr(`svc: ${message} [${code}]\n`);
  // A refused approval or pass is an answer ("the action was refused"), not a usage error.
  process.exitCode = /^(approval|actionpass)_/.test(code) ? EXIT_CHECK_FAILED : EXIT_USAGE;
}

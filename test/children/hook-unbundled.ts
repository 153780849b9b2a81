/**
 * `svc hook` through the modules tsc emitted (dist/src/cli/hook-entry.js) rather than the bundle
 * that dist/src/cli/main.js loads, so test/cli/hook-bundle.test.ts can compare the two:
 *
 *   node dist/test/children/hook-unbundled.js <runtime> [--config <file>] [--json]
 */
import { parseHookArgs, runHookCommand } from '../../src/cli/hook-entry.js';

const parsed = parseHookArgs(process.argv.slice(2));
if (parsed === undefined) throw new Error(`not hook arguments: ${process.argv.slice(2).join(' ')}`);
await runHookCommand(parsed.runtime, parsed.options);

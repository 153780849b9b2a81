import type { Command } from 'commander';
import { SvcError } from '../../errors.js';
import { HOOK_RUNTIMES } from '../../hooks/hook-event.js';

export const DEFAULT_HOOK_TIMEOUT_MS = 10_000;

export interface HookCommandOptions {
  config?: string;
  timeoutMs: number;
  json?: boolean;
}

/**
 * Registered for `svc --help` and `svc hook --help`; a real hook invocation takes the fast path
 * in main.ts (`runHookCommand` without commander), since it runs before every tool call.
 */
export function registerHook(program: Command): void {
  program
    .command('hook')
    .description("decide a coding agent's tool call or prompt (stdin/stdout in the runtime's own hook protocol)")
    .argument('<runtime>', `one of ${HOOK_RUNTIMES.join(', ')}`)
    .option('--config <file>', 'svc.yml to use (default: the nearest svc.yml from the call\'s cwd upward)')
    .option('--timeout-ms <ms>', 'deny if no decision is reached within this time', String(DEFAULT_HOOK_TIMEOUT_MS))
    .option('--json', 'print the full evaluation (every action, its decision, payload hash and ledger record) instead of the runtime answer; for debugging')
    .addHelpText('after', `
Reads one hook event from stdin, turns it into actions (a shell command is one action plus one
per file operation it performs; a Read, Write or Edit is one file action; an MCP call is one
action), decides each with the policy and protected paths of svc.yml, records each in the
ledger, and answers in the runtime's protocol: allow, deny or ask with a reason written for the
model, or nothing at all when svc has no opinion. When a proxy runs for the workspace the
actions are decided by it; otherwise svc decides locally on the same ledger.

Anything that goes wrong (unreadable input, no svc.yml, an unwritable ledger, the timeout) is a
deny with the reason, never an allow.

Set up with \`svc init\` (Claude Code) or \`svc init --runtime <runtime>\`; see docs/hooks.md.

Examples:
  echo '{"session_id":"s1","cwd":"'$PWD'","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cat .env"}}' | svc hook claude-code
  svc hook claude-code --json < event.json`)
    .action(async (runtime: string, options: { config?: string; timeoutMs: string; json?: boolean }) => {
      const { runHookCommand } = await import('../hook-entry.js');
      await runHookCommand(runtime, { ...(options.config !== undefined && { config: options.config }), timeoutMs: parseTimeout(options.timeoutMs), ...(options.json && { json: true }) });
    });
}

export function parseTimeout(value: string): number {
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 1 || ms > 600_000) {
    throw new SvcError('usage_invalid', `--timeout-ms must be a whole number of milliseconds between 1 and 600000, not ${value}`);
  }
  return ms;
}

import { isAbsolute, join } from 'node:path';
import * as z from 'zod';
import type { HookEvent, HookOutput, HookVerdict, RuntimeProtocol, ToolCall } from '../hook-event.js';
import {
  SILENT,
  absoluteDirectory,
  blockingExit,
  effectiveDecision,
  failureReason,
  invalidInput,
  jsonOut,
  parseWith,
  readJsonObject,
  toolPath,
  withCalls,
} from './hook-input.js';
import { claudeStyleToolCalls } from './claude-style-tools.js';

/**
 * OpenAI Codex CLI's command hooks (`.codex/hooks.json`), registered for `PreToolUse` and
 * `UserPromptSubmit`.
 *
 * In: `session_id`, `turn_id`, `transcript_path` (string or null), `cwd`, `model`,
 * `permission_mode`, `hook_event_name`, and for PreToolUse `tool_name`, `tool_use_id` and
 * `tool_input`. Codex emits PreToolUse for three kinds of tool: shell commands as `Bash` with
 * `{command}`, file edits as `apply_patch` with the raw patch in `{command}`, and MCP tools as
 * `mcp__<server>__<tool>` with their arguments. No read, search or fetch tool of Codex fires it.
 *
 * Out: Codex honours only a deny: `hookSpecificOutput.permissionDecision: "deny"` with a
 * non-empty reason. It rejects `ask`, and `allow` without a rewritten input, as unsupported hook
 * output (and then runs the tool), so allow and no opinion print nothing and ask is a deny. A
 * prompt is refused with `{"decision":"block","reason"}`. Unreadable input exits 2 with the
 * reason on stderr, which blocks both events.
 */
const RUNTIME = 'codex';

// Built on first use (z.lazy): a hook process serves one runtime and builds only that one's schemas.
const inputSchema = z.lazy(() => {
  const common = {
    session_id: z.string(),
    cwd: z.string(),
    turn_id: z.string().optional(),
    model: z.string().optional(),
    permission_mode: z.string().optional(),
    transcript_path: z.string().nullable().optional(),
  };
  return z.discriminatedUnion('hook_event_name', [
    z.object({ ...common, hook_event_name: z.literal('PreToolUse'), tool_name: z.string().min(1), tool_use_id: z.string().optional(), tool_input: z.record(z.string(), z.unknown()) }),
    z.object({ ...common, hook_event_name: z.literal('UserPromptSubmit'), prompt: z.string() }),
  ]);
});

const commandInput = z.lazy(() => z.object({ command: z.string() }));

export const codexProtocol: RuntimeProtocol = {
  runtime: RUNTIME,
  supports: { ask: false, prompt: true },

  parseInput(raw: string): HookEvent {
    const input = parseWith(inputSchema, readJsonObject(raw, RUNTIME), RUNTIME);
    const base = { runtime: RUNTIME, sessionId: input.session_id, cwd: absoluteDirectory(RUNTIME, 'cwd', input.cwd) } as const;
    if (input.hook_event_name === 'UserPromptSubmit') return { event: 'prompt', ...base, prompt: input.prompt };
    return { event: 'tool', ...base, toolName: input.tool_name, ...toolCalls(input.tool_name, input.tool_input) };
  },

  formatVerdict(verdict: HookVerdict, event: HookEvent | undefined): HookOutput {
    if (event === undefined) return blockingExit(failureReason(verdict));
    const effective = effectiveDecision(verdict, false);
    if (effective === undefined || effective.decision === 'allow') return SILENT;
    if (event.event === 'prompt') return jsonOut({ decision: 'block', reason: effective.reason });
    return jsonOut({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: effective.reason } });
  },
};

const bashInput = z.lazy(() => z.object({ command: z.string(), workdir: z.string().nullable().optional(), cwd: z.string().nullable().optional() }));

function toolCalls(name: string, input: Record<string, unknown>): { call: ToolCall; additionalCalls?: ToolCall[] } {
  if (name === 'Bash') {
    const bash = parseWith(bashInput, input, RUNTIME, 'tool_input');
    // Codex's exec_command runs in its `workdir` argument, but Codex sends only `{command}` to
    // the hook: a workdir is used when a release (or fork) sends one, else the event's cwd.
    const workdir = bash.workdir ?? bash.cwd ?? undefined;
    const runIn = workdir === undefined || workdir === '' ? {} : { cwd: toolPath(RUNTIME, bash.workdir ? 'tool_input.workdir' : 'tool_input.cwd', workdir) };
    // exec_command runs in a terminal that write_stdin types into, and no hook sees write_stdin.
    const shell: ToolCall = { kind: 'shell', command: bash.command, ...runIn, terminal: 'session' };
    // Codex intercepts `apply_patch <<'EOF' … EOF` run as a command and applies the patch itself:
    // the files in its headers are written, though no program of the command line names them.
    const patched = bash.command.includes('*** Begin Patch') ? patchedFiles(bash.command).map((file): ToolCall => ({ kind: 'write', path: runIn.cwd === undefined || isAbsolute(file) ? file : join(runIn.cwd, file), input })) : [];
    return withCalls(shell, patched);
  }
  if (name === 'apply_patch' || name === 'ApplyPatch') {
    // The patch is `command` in Codex's payload; `patch` and `input` are the names other
    // apply_patch-style tools give it.
    const command = [input.command, input.patch, input.input].find((value): value is string => typeof value === 'string') ?? parseWith(commandInput, input, RUNTIME, 'tool_input').command;
    const [first, ...rest] = patchedFiles(command).map((file): ToolCall => ({ kind: 'write', path: file, input }));
    if (first === undefined) throw invalidInput(RUNTIME, 'tool_input.command names no file (expected "*** Add File:", "*** Update File:" or "*** Delete File:" lines)');
    return withCalls(first, rest);
  }
  // Codex's own file tools (`Read`, `Edit`, `Write`, ...) take Claude Code's names and arguments; `mcp__*` tools too.
  return claudeStyleToolCalls(RUNTIME, name, input);
}

const PATCH_FILE_LINE = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.*)$/;

/**
 * Every file an apply_patch body creates, changes, deletes or moves to, in order, once each.
 * Paths are as written (relative ones are relative to cwd).
 */
export function patchedFiles(patch: string): string[] {
  const files: string[] = [];
  for (const line of patch.split('\n')) {
    const match = PATCH_FILE_LINE.exec(line.replace(/\r$/, ''));
    const file = match?.[1]?.trim();
    if (file === undefined || file === '') continue;
    const checked = toolPath(RUNTIME, 'tool_input.command', file);
    if (!files.includes(checked)) files.push(checked);
  }
  return files;
}

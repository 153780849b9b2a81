import * as z from 'zod';
import type { HookEvent, HookOutput, HookVerdict, RuntimeProtocol, ToolCall } from '../hook-event.js';
import {
  SILENT,
  absoluteDirectory,
  blockingExit,
  effectiveDecision,
  failureReason,
  isPlainObject,
  jsonOut,
  parseWith,
  readJsonObject,
} from './hook-input.js';
import { claudeStyleToolCalls } from './claude-style-tools.js';

/**
 * Claude Code's command hooks, registered for `PreToolUse` (every tool) and `UserPromptSubmit`.
 *
 * In: one JSON object on stdin with `session_id`, `transcript_path`, `cwd`, `permission_mode`,
 * `hook_event_name` and, for PreToolUse, `tool_name` + `tool_input` (the tool's own arguments;
 * MCP tools are `mcp__<server>__<tool>` with their arguments as `tool_input`), for
 * UserPromptSubmit, `prompt`.
 *
 * Out: PreToolUse answers with exit 0 and `hookSpecificOutput.permissionDecision` allow, deny or
 * ask (the reason goes to Claude on deny, to the person on ask); a prompt is refused with
 * `{"decision":"block","reason"}`, which keeps it from the model. No opinion prints nothing.
 * Input that cannot be read exits 2 with the reason on stderr, which blocks either event.
 */
const RUNTIME = 'claude-code';

const common = {
  session_id: z.string(),
  cwd: z.string(),
  transcript_path: z.string().optional(),
  permission_mode: z.string().optional(),
};

export const claudeCodeInputSchema = z.discriminatedUnion('hook_event_name', [
  z.object({ ...common, hook_event_name: z.literal('PreToolUse'), tool_name: z.string().min(1), tool_input: z.record(z.string(), z.unknown()) }),
  z.object({ ...common, hook_event_name: z.literal('UserPromptSubmit'), prompt: z.string() }),
]);

export const claudeCodeProtocol: RuntimeProtocol = {
  runtime: RUNTIME,
  supports: { ask: true, prompt: true },

  parseInput(raw: string): HookEvent {
    const input = readInput(readJsonObject(raw, RUNTIME));
    const base = { runtime: RUNTIME, sessionId: input.session_id, cwd: absoluteDirectory(RUNTIME, 'cwd', input.cwd) } as const;
    if (input.hook_event_name === 'UserPromptSubmit') return { event: 'prompt', ...base, prompt: input.prompt };
    return { event: 'tool', ...base, toolName: input.tool_name, ...toolCalls(input.tool_name, input.tool_input) };
  },

  formatVerdict(verdict: HookVerdict, event: HookEvent | undefined): HookOutput {
    if (event === undefined) return blockingExit(failureReason(verdict));
    const effective = effectiveDecision(verdict, event.event === 'tool');
    if (effective === undefined) return SILENT;
    if (event.event === 'prompt') {
      return effective.decision === 'allow' ? SILENT : jsonOut({ decision: 'block', reason: effective.reason });
    }
    return jsonOut({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: effective.decision, permissionDecisionReason: effective.reason },
    });
  },
};

/**
 * The event as the schema reads it. A hook process reads one event and exits, so a well-formed
 * one is checked by hand, without building and running the schema cold; anything else goes
 * through the schema, for its error (test/hooks/runtimes/claude-code-input.test.ts holds the two
 * to the same answers).
 */
export function readInput(value: Record<string, unknown>): z.output<typeof claudeCodeInputSchema> {
  const { session_id, cwd, transcript_path, permission_mode, hook_event_name } = value;
  if (typeof session_id === 'string' && typeof cwd === 'string' && optionalString(transcript_path) && optionalString(permission_mode)) {
    const common = { session_id, cwd, ...(transcript_path !== undefined && { transcript_path }), ...(permission_mode !== undefined && { permission_mode }) };
    const { tool_name, tool_input, prompt } = value;
    if (hook_event_name === 'PreToolUse' && typeof tool_name === 'string' && tool_name !== '' && isPlainObject(tool_input)) return { ...common, hook_event_name, tool_name, tool_input };
    if (hook_event_name === 'UserPromptSubmit' && typeof prompt === 'string') return { ...common, hook_event_name, prompt };
  }
  return parseWith(claudeCodeInputSchema, value, RUNTIME);
}

function optionalString(value: unknown): value is string | undefined {
  return value === undefined || typeof value === 'string';
}

function toolCalls(name: string, input: Record<string, unknown>): { call: ToolCall; additionalCalls?: ToolCall[] } {
  if (name === 'Bash') {
    const command = typeof input.command === 'string' ? input.command : parseWith(z.object({ command: z.string() }), input, RUNTIME, 'tool_input').command;
    return { call: { kind: 'shell', command } };
  }
  return claudeStyleToolCalls(RUNTIME, name, input);
}

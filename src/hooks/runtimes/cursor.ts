import * as z from 'zod';
import type { HookEvent, HookOutput, HookVerdict, RuntimeProtocol, ToolCall } from '../hook-event.js';
import {
  absoluteDirectory,
  effectiveDecision,
  failureReason,
  invalidInput,
  isPlainObject,
  jsonOut,
  parseWith,
  readJsonObject,
  toolPath,
} from './hook-input.js';
import { mcpCalls } from './mcp-calls.js';

/**
 * Cursor's agent hooks (`.cursor/hooks.json`). Each event has its own payload; all carry
 * `conversation_id`, `generation_id`, `hook_event_name` and `workspace_roots`:
 *
 * - `beforeShellExecution` `{command, cwd}` → shell
 * - `beforeMCPExecution` `{tool_name, tool_input, url | command, ...}` → mcp (the server is named
 *   by whichever of `mcp_server_name`, `server_name`, `url`, `command` is present)
 * - `beforeReadFile` `{file_path, content, attachments}` → read
 * - `beforeSubmitPrompt` `{prompt, attachments}` → prompt
 * - `preToolUse` `{tool_name, tool_input, tool_use_id, cwd}` → the edits (Write, Edit,
 *   StrReplace, MultiEdit, Delete, notebook edits), Grep, Glob, directory listing and WebFetch.
 *   Its Shell, Read and `MCP:` tools map to `other`: the dedicated events above decide those
 *   with a richer payload, and one decision per action keeps one approval per action.
 *
 * Out (always JSON on stdout, exit 0): permission events answer `{"permission":"allow"}` or
 * `{"permission":"deny","user_message","agent_message"}`; a prompt answers `{"continue":true}`
 * or `{"continue":false,"user_message"}`; no opinion is `{}`. Cursor does not honour a hook's
 * `ask` (nor reliably its `allow` against its own allow-list), so ask is a deny. Unreadable
 * input answers a deny valid for every event and exits 2, which Cursor also treats as a block.
 */
const RUNTIME = 'cursor';

// Built on first use (z.lazy): a hook process serves one runtime and builds only that one's schemas.
const inputSchema = z.lazy(() => {
  const common = {
    conversation_id: z.string(),
    generation_id: z.string().optional(),
    workspace_roots: z.array(z.string()).optional(),
    cwd: z.string().optional(),
  };
  /** Cursor has sent `tool_input` both as an object and as a JSON-encoded string. */
  const toolInput = z.union([z.record(z.string(), z.unknown()), z.string()]);
  return z.discriminatedUnion('hook_event_name', [
    z.object({ ...common, hook_event_name: z.literal('beforeShellExecution'), command: z.string() }),
    z.object({
      ...common,
      hook_event_name: z.literal('beforeMCPExecution'),
      tool_name: z.string().min(1),
      tool_input: toolInput.optional(),
      mcp_server_name: z.string().optional(),
      server_name: z.string().optional(),
      url: z.string().optional(),
      command: z.string().optional(),
    }),
    z.object({ ...common, hook_event_name: z.literal('beforeReadFile'), file_path: z.string() }),
    z.object({ ...common, hook_event_name: z.literal('beforeSubmitPrompt'), prompt: z.string() }),
    z.object({ ...common, hook_event_name: z.literal('preToolUse'), tool_name: z.string().min(1), tool_input: toolInput }),
  ]);
});

type CursorInput = z.output<typeof inputSchema>;

export const cursorProtocol: RuntimeProtocol = {
  runtime: RUNTIME,
  supports: { ask: false, prompt: true },

  parseInput(raw: string): HookEvent {
    const input = parseWith(inputSchema, readJsonObject(raw, RUNTIME), RUNTIME);
    const base = { runtime: RUNTIME, sessionId: input.conversation_id, cwd: cwdOf(input) } as const;
    switch (input.hook_event_name) {
      case 'beforeSubmitPrompt':
        return { event: 'prompt', ...base, prompt: input.prompt };
      case 'beforeShellExecution':
        return { event: 'tool', ...base, toolName: 'Shell', call: { kind: 'shell', command: input.command } };
      case 'beforeReadFile':
        return { event: 'tool', ...base, toolName: 'Read', call: { kind: 'read', path: toolPath(RUNTIME, 'file_path', input.file_path) } };
      case 'beforeMCPExecution': {
        const server = input.mcp_server_name ?? input.server_name ?? input.url ?? input.command;
        if (server === undefined || server === '') throw invalidInput(RUNTIME, 'beforeMCPExecution names no server (none of mcp_server_name, server_name, url, command)');
        const args = input.tool_input === undefined ? {} : objectInput(input.tool_input);
        return { event: 'tool', ...base, toolName: input.tool_name, ...mcpCalls(server, input.tool_name, args) };
      }
      case 'preToolUse':
        return { event: 'tool', ...base, toolName: input.tool_name, call: preToolCall(input.tool_name, objectInput(input.tool_input)) };
    }
  },

  formatVerdict(verdict: HookVerdict, event: HookEvent | undefined): HookOutput {
    if (event === undefined) {
      const reason = failureReason(verdict);
      return jsonOut({ continue: false, permission: 'deny', user_message: reason, agent_message: reason }, 2, `${reason}\n`);
    }
    const effective = effectiveDecision(verdict, false);
    if (effective === undefined) return jsonOut({});
    if (event.event === 'prompt') {
      return effective.decision === 'allow' ? jsonOut({ continue: true }) : jsonOut({ continue: false, user_message: effective.reason });
    }
    if (effective.decision === 'allow') return jsonOut({ permission: 'allow' });
    return jsonOut({ permission: 'deny', user_message: effective.reason, agent_message: effective.reason });
  },
};

/** `cwd` when the event has one (shell, preToolUse), else the first workspace root. */
function cwdOf(input: CursorInput): string {
  if (input.cwd !== undefined && input.cwd !== '') return absoluteDirectory(RUNTIME, 'cwd', input.cwd);
  const root = input.workspace_roots?.[0];
  if (root === undefined || root === '') throw invalidInput(RUNTIME, 'cwd is missing and workspace_roots is empty');
  return absoluteDirectory(RUNTIME, 'workspace_roots.0', root);
}

function objectInput(value: Record<string, unknown> | string): Record<string, unknown> {
  if (typeof value !== 'string') return value;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw invalidInput(RUNTIME, 'tool_input is a string but not JSON');
  }
  if (!isPlainObject(parsed)) throw invalidInput(RUNTIME, 'tool_input must be a JSON object');
  return parsed;
}

const WRITE_TOOLS = new Set(['Write', 'Edit', 'StrReplace', 'MultiEdit', 'Delete', 'EditNotebook', 'NotebookEdit']);
const LIST_TOOLS = new Set(['LS', 'ListDir']);

function preToolCall(name: string, input: Record<string, unknown>): ToolCall {
  if (WRITE_TOOLS.has(name)) return { kind: 'write', path: firstPath(input, ['file_path', 'path', 'target_file', 'target_notebook', 'notebook_path']), input };
  if (name === 'Grep') {
    const { pattern } = parseWith(z.object({ pattern: z.string() }), input, RUNTIME, 'tool_input');
    const glob = optionalString(input, ['glob', 'include']);
    return { kind: 'search', pattern, contents: true, ...optionalPathOf(input, ['path', 'target_directory']), ...(glob !== undefined && { glob }) };
  }
  if (name === 'Glob') {
    const pattern = optionalString(input, ['glob_pattern', 'pattern']);
    if (pattern === undefined) throw invalidInput(RUNTIME, 'tool_input.glob_pattern is missing');
    return { kind: 'search', pattern, contents: false, ...optionalPathOf(input, ['target_directory', 'path']) };
  }
  if (LIST_TOOLS.has(name)) return { kind: 'search', pattern: '*', contents: false, ...optionalPathOf(input, ['target_directory', 'path']) };
  if (name === 'WebFetch') {
    const { url } = parseWith(z.object({ url: z.string().min(1) }), input, RUNTIME, 'tool_input');
    return { kind: 'fetch', url };
  }
  return { kind: 'other', name };
}

/** The first of `keys` present; a write or read without any is refused rather than guessed. */
function firstPath(input: Record<string, unknown>, keys: readonly string[]): string {
  const key = keys.find((candidate) => input[candidate] !== undefined) ?? keys[0] ?? 'file_path';
  return toolPath(RUNTIME, `tool_input.${key}`, input[key]);
}

function optionalPathOf(input: Record<string, unknown>, keys: readonly string[]): { path?: string } {
  const key = keys.find((candidate) => input[candidate] !== undefined && input[candidate] !== '');
  return key === undefined ? {} : { path: toolPath(RUNTIME, `tool_input.${key}`, input[key]) };
}

function optionalString(input: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = input[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw invalidInput(RUNTIME, `tool_input.${key} must be a string`);
    return value;
  }
  return undefined;
}

import * as z from 'zod';
import type { HookEvent, HookOutput, HookVerdict, RuntimeProtocol, ToolCall } from '../hook-event.js';
import {
  SILENT,
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

/**
 * GitHub Copilot's command hooks (coding agent and Copilot CLI, `.github/hooks/*.json`),
 * registered for `preToolUse`.
 *
 * In (the camelCase payload): `timestamp`, `cwd`, `toolName`, `toolArgs` (a JSON-encoded string,
 * or an object on newer CLI releases) and, on newer releases, `sessionId`. Tools: `bash` and
 * `powershell {command}`, `view {path}`, `create {path, file_text}`, `edit {path, old_str,
 * new_str}`, the older `str_replace_editor {command, path, ...}`, `glob {pattern, path}`,
 * `grep {pattern, path, glob}`, `web_fetch {url}`; anything else (task, ask_user, MCP tools,
 * whose names do not say which server they belong to) is `other`. A `userPromptSubmitted`
 * payload (`prompt`) is read, but Copilot ignores that hook's output: a prompt cannot be refused.
 *
 * Out: exit 0 with `{"permissionDecision":"allow"}` or `{"permissionDecision":"deny",
 * "permissionDecisionReason"}`. Only deny is documented as enforced everywhere (the coding agent
 * processes nothing else), so ask is a deny. No opinion prints nothing. Copilot logs and skips
 * a hook that exits non-zero, so unreadable input is also answered with the deny JSON and exit 0.
 */
const RUNTIME = 'copilot';

// Built on first use (z.lazy): a hook process serves one runtime and builds only that one's schemas.
const commonFields = () => ({
  sessionId: z.string().optional(),
  timestamp: z.union([z.number(), z.string()]).optional(),
  cwd: z.string(),
});

const toolSchema = z.lazy(() => z.object({ ...commonFields(), toolName: z.string().min(1), toolArgs: z.union([z.string(), z.record(z.string(), z.unknown())]) }));
const promptSchema = z.lazy(() => z.object({ ...commonFields(), prompt: z.string() }));

export const copilotProtocol: RuntimeProtocol = {
  runtime: RUNTIME,
  supports: { ask: false, prompt: false },

  parseInput(raw: string): HookEvent {
    const object = readJsonObject(raw, RUNTIME);
    if (object.toolName === undefined && object.prompt !== undefined) {
      const input = parseWith(promptSchema, object, RUNTIME);
      return { event: 'prompt', runtime: RUNTIME, sessionId: input.sessionId ?? '', cwd: absoluteDirectory(RUNTIME, 'cwd', input.cwd), prompt: input.prompt };
    }
    const input = parseWith(toolSchema, object, RUNTIME);
    const cwd = absoluteDirectory(RUNTIME, 'cwd', input.cwd);
    return { event: 'tool', runtime: RUNTIME, sessionId: input.sessionId ?? '', cwd, toolName: input.toolName, call: toolCall(input.toolName, toolArgs(input.toolArgs)) };
  },

  formatVerdict(verdict: HookVerdict, event: HookEvent | undefined): HookOutput {
    if (event === undefined) {
      const reason = failureReason(verdict);
      return jsonOut({ permissionDecision: 'deny', permissionDecisionReason: reason }, 0, `${reason}\n`);
    }
    const effective = effectiveDecision(verdict, false);
    if (effective === undefined || event.event === 'prompt') return SILENT;
    if (effective.decision === 'allow') return jsonOut({ permissionDecision: 'allow' });
    return jsonOut({ permissionDecision: 'deny', permissionDecisionReason: effective.reason });
  },
};

function toolArgs(value: string | Record<string, unknown>): Record<string, unknown> {
  if (typeof value !== 'string') return value;
  let parsed: unknown;
  try {
    parsed = value.trim() === '' ? {} : JSON.parse(value);
  } catch {
    throw invalidInput(RUNTIME, 'toolArgs is a string but not JSON');
  }
  if (!isPlainObject(parsed)) throw invalidInput(RUNTIME, 'toolArgs must encode a JSON object');
  return parsed;
}

function toolCall(name: string, args: Record<string, unknown>): ToolCall {
  switch (name) {
    case 'bash':
      // Every bash session can be typed into later with write_bash, whatever its mode: an async
      // command, and a sync one still running when its wait ends, stay in the session.
      return { kind: 'shell', command: parseWith(z.object({ command: z.string() }), args, RUNTIME, 'toolArgs').command, terminal: 'session' };
    case 'write_bash':
      // The text goes to whatever reads the session's terminal: the bash session itself once its
      // command is done, or the program still running in it.
      return { kind: 'shell', command: parseWith(z.object({ input: z.string() }), args, RUNTIME, 'toolArgs').input, terminal: 'input' };
    case 'powershell':
      return { kind: 'shell', command: parseWith(z.object({ command: z.string() }), args, RUNTIME, 'toolArgs').command, dialect: 'powershell' };
    case 'view':
      return { kind: 'read', path: toolPath(RUNTIME, 'toolArgs.path', args.path) };
    case 'create':
    case 'edit':
      return { kind: 'write', path: toolPath(RUNTIME, 'toolArgs.path', args.path), input: args };
    case 'str_replace_editor': {
      const { command } = parseWith(z.object({ command: z.string() }), args, RUNTIME, 'toolArgs');
      const path = toolPath(RUNTIME, 'toolArgs.path', args.path);
      return command === 'view' ? { kind: 'read', path } : { kind: 'write', path, input: args };
    }
    case 'glob': {
      const glob = parseWith(z.object({ pattern: z.string(), path: z.string().optional() }), args, RUNTIME, 'toolArgs');
      return { kind: 'search', pattern: glob.pattern, contents: false, ...optionalPath(glob.path) };
    }
    case 'grep': {
      const grep = parseWith(z.object({ pattern: z.string(), path: z.string().optional(), glob: z.string().optional() }), args, RUNTIME, 'toolArgs');
      return { kind: 'search', pattern: grep.pattern, contents: true, ...optionalPath(grep.path), ...(grep.glob !== undefined && grep.glob !== '' && { glob: grep.glob }) };
    }
    case 'web_fetch':
      return { kind: 'fetch', url: parseWith(z.object({ url: z.string().min(1) }), args, RUNTIME, 'toolArgs').url };
    default:
      return { kind: 'other', name };
  }
}

function optionalPath(value: string | undefined): { path?: string } {
  return value === undefined || value === '' ? {} : { path: toolPath(RUNTIME, 'toolArgs.path', value) };
}

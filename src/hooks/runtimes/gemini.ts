import path from 'node:path';
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
  mcpName,
  parseWith,
  readJsonObject,
  toolPath,
  withCalls,
} from './hook-input.js';
import { mcpCalls } from './mcp-calls.js';

/**
 * Gemini CLI's command hooks (`.gemini/settings.json`), registered for `BeforeTool` (every tool)
 * and `BeforeAgent` (the user's prompt).
 *
 * In: `session_id`, `transcript_path`, `cwd`, `hook_event_name`, `timestamp`, and for BeforeTool
 * `tool_name` + `tool_input` (plus `mcp_context.server_name` / `.tool_name` for MCP tools, which
 * are named `mcp__<server>__<tool>`), for BeforeAgent `prompt`. Built-in tools:
 * `run_shell_command {command, dir_path}`, `read_file {file_path}`, `read_many_files {paths,
 * include}`, `write_file {file_path, content}`, `replace {file_path, old_string, new_string}`,
 * `glob {pattern, dir_path}`, `search_file_content` / `grep_search {pattern, dir_path, include}`,
 * `list_directory {dir_path}`, `web_fetch {prompt}` (the URLs are inside the prompt text). Older
 * releases spell `dir_path` `path` or `directory` and `file_path` `absolute_path`; both are read.
 *
 * Out: exit 0 with `{"decision":"allow"}` or `{"decision":"deny","reason"}` (the reason goes to
 * the model as the tool's error, or, for a prompt, the turn is dropped). Gemini CLI has no
 * `ask`: it is a deny. No opinion prints nothing. Unreadable input exits 2 with the reason on
 * stderr, which blocks the tool call or the turn.
 */
const RUNTIME = 'gemini';

// Built on first use (z.lazy): a hook process serves one runtime and builds only that one's schemas.
const inputSchema = z.lazy(() => {
  const common = {
    session_id: z.string(),
    cwd: z.string(),
    transcript_path: z.string().optional(),
    timestamp: z.string().optional(),
  };
  const mcpContext = z.object({ server_name: z.string().min(1), tool_name: z.string().min(1) });
  return z.discriminatedUnion('hook_event_name', [
    z.object({ ...common, hook_event_name: z.literal('BeforeTool'), tool_name: z.string().min(1), tool_input: z.record(z.string(), z.unknown()), mcp_context: mcpContext.optional() }),
    z.object({ ...common, hook_event_name: z.literal('BeforeAgent'), prompt: z.string() }),
  ]);
});

type Calls = { call: ToolCall; additionalCalls?: ToolCall[] };

export const geminiProtocol: RuntimeProtocol = {
  runtime: RUNTIME,
  supports: { ask: false, prompt: true },

  parseInput(raw: string): HookEvent {
    const input = parseWith(inputSchema, readJsonObject(raw, RUNTIME), RUNTIME);
    const cwd = absoluteDirectory(RUNTIME, 'cwd', input.cwd);
    const base = { runtime: RUNTIME, sessionId: input.session_id } as const;
    if (input.hook_event_name === 'BeforeAgent') return { event: 'prompt', ...base, cwd, prompt: input.prompt };
    const { tool_name: name, tool_input: args } = input;
    if (name === 'run_shell_command') {
      const { command } = parseWith(z.object({ command: z.string() }), args, RUNTIME, 'tool_input');
      // The command runs in dir_path (relative to the project root) when it is given.
      const dir = optionalString(args, ['dir_path', 'directory']);
      const runIn = dir === undefined || dir === '' ? cwd : path.resolve(cwd, toolPath(RUNTIME, 'tool_input.dir_path', dir));
      return { event: 'tool', ...base, cwd: runIn, toolName: name, call: { kind: 'shell', command } };
    }
    if (input.mcp_context !== undefined) {
      return { event: 'tool', ...base, cwd, toolName: name, ...mcpCalls(input.mcp_context.server_name, input.mcp_context.tool_name, args) };
    }
    return { event: 'tool', ...base, cwd, toolName: name, ...toolCalls(name, args) };
  },

  formatVerdict(verdict: HookVerdict, event: HookEvent | undefined): HookOutput {
    if (event === undefined) return blockingExit(failureReason(verdict));
    const effective = effectiveDecision(verdict, false);
    if (effective === undefined) return SILENT;
    if (effective.decision === 'allow') return event.event === 'prompt' ? SILENT : jsonOut({ decision: 'allow' });
    return jsonOut({ decision: 'deny', reason: effective.reason });
  },
};

function toolCalls(name: string, args: Record<string, unknown>): Calls {
  switch (name) {
    case 'read_file':
      return { call: { kind: 'read', path: firstPath(args, ['file_path', 'absolute_path', 'path']) } };
    case 'write_file':
    case 'replace':
    case 'edit':
      return { call: { kind: 'write', path: firstPath(args, ['file_path', 'absolute_path', 'path']), input: args } };
    case 'read_many_files': {
      // Each path or glob is a read of its own: a file is that file, a directory everything under
      // it, a glob everything under its literal prefix (`src/**/*.ts` reads under src).
      const patterns = [...stringList(args, 'paths'), ...stringList(args, 'include')];
      const [first, ...rest] = patterns.map((pattern): ToolCall => ({ kind: 'search', pattern: '', contents: true, ...globRoot(pattern) }));
      if (first === undefined) throw invalidInput(RUNTIME, 'tool_input.paths is missing or empty');
      return withCalls(first, rest);
    }
    case 'glob': {
      const { pattern } = parseWith(z.object({ pattern: z.string() }), args, RUNTIME, 'tool_input');
      return { call: { kind: 'search', pattern, contents: false, ...optionalDir(args) } };
    }
    case 'search_file_content':
    case 'grep_search':
    case 'grep': {
      const { pattern } = parseWith(z.object({ pattern: z.string() }), args, RUNTIME, 'tool_input');
      const include = optionalString(args, ['include']);
      return { call: { kind: 'search', pattern, contents: true, ...optionalDir(args), ...(include !== undefined && include !== '' && { glob: include }) } };
    }
    case 'list_directory':
    case 'ls':
      return { call: { kind: 'search', pattern: '*', contents: false, ...optionalDir(args) } };
    case 'web_fetch': {
      const urls = fetchUrls(args);
      const [first, ...rest] = urls.map((url): ToolCall => ({ kind: 'fetch', url }));
      // Without a URL the tool fetches nothing (Gemini CLI refuses the call itself).
      if (first === undefined) return { call: { kind: 'other', name } };
      return withCalls(first, rest);
    }
    default: {
      const mcp = mcpName(name);
      if (mcp !== undefined) return mcpCalls(mcp.server, mcp.tool, args);
      return { call: { kind: 'other', name } };
    }
  }
}

/** A read_many_files entry as a search: its path, or for a glob the directory before the first wildcard and the glob itself. */
function globRoot(pattern: string): { path: string; glob?: string } {
  const wildcard = pattern.search(/[*?[{]/);
  if (wildcard < 0) return { path: pattern };
  const prefix = pattern.slice(0, pattern.lastIndexOf('/', wildcard) + 1);
  return { path: prefix === '' ? '.' : prefix, glob: pattern };
}

function firstPath(args: Record<string, unknown>, keys: readonly string[]): string {
  const key = keys.find((candidate) => args[candidate] !== undefined) ?? keys[0] ?? 'file_path';
  return toolPath(RUNTIME, `tool_input.${key}`, args[key]);
}

function optionalDir(args: Record<string, unknown>): { path?: string } {
  for (const key of ['dir_path', 'path', 'directory']) {
    const value = args[key];
    if (value === undefined || value === '') continue;
    return { path: toolPath(RUNTIME, `tool_input.${key}`, value) };
  }
  return {};
}

function optionalString(args: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = args[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw invalidInput(RUNTIME, `tool_input.${key} must be a string`);
    return value;
  }
  return undefined;
}

function stringList(args: Record<string, unknown>, key: string): string[] {
  const value = args[key];
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw invalidInput(RUNTIME, `tool_input.${key} must be an array of strings`);
  return value.map((item, index) => toolPath(RUNTIME, `tool_input.${key}.${index}`, item));
}

const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"'`]+/gi;

/** `url` when given, and every http(s) URL written in `prompt`, once each. */
export function fetchUrls(args: Record<string, unknown>): string[] {
  const urls: string[] = [];
  const add = (url: string) => {
    if (url !== '' && !urls.includes(url)) urls.push(url);
  };
  const url = optionalString(args, ['url']);
  if (url !== undefined) add(url);
  const prompt = optionalString(args, ['prompt']);
  for (const match of prompt?.matchAll(URL_IN_TEXT) ?? []) add(match[0].replace(/[.,;:!?)\]}]+$/, ''));
  return urls;
}

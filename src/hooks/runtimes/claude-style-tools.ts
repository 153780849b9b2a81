import * as z from 'zod';
import type { HookRuntime, ToolCall } from '../hook-event.js';
import { invalidInput, mcpName, parseWith, toolPath } from './hook-input.js';
import { mcpCalls } from './mcp-calls.js';

/** A tool call other than a shell: Claude Code's file tools, an `mcp__<server>__<tool>`, or anything else (no opinion). */
export function claudeStyleToolCalls(runtime: HookRuntime, name: string, input: Record<string, unknown>): { call: ToolCall; additionalCalls?: ToolCall[] } {
  const fileTool = claudeStyleToolCall(runtime, name, input);
  if (fileTool !== undefined) return { call: fileTool };
  const mcp = mcpName(name);
  if (mcp !== undefined) return mcpCalls(mcp.server, mcp.tool, input);
  if (name.startsWith('mcp__')) throw invalidInput(runtime, `tool_name ${JSON.stringify(name)} is not mcp__<server>__<tool>`);
  return { call: { kind: 'other', name } };
}

/**
 * The file, search and fetch tools named as Claude Code names them (`Read`, `Write`, `Edit`,
 * `MultiEdit`, `NotebookEdit`, `Grep`, `Glob`, `LS`, `WebFetch`), with Claude Code's argument
 * names. Claude Code sends them; Codex has tools of the same names and arguments (its `Read` and
 * `Edit` take `file_path`), so both read them here, each naming its own runtime in errors.
 * Undefined for any other name.
 */
export function claudeStyleToolCall(runtime: HookRuntime, name: string, input: Record<string, unknown>): ToolCall | undefined {
  const field = (key: string) => `tool_input.${key}`;
  switch (name) {
    case 'Read':
      return { kind: 'read', path: toolPath(runtime, field('file_path'), input.file_path) };
    case 'NotebookRead':
      return { kind: 'read', path: toolPath(runtime, field('notebook_path'), input.notebook_path) };
    case 'Write':
    case 'Edit':
    case 'MultiEdit':
      return { kind: 'write', path: toolPath(runtime, field('file_path'), input.file_path), input };
    case 'NotebookEdit':
      return { kind: 'write', path: toolPath(runtime, field('notebook_path'), input.notebook_path), input };
    case 'Grep': {
      const grep = parseWith(grepInput, input, runtime, 'tool_input');
      return { kind: 'search', pattern: grep.pattern, contents: true, ...optionalPath(runtime, grep.path), ...(grep.glob !== undefined && { glob: grep.glob }) };
    }
    case 'Glob': {
      const glob = parseWith(globInput, input, runtime, 'tool_input');
      return { kind: 'search', pattern: glob.pattern, contents: false, ...optionalPath(runtime, glob.path) };
    }
    case 'LS':
      return { kind: 'search', path: toolPath(runtime, field('path'), input.path), pattern: '*', contents: false };
    case 'WebFetch': {
      const { url } = parseWith(z.object({ url: z.string().min(1) }), input, runtime, 'tool_input');
      return { kind: 'fetch', url };
    }
    default:
      return undefined;
  }
}

const grepInput = z.object({ pattern: z.string(), path: z.string().optional(), glob: z.string().optional() });
const globInput = z.object({ pattern: z.string(), path: z.string().optional() });

/** An empty `path` searches the working directory, as an absent one does. */
function optionalPath(runtime: HookRuntime, value: string | undefined): { path?: string } {
  if (value === undefined || value === '') return {};
  return { path: toolPath(runtime, 'tool_input.path', value) };
}

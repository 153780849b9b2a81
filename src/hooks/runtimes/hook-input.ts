import path from 'node:path';
import type * as z from 'zod';
import { SvcError } from '../../errors.js';
import type { HookOutput, HookRuntime, HookVerdict, ToolCall } from '../hook-event.js';

/**
 * What every runtime protocol shares at the edge: the size cap, JSON decoding, zod issues turned
 * into one `hook_input_invalid` sentence naming the field, and the small output builders.
 */

/** Larger stdin is refused unread: no runtime sends a tool call this big except to smuggle one. */
export const MAX_HOOK_INPUT_BYTES = 4 * 1024 * 1024;

/** Used when a verdict carries no reason: some runtimes (Codex) ignore a deny without one. */
export const DEFAULT_DENY_REASON = 'svc refused this action.';

export const HOOK_INPUT_INVALID = 'hook_input_invalid';

export function invalidInput(runtime: HookRuntime, message: string): SvcError {
  return new SvcError(HOOK_INPUT_INVALID, `${runtime} hook input: ${message}`);
}

/**
 * Decodes stdin into a JSON object. Refuses, with `hook_input_invalid`, anything over the cap,
 * anything that is not a JSON object, and strings holding a lone UTF-16 surrogate (they cannot be
 * hashed canonically, so no decision about them could be recorded).
 */
export function readJsonObject(raw: unknown, runtime: HookRuntime): Record<string, unknown> {
  if (typeof raw !== 'string') throw invalidInput(runtime, 'expected text on stdin');
  // Cheap bound before the exact one: a UTF-16 unit is at most 3 UTF-8 bytes.
  if (raw.length > MAX_HOOK_INPUT_BYTES || Buffer.byteLength(raw, 'utf8') > MAX_HOOK_INPUT_BYTES) {
    throw invalidInput(runtime, `larger than ${MAX_HOOK_INPUT_BYTES} bytes`);
  }
  // Some runtimes on Windows prefix stdin with a byte order mark.
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  if (text.trim() === '') throw invalidInput(runtime, 'empty; expected a JSON object on stdin');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw invalidInput(runtime, `not JSON (${detail})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidInput(runtime, `expected a JSON object, got ${describe(value)}`);
  }
  const bad = findLoneSurrogate(value);
  if (bad !== undefined) throw invalidInput(runtime, `${bad || 'a key'} holds a lone UTF-16 surrogate`);
  return value as Record<string, unknown>;
}

/**
 * Parses `value` with `schema`; on failure throws `hook_input_invalid` naming the first field that
 * is missing or wrong, as a dotted path from `prefix` (e.g. `tool_input.file_path is missing`).
 */
export function parseWith<T extends z.ZodType>(schema: T, value: unknown, runtime: HookRuntime, prefix = ''): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue === undefined) throw invalidInput(runtime, `${prefix || 'input'} is invalid`);
  const segments = issue.path.map(String);
  const field = [prefix, ...segments].filter((part) => part !== '').join('.') || 'input';
  const actual = valueAt(value, issue.path);
  if (actual === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_union')) throw invalidInput(runtime, `${field} is missing`);
  const expected = issue.code === 'invalid_type' ? `must be ${EXPECTED[issue.expected] ?? issue.expected}` : issue.message.replace(/^Invalid discriminator value\. Expected /, 'must be ').replace(/^Invalid input: /, '');
  throw invalidInput(runtime, `${field} ${expected} (got ${describe(actual)})`);
}

const EXPECTED: Partial<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  array: 'an array',
  object: 'an object',
  record: 'an object',
};

/** The directory the runtime ran the agent in: absolute, without NUL. */
export function absoluteDirectory(runtime: HookRuntime, field: string, value: string): string {
  if (value.includes('\0')) throw invalidInput(runtime, `${field} contains a NUL byte`);
  if (!path.isAbsolute(value)) throw invalidInput(runtime, `${field} must be an absolute path (got ${JSON.stringify(truncate(value))})`);
  return value;
}

/** A file path a tool is about to touch: non-empty, without NUL. Relative paths are the engine's to resolve against cwd. */
export function toolPath(runtime: HookRuntime, field: string, value: unknown): string {
  if (typeof value !== 'string') throw invalidInput(runtime, `${field} ${value === undefined ? 'is missing' : `must be a string (got ${describe(value)})`}`);
  if (value === '') throw invalidInput(runtime, `${field} is empty`);
  if (value.includes('\0')) throw invalidInput(runtime, `${field} contains a NUL byte`);
  return value;
}

/** `mcp__<server>__<tool>` (Claude Code, Codex, Gemini): the server is up to the next `__`, the tool is the rest. */
export function mcpName(name: string): { server: string; tool: string } | undefined {
  if (!name.startsWith('mcp__')) return undefined;
  const rest = name.slice('mcp__'.length);
  const split = rest.indexOf('__');
  if (split <= 0 || split + 2 >= rest.length) return undefined;
  return { server: rest.slice(0, split), tool: rest.slice(split + 2) };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The targets of one tool call as the event's `call` and, when there are more, `additionalCalls`. */
export function withCalls(call: ToolCall, rest: readonly ToolCall[]): { call: ToolCall; additionalCalls?: ToolCall[] } {
  return rest.length === 0 ? { call } : { call, additionalCalls: [...rest] };
}

/** A verdict the runtime cannot express as `ask` becomes `deny`; no reason becomes the default one. */
export function effectiveDecision(verdict: HookVerdict, askSupported: boolean): { decision: 'allow' | 'deny' | 'ask'; reason: string } | undefined {
  if (verdict.decision === 'no_opinion') return undefined;
  const reason = verdict.reason.trim() === '' ? DEFAULT_DENY_REASON : verdict.reason;
  if (verdict.decision === 'ask' && !askSupported) return { decision: 'deny', reason };
  return { decision: verdict.decision, reason };
}

/** The reason to fail closed with when the input could not be parsed. */
export function failureReason(verdict: HookVerdict): string {
  return verdict.decision !== 'no_opinion' && verdict.reason.trim() !== '' ? verdict.reason : `${DEFAULT_DENY_REASON} Its hook input could not be read.`;
}

export const SILENT: HookOutput = Object.freeze({ stdout: '', stderr: '', exitCode: 0 });

export function jsonOut(value: unknown, exitCode = 0, stderr = ''): HookOutput {
  return { stdout: `${JSON.stringify(value)}\n`, stderr, exitCode };
}

/** Exit 2 with the reason on stderr: the blocking exit code of Claude Code, Codex and Gemini CLI. */
export function blockingExit(reason: string): HookOutput {
  return { stdout: '', stderr: `${reason}\n`, exitCode: 2 };
}

function valueAt(value: unknown, at: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of at) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `a string ${JSON.stringify(truncate(value))}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

function truncate(text: string): string {
  return text.length <= 80 ? text : `${text.slice(0, 77)}...`;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The dotted path of the first string or key with a lone surrogate (`''` for a top-level key), or undefined. Iterative: input depth is not trusted. */
function findLoneSurrogate(root: unknown): string | undefined {
  const stack: { value: unknown; at: string }[] = [{ value: root, at: '' }];
  while (stack.length > 0) {
    const { value, at } = stack.pop() as { value: unknown; at: string };
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value)) return at;
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => stack.push({ value: item, at: `${at}[${index}]` }));
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        if (LONE_SURROGATE.test(key)) return at;
        stack.push({ value: item, at: at === '' ? key : `${at}.${key}` });
      }
    }
  }
  return undefined;
}

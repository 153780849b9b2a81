import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SvcError } from '../../../src/errors.js';
import { HOOK_RUNTIMES, type HookEvent, type RuntimeProtocol } from '../../../src/hooks/hook-event.js';
import { MAX_HOOK_INPUT_BYTES, isHookRuntime, runtimeProtocol } from '../../../src/hooks/runtimes/index.js';
import { ALLOW, ASK, DENY, NO_OPINION, expectInvalid, invalid } from './support.js';

/** One valid tool-call payload per runtime: the base the hostile variants are made from. */
const VALID: Record<(typeof HOOK_RUNTIMES)[number], Record<string, unknown>> = {
  'claude-code': { session_id: 's', transcript_path: '/t.jsonl', cwd: '/w', permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: '/w/a' } },
  codex: { session_id: 's', turn_id: '1', transcript_path: null, cwd: '/w', hook_event_name: 'PreToolUse', model: 'm', permission_mode: 'default', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'c' },
  cursor: { conversation_id: 'c', generation_id: 'g', workspace_roots: ['/w'], hook_event_name: 'beforeShellExecution', command: 'ls', cwd: '/w' },
  gemini: { session_id: 's', transcript_path: '/t.json', cwd: '/w', hook_event_name: 'BeforeTool', timestamp: '2026-11-21T00:00:00Z', tool_name: 'read_file', tool_input: { file_path: '/w/a' } },
  copilot: { timestamp: 1, cwd: '/w', toolName: 'view', toolArgs: '{"path":"/w/a"}' },
};

/** The field that carries the working directory in each runtime's payload. */
const CWD_FIELD: Record<(typeof HOOK_RUNTIMES)[number], string> = { 'claude-code': 'cwd', codex: 'cwd', cursor: 'cwd', gemini: 'cwd', copilot: 'cwd' };

function parses(protocol: RuntimeProtocol, raw: string): HookEvent | SvcError {
  try {
    return protocol.parseInput(raw);
  } catch (error) {
    if (error instanceof SvcError && error.code === 'hook_input_invalid') return error;
    throw error;
  }
}

describe('runtimeProtocol', () => {
  it('returns each runtime’s protocol', () => {
    for (const name of HOOK_RUNTIMES) {
      expect(runtimeProtocol(name).runtime).toBe(name);
      expect(isHookRuntime(name)).toBe(true);
    }
  });

  it('refuses an unknown runtime, listing the known ones', () => {
    let thrown: unknown;
    try {
      runtimeProtocol('aider');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SvcError);
    expect((thrown as SvcError).code).toBe('hook_runtime_unknown');
    expect((thrown as SvcError).message).toBe('unknown hook runtime "aider"; known: claude-code, codex, cursor, gemini, copilot');
    expect(isHookRuntime('__proto__')).toBe(false);
    expect(() => runtimeProtocol('constructor')).toThrow(/unknown hook runtime/);
  });
});

describe.each(HOOK_RUNTIMES)('%s: hostile input is hook_input_invalid, never another exception', (name) => {
  const protocol = runtimeProtocol(name);
  const valid = VALID[name];

  it('the valid base parses', () => {
    expect(protocol.parseInput(JSON.stringify(valid))).toMatchObject({ event: 'tool', runtime: name, cwd: '/w' });
  });

  it('not JSON, not an object, empty', () => {
    expectInvalid(protocol, 'PreToolUse Bash ls', `${name} hook input: not JSON`);
    expectInvalid(protocol, '{"cwd": "/w",', 'not JSON');
    expectInvalid(protocol, '', 'empty');
    expectInvalid(protocol, ' \n', 'empty');
    expectInvalid(protocol, '[]', 'expected a JSON object, got an array');
    expectInvalid(protocol, 'null', 'got null');
    expectInvalid(protocol, '42', 'got number 42');
    expectInvalid(protocol, '"{}"', 'got a string');
    expect(invalid(() => protocol.parseInput(undefined as unknown as string)).message).toContain('expected text');
  });

  it('missing or relative working directory', () => {
    const { [CWD_FIELD[name]]: _, ...noCwd } = valid;
    // Cursor falls back to the first workspace root; without one it has no directory at all.
    const without = name === 'cursor' ? { ...noCwd, workspace_roots: [] } : noCwd;
    expectInvalid(protocol, JSON.stringify(without), 'cwd is missing');
    expectInvalid(protocol, JSON.stringify({ ...valid, [CWD_FIELD[name]]: 'shop' }), 'cwd must be an absolute path (got "shop")');
    expectInvalid(protocol, JSON.stringify({ ...valid, [CWD_FIELD[name]]: './' }), 'must be an absolute path');
    expectInvalid(protocol, JSON.stringify({ ...valid, [CWD_FIELD[name]]: '/w\u0000/x' }), 'NUL');
    expectInvalid(protocol, JSON.stringify({ ...valid, [CWD_FIELD[name]]: 7 }), 'cwd must be a string (got number 7)');
  });

  it('wrong types for every top-level field', () => {
    for (const key of Object.keys(valid)) {
      if (key === 'timestamp' || key === 'generation_id') continue; // informational, any scalar is fine
      for (const wrong of [12345, true, [], { nested: 1 }]) {
        if (key === 'workspace_roots' && Array.isArray(wrong)) continue; // an empty list of roots is well-typed
        const result = parses(protocol, JSON.stringify({ ...valid, [key]: wrong }));
        expect(result, `${key}: ${JSON.stringify(wrong)}`).toBeInstanceOf(SvcError);
      }
    }
  });

  it('larger than the cap, even when it is valid JSON', () => {
    const padding = 'x'.repeat(MAX_HOOK_INPUT_BYTES);
    expectInvalid(protocol, JSON.stringify({ ...valid, padding }), `larger than ${MAX_HOOK_INPUT_BYTES} bytes`);
    // Multi-byte characters count by their UTF-8 size.
    expectInvalid(protocol, JSON.stringify({ ...valid, padding: '€'.repeat(Math.ceil(MAX_HOOK_INPUT_BYTES / 3) + 1) }), 'larger than');
  });

  it('deeply nested input does not overflow anything', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const raw = JSON.stringify({ ...valid, extra: 'X' }).replace('"X"', deep);
    const result = parses(protocol, raw);
    expect(result instanceof SvcError || typeof result === 'object').toBe(true);
  });

  it('a lone UTF-16 surrogate anywhere', () => {
    expectInvalid(protocol, JSON.stringify(valid).replace(/}$/, ',"note":"\\udc00"}'), 'lone UTF-16 surrogate');
    expectInvalid(protocol, JSON.stringify(valid).replace(/}$/, ',"\\ud83d":1}'), 'lone UTF-16 surrogate');
  });

  it('__proto__ and constructor keys are plain data', () => {
    const raw = JSON.stringify(valid).replace(/}$/, ',"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}');
    expect(parses(protocol, raw)).not.toBeInstanceOf(SvcError);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('fuzz: arbitrary text and arbitrary JSON never throw anything but hook_input_invalid', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        parses(protocol, text);
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        parses(protocol, JSON.stringify(value) ?? 'null');
      }),
      { numRuns: 300 },
    );
  });

  it('fuzz: the valid payload with any field replaced by any JSON value', () => {
    const keys = [...Object.keys(valid), 'tool_input', 'toolArgs', 'command', 'file_path', 'prompt'];
    fc.assert(
      fc.property(fc.constantFrom(...keys), fc.jsonValue({ maxDepth: 3 }), (key, value) => {
        const result = parses(protocol, JSON.stringify({ ...valid, [key]: value }));
        if (!(result instanceof SvcError)) {
          // Whatever parsed is a well-formed event, and every verdict formats without throwing.
          expect(['tool', 'prompt']).toContain(result.event);
          expect(result.cwd.startsWith('/')).toBe(true);
          for (const verdict of [ALLOW, DENY, ASK, NO_OPINION]) {
            const output = protocol.formatVerdict(verdict, result);
            if (output.stdout !== '') expect(() => JSON.parse(output.stdout) as unknown).not.toThrow();
          }
        }
      }),
      { numRuns: 400 },
    );
  });

  it('unreadable input always gets a blocking answer, whatever verdict is passed', () => {
    for (const verdict of [ALLOW, DENY, ASK, NO_OPINION, { decision: 'deny', reason: '' } as const]) {
      const output = protocol.formatVerdict(verdict, undefined);
      const blocksByExit = output.exitCode === 2 && output.stderr.trim() !== '';
      const blocksByJson = output.stdout.includes('"deny"') || output.stdout.includes('"continue":false');
      expect(blocksByExit || blocksByJson, JSON.stringify(output)).toBe(true);
      expect(output.stdout + output.stderr).not.toContain('allow');
    }
  });
});

import { describe, expect, it } from 'vitest';
import type { HookEvent } from '../../../src/hooks/hook-event.js';
import { claudeCodeProtocol as claude } from '../../../src/hooks/runtimes/claude-code.js';
import { DENY, expectInvalid, line, out, outputs } from './support.js';

const SESSION = '0d6b1f7e-5c2a-4f4e-9a61-3c8e2b7d9f10';
const TRANSCRIPT = '/home/dev/.claude/projects/-home-dev-shop/0d6b1f7e-5c2a-4f4e-9a61-3c8e2b7d9f10.jsonl';

/** A PreToolUse payload as Claude Code writes it on the hook's stdin. */
function preToolUse(tool_name: string, tool_input: Record<string, unknown>): string {
  return JSON.stringify({
    session_id: SESSION,
    transcript_path: TRANSCRIPT,
    cwd: '/home/dev/shop',
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name,
    tool_input,
    tool_use_id: 'toolu_01QpZ4cY8h3B7kq1v2W9xR5e',
  });
}

const base = { event: 'tool', runtime: 'claude-code', sessionId: SESSION, cwd: '/home/dev/shop' } as const;

describe('claude-code: every tool as Claude Code sends it', () => {
  const cases: [string, Record<string, unknown>, HookEvent][] = [
    [
      'Bash',
      { command: 'cat .env | grep STRIPE', description: 'Show the Stripe settings', timeout: 120000, run_in_background: false },
      { ...base, toolName: 'Bash', call: { kind: 'shell', command: 'cat .env | grep STRIPE' } },
    ],
    ['Read', { file_path: '/home/dev/shop/.env', offset: 1, limit: 2000 }, { ...base, toolName: 'Read', call: { kind: 'read', path: '/home/dev/shop/.env' } }],
    [
      'Write',
      { file_path: '/home/dev/shop/src/config.ts', content: 'export const port = 8080;\n' },
      {
        ...base,
        toolName: 'Write',
        call: { kind: 'write', path: '/home/dev/shop/src/config.ts', input: { file_path: '/home/dev/shop/src/config.ts', content: 'export const port = 8080;\n' } },
      },
    ],
    [
      'Edit',
      { file_path: '/home/dev/shop/src/app.ts', old_string: 'const port = 80;', new_string: 'const port = 8080;', replace_all: false },
      {
        ...base,
        toolName: 'Edit',
        call: {
          kind: 'write',
          path: '/home/dev/shop/src/app.ts',
          input: { file_path: '/home/dev/shop/src/app.ts', old_string: 'const port = 80;', new_string: 'const port = 8080;', replace_all: false },
        },
      },
    ],
    [
      'MultiEdit',
      { file_path: '/home/dev/shop/src/app.ts', edits: [{ old_string: 'a', new_string: 'b' }, { old_string: 'c', new_string: 'd', replace_all: true }] },
      {
        ...base,
        toolName: 'MultiEdit',
        call: {
          kind: 'write',
          path: '/home/dev/shop/src/app.ts',
          input: { file_path: '/home/dev/shop/src/app.ts', edits: [{ old_string: 'a', new_string: 'b' }, { old_string: 'c', new_string: 'd', replace_all: true }] },
        },
      },
    ],
    [
      'NotebookEdit',
      { notebook_path: '/home/dev/shop/analysis.ipynb', cell_id: 'cell-3', new_source: 'df.head()', cell_type: 'code', edit_mode: 'replace' },
      {
        ...base,
        toolName: 'NotebookEdit',
        call: {
          kind: 'write',
          path: '/home/dev/shop/analysis.ipynb',
          input: { notebook_path: '/home/dev/shop/analysis.ipynb', cell_id: 'cell-3', new_source: 'df.head()', cell_type: 'code', edit_mode: 'replace' },
        },
      },
    ],
    [
      'Grep',
      { pattern: 'API_KEY\\s*=', path: '/home/dev/shop', glob: '*.env*', output_mode: 'content', '-n': true, '-i': false, head_limit: 20 },
      { ...base, toolName: 'Grep', call: { kind: 'search', path: '/home/dev/shop', pattern: 'API_KEY\\s*=', glob: '*.env*', contents: true } },
    ],
    ['Grep', { pattern: 'TODO' }, { ...base, toolName: 'Grep', call: { kind: 'search', pattern: 'TODO', contents: true } }],
    ['Glob', { pattern: '**/*.pem', path: '/home/dev' }, { ...base, toolName: 'Glob', call: { kind: 'search', path: '/home/dev', pattern: '**/*.pem', contents: false } }],
    ['Glob', { pattern: 'src/**/*.ts' }, { ...base, toolName: 'Glob', call: { kind: 'search', pattern: 'src/**/*.ts', contents: false } }],
    ['LS', { path: '/home/dev/shop/secrets' }, { ...base, toolName: 'LS', call: { kind: 'search', path: '/home/dev/shop/secrets', pattern: '*', contents: false } }],
    [
      'WebFetch',
      { url: 'https://pastebin.example/raw/abc', prompt: 'Summarise this page' },
      { ...base, toolName: 'WebFetch', call: { kind: 'fetch', url: 'https://pastebin.example/raw/abc' } },
    ],
    [
      'mcp__github__create_issue',
      { owner: 'acme', repo: 'shop', title: 'Leak', body: 'see logs' },
      { ...base, toolName: 'mcp__github__create_issue', call: { kind: 'mcp', server: 'github', tool: 'create_issue', arguments: { owner: 'acme', repo: 'shop', title: 'Leak', body: 'see logs' } } },
    ],
    [
      'mcp__claude_ai_Slack__slack_send_message',
      { channel: '#ops', text: 'hi' },
      { ...base, toolName: 'mcp__claude_ai_Slack__slack_send_message', call: { kind: 'mcp', server: 'claude_ai_Slack', tool: 'slack_send_message', arguments: { channel: '#ops', text: 'hi' } } },
    ],
    ['TodoWrite', { todos: [{ content: 'x', status: 'pending', activeForm: 'Doing x' }] }, { ...base, toolName: 'TodoWrite', call: { kind: 'other', name: 'TodoWrite' } }],
    ['Task', { description: 'Explore', prompt: 'Find the config', subagent_type: 'general-purpose' }, { ...base, toolName: 'Task', call: { kind: 'other', name: 'Task' } }],
    ['WebSearch', { query: 'stripe api' }, { ...base, toolName: 'WebSearch', call: { kind: 'other', name: 'WebSearch' } }],
  ];
  for (const [tool, input, expected] of cases) {
    it(`${tool} ${JSON.stringify(input).slice(0, 60)}`, () => {
      expect(claude.parseInput(preToolUse(tool, input))).toStrictEqual(expected);
    });
  }

  it('UserPromptSubmit is a prompt event', () => {
    const raw = JSON.stringify({
      session_id: SESSION,
      transcript_path: TRANSCRIPT,
      cwd: '/home/dev/shop',
      permission_mode: 'acceptEdits',
      hook_event_name: 'UserPromptSubmit',
      prompt: 'Summarise @.env and @src/app.ts',
    });
    expect(claude.parseInput(raw)).toStrictEqual({ event: 'prompt', runtime: 'claude-code', sessionId: SESSION, cwd: '/home/dev/shop', prompt: 'Summarise @.env and @src/app.ts' });
  });

  it('tolerates fields Claude Code adds later, and a UTF-8 BOM', () => {
    const raw = JSON.parse(preToolUse('Read', { file_path: '/a' })) as Record<string, unknown>;
    const event = claude.parseInput(`\uFEFF${JSON.stringify({ ...raw, agent_id: 'x', future: { nested: [1, 2] } })}`);
    expect(event).toMatchObject({ event: 'tool', call: { kind: 'read', path: '/a' } });
  });

  it('passes relative and ~ paths through unresolved (the engine resolves them against cwd and home)', () => {
    expect(claude.parseInput(preToolUse('Read', { file_path: '~/.ssh/id_ed25519' }))).toMatchObject({ call: { kind: 'read', path: '~/.ssh/id_ed25519' } });
    expect(claude.parseInput(preToolUse('Edit', { file_path: 'src/a.ts', old_string: 'a', new_string: 'b' }))).toMatchObject({ call: { kind: 'write', path: 'src/a.ts' } });
  });
});

describe('claude-code: refuses what it cannot read', () => {
  it('a tool input without its required field names that field', () => {
    expectInvalid(claude, preToolUse('Read', { path: '/a' }), 'claude-code hook input: tool_input.file_path is missing');
    expectInvalid(claude, preToolUse('Bash', { cmd: 'ls' }), 'tool_input.command is missing');
    expectInvalid(claude, preToolUse('Bash', { command: ['ls'] }), 'tool_input.command must be a string (got an array)');
    expectInvalid(claude, preToolUse('Write', { content: 'x' }), 'tool_input.file_path is missing');
    expectInvalid(claude, preToolUse('NotebookEdit', { new_source: 'x' }), 'tool_input.notebook_path is missing');
    expectInvalid(claude, preToolUse('Grep', { path: '/a' }), 'tool_input.pattern is missing');
    expectInvalid(claude, preToolUse('Glob', { pattern: 7 }), 'tool_input.pattern must be');
    expectInvalid(claude, preToolUse('WebFetch', { prompt: 'x' }), 'tool_input.url is missing');
    expectInvalid(claude, preToolUse('Read', { file_path: '' }), 'tool_input.file_path is empty');
    expectInvalid(claude, preToolUse('Read', { file_path: '/a\u0000b' }), 'NUL');
  });

  it('an mcp__ name that is not mcp__<server>__<tool>', () => {
    expectInvalid(claude, preToolUse('mcp__github', {}), 'is not mcp__<server>__<tool>');
  });

  it('an event it is not registered for', () => {
    const raw = JSON.stringify({ session_id: SESSION, cwd: '/a', hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: {}, tool_response: {} });
    expectInvalid(claude, raw, 'hook_event_name');
  });
});

describe('claude-code: output', () => {
  const tool = claude.parseInput(preToolUse('Bash', { command: 'git push' }));
  const prompt = claude.parseInput(JSON.stringify({ session_id: SESSION, transcript_path: TRANSCRIPT, cwd: '/w', hook_event_name: 'UserPromptSubmit', prompt: 'hi' }));

  it('PreToolUse: hookSpecificOutput with allow, deny and ask; nothing for no opinion', () => {
    expect(outputs(claude, tool)).toStrictEqual({
      allow: out('{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"no rule stops this"}}\n'),
      deny: out(
        '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"read /repo/.env: protected (secrets). Do not read it; ask the user for the value you need."}}\n',
      ),
      ask: out('{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"git push needs approval"}}\n'),
      no_opinion: out(''),
    });
  });

  it('UserPromptSubmit: decision block for deny (and for ask, which a prompt cannot express); nothing otherwise', () => {
    expect(outputs(claude, prompt)).toStrictEqual({
      allow: out(''),
      deny: out(line({ decision: 'block', reason: DENY.reason })),
      ask: out('{"decision":"block","reason":"git push needs approval"}\n'),
      no_opinion: out(''),
    });
  });

  it('unparsable input: exit 2 with the reason on stderr, nothing on stdout', () => {
    expect(claude.formatVerdict({ decision: 'deny', reason: 'claude-code hook input: not JSON' }, undefined)).toStrictEqual(out('', 2, 'claude-code hook input: not JSON\n'));
    expect(claude.formatVerdict({ decision: 'no_opinion' }, undefined).exitCode).toBe(2);
    expect(claude.formatVerdict({ decision: 'allow', reason: '' }, undefined)).toStrictEqual(out('', 2, 'svc refused this action. Its hook input could not be read.\n'));
  });

  it('an empty reason becomes a default one', () => {
    expect(claude.formatVerdict({ decision: 'deny', reason: '  ' }, tool).stdout).toBe(
      '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"svc refused this action."}}\n',
    );
  });

  it('declares ask and prompt support', () => {
    expect(claude.supports).toStrictEqual({ ask: true, prompt: true });
    expect(claude.runtime).toBe('claude-code');
  });
});

import { describe, expect, it } from 'vitest';
import type { HookEvent } from '../../../src/hooks/hook-event.js';
import { geminiProtocol as gemini } from '../../../src/hooks/runtimes/gemini.js';
import { expectInvalid, out, outputs } from './support.js';

const SESSION = 'c4b7e0d2-18f3-4a6b-9e5d-2f1a0c3b4d5e';

function beforeTool(tool_name: string, tool_input: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    session_id: SESSION,
    transcript_path: '/home/dev/.gemini/tmp/7d3e1f/chats/session-2026-11-21T09-30-c4b7e0d2.json',
    cwd: '/home/dev/shop',
    hook_event_name: 'BeforeTool',
    timestamp: '2026-11-21T09:31:07.412Z',
    tool_name,
    tool_input,
    ...extra,
  });
}

const base = { event: 'tool', runtime: 'gemini', sessionId: SESSION, cwd: '/home/dev/shop' } as const;

describe('gemini: every built-in tool as Gemini CLI sends it', () => {
  const cases: [string, Record<string, unknown>, HookEvent][] = [
    ['run_shell_command', { command: 'cat .env', description: 'show env' }, { ...base, toolName: 'run_shell_command', call: { kind: 'shell', command: 'cat .env' } }],
    // The command runs in dir_path, relative to the project root.
    ['run_shell_command', { command: 'ls', dir_path: 'packages/api' }, { ...base, cwd: '/home/dev/shop/packages/api', toolName: 'run_shell_command', call: { kind: 'shell', command: 'ls' } }],
    ['run_shell_command', { command: 'ls', directory: '/tmp' }, { ...base, cwd: '/tmp', toolName: 'run_shell_command', call: { kind: 'shell', command: 'ls' } }],
    ['read_file', { file_path: '/home/dev/shop/.env', offset: 0, limit: 100 }, { ...base, toolName: 'read_file', call: { kind: 'read', path: '/home/dev/shop/.env' } }],
    ['read_file', { absolute_path: '/home/dev/shop/.env' }, { ...base, toolName: 'read_file', call: { kind: 'read', path: '/home/dev/shop/.env' } }],
    [
      'write_file',
      { file_path: '/home/dev/shop/a.ts', content: 'x' },
      { ...base, toolName: 'write_file', call: { kind: 'write', path: '/home/dev/shop/a.ts', input: { file_path: '/home/dev/shop/a.ts', content: 'x' } } },
    ],
    [
      'replace',
      { file_path: 'src/app.ts', old_string: 'a', new_string: 'b', expected_replacements: 1, instruction: 'rename' },
      {
        ...base,
        toolName: 'replace',
        call: { kind: 'write', path: 'src/app.ts', input: { file_path: 'src/app.ts', old_string: 'a', new_string: 'b', expected_replacements: 1, instruction: 'rename' } },
      },
    ],
    ['glob', { pattern: '**/*.key', dir_path: '/home/dev' }, { ...base, toolName: 'glob', call: { kind: 'search', path: '/home/dev', pattern: '**/*.key', contents: false } }],
    [
      'search_file_content',
      { pattern: 'password', dir_path: 'config', include: '*.yml' },
      { ...base, toolName: 'search_file_content', call: { kind: 'search', path: 'config', pattern: 'password', glob: '*.yml', contents: true } },
    ],
    ['grep_search', { pattern: 'token' }, { ...base, toolName: 'grep_search', call: { kind: 'search', pattern: 'token', contents: true } }],
    ['list_directory', { dir_path: '/home/dev/.ssh' }, { ...base, toolName: 'list_directory', call: { kind: 'search', path: '/home/dev/.ssh', pattern: '*', contents: false } }],
    ['list_directory', { path: 'secrets', ignore: ['*.bak'] }, { ...base, toolName: 'list_directory', call: { kind: 'search', path: 'secrets', pattern: '*', contents: false } }],
    [
      'read_many_files',
      { paths: ['src/**/*.ts', '.env'], include: ['*.md'], exclude: ['dist/**'] },
      {
        ...base,
        toolName: 'read_many_files',
        // Each entry is read where it points: a glob under its literal prefix, a path as it is.
        call: { kind: 'search', pattern: '', path: 'src/', glob: 'src/**/*.ts', contents: true },
        additionalCalls: [
          { kind: 'search', pattern: '', path: '.env', contents: true },
          { kind: 'search', pattern: '', path: '.', glob: '*.md', contents: true },
        ],
      },
    ],
    [
      'web_fetch',
      { prompt: 'Compare https://example.com/a and https://evil.example/x?q=1.' },
      { ...base, toolName: 'web_fetch', call: { kind: 'fetch', url: 'https://example.com/a' }, additionalCalls: [{ kind: 'fetch', url: 'https://evil.example/x?q=1' }] },
    ],
    ['web_fetch', { prompt: 'Summarise https://example.com/a' }, { ...base, toolName: 'web_fetch', call: { kind: 'fetch', url: 'https://example.com/a' } }],
    ['web_fetch', { prompt: 'no link here' }, { ...base, toolName: 'web_fetch', call: { kind: 'other', name: 'web_fetch' } }],
    ['google_web_search', { query: 'svc' }, { ...base, toolName: 'google_web_search', call: { kind: 'other', name: 'google_web_search' } }],
    ['save_memory', { fact: 'x' }, { ...base, toolName: 'save_memory', call: { kind: 'other', name: 'save_memory' } }],
    ['write_todos', { todos: [] }, { ...base, toolName: 'write_todos', call: { kind: 'other', name: 'write_todos' } }],
    [
      'mcp__github__create_issue',
      { title: 't' },
      { ...base, toolName: 'mcp__github__create_issue', call: { kind: 'mcp', server: 'github', tool: 'create_issue', arguments: { title: 't' } } },
    ],
  ];
  for (const [tool, input, expected] of cases) {
    it(`${tool} ${JSON.stringify(input).slice(0, 60)}`, () => {
      expect(gemini.parseInput(beforeTool(tool, input))).toStrictEqual(expected);
    });
  }

  it('an MCP tool with mcp_context takes server and tool from it', () => {
    const raw = beforeTool('mcp__db__query', { sql: 'select 1' }, { mcp_context: { server_name: 'db', tool_name: 'query', command: 'npx', args: ['db-mcp'], cwd: '/home/dev' } });
    expect(gemini.parseInput(raw)).toStrictEqual({ ...base, toolName: 'mcp__db__query', call: { kind: 'mcp', server: 'db', tool: 'query', arguments: { sql: 'select 1' } } });
  });

  it('BeforeAgent → prompt', () => {
    const raw = JSON.stringify({ session_id: SESSION, transcript_path: '/t.json', cwd: '/home/dev/shop', hook_event_name: 'BeforeAgent', timestamp: '2026-11-21T09:30:00Z', prompt: 'read @.env' });
    expect(gemini.parseInput(raw)).toStrictEqual({ event: 'prompt', runtime: 'gemini', sessionId: SESSION, cwd: '/home/dev/shop', prompt: 'read @.env' });
  });
});

describe('gemini: refuses what it cannot read', () => {
  it('names the missing or wrong field', () => {
    expectInvalid(gemini, beforeTool('read_file', {}), 'gemini hook input: tool_input.file_path is missing');
    expectInvalid(gemini, beforeTool('write_file', { file_path: null, content: 'x' }), 'tool_input.file_path must be a string');
    expectInvalid(gemini, beforeTool('run_shell_command', { command: 1 }), 'tool_input.command must be a string');
    expectInvalid(gemini, beforeTool('run_shell_command', { command: 'ls', dir_path: 3 }), 'tool_input.dir_path must be a string');
    expectInvalid(gemini, beforeTool('read_many_files', {}), 'tool_input.paths is missing or empty');
    expectInvalid(gemini, beforeTool('read_many_files', { paths: 'a' }), 'tool_input.paths must be an array');
    expectInvalid(gemini, beforeTool('glob', {}), 'tool_input.pattern is missing');
    expectInvalid(gemini, beforeTool('read_file', { file_path: '/a' }, { mcp_context: { server_name: '' } }), 'mcp_context');
    expectInvalid(gemini, beforeTool('read_file', { file_path: '/a' }, { cwd: 'shop' }), 'cwd must be an absolute path');
    expectInvalid(gemini, beforeTool('read_file', { file_path: '/a' }, { hook_event_name: 'AfterTool' }), 'hook_event_name must be');
  });
});

describe('gemini: output', () => {
  const tool = gemini.parseInput(beforeTool('run_shell_command', { command: 'git push' }));
  const prompt = gemini.parseInput(JSON.stringify({ session_id: SESSION, cwd: '/w', hook_event_name: 'BeforeAgent', prompt: 'hi' }));

  it('BeforeTool: decision allow or deny with its reason; ask is deny; nothing for no opinion', () => {
    expect(outputs(gemini, tool)).toStrictEqual({
      allow: out('{"decision":"allow"}\n'),
      deny: out('{"decision":"deny","reason":"read /repo/.env: protected (secrets). Do not read it; ask the user for the value you need."}\n'),
      ask: out('{"decision":"deny","reason":"git push needs approval"}\n'),
      no_opinion: out(''),
    });
  });

  it('BeforeAgent: deny drops the turn; allow prints nothing', () => {
    expect(outputs(gemini, prompt)).toStrictEqual({
      allow: out(''),
      deny: out('{"decision":"deny","reason":"read /repo/.env: protected (secrets). Do not read it; ask the user for the value you need."}\n'),
      ask: out('{"decision":"deny","reason":"git push needs approval"}\n'),
      no_opinion: out(''),
    });
  });

  it('unparsable input: exit 2 with the reason on stderr', () => {
    expect(gemini.formatVerdict({ decision: 'deny', reason: 'gemini hook input: not JSON' }, undefined)).toStrictEqual(out('', 2, 'gemini hook input: not JSON\n'));
  });

  it('declares no ask, prompts supported', () => {
    expect(gemini.supports).toStrictEqual({ ask: false, prompt: true });
  });
});

import { describe, expect, it } from 'vitest';
import { cursorProtocol as cursor } from '../../../src/hooks/runtimes/cursor.js';
import { expectInvalid, out, outputs } from './support.js';

const CONVERSATION = '6c1f0b2a-9d3e-4b8f-a1c2-7e5d4f3a2b10';

/** Fields Cursor puts on every hook payload. */
const common = {
  conversation_id: CONVERSATION,
  generation_id: 'b7e2c4d1-0a9f-4e3b-8c6d-5f4e3d2c1b0a',
  model: 'claude-4.5-sonnet',
  cursor_version: '2.1.42',
  workspace_roots: ['/Users/dev/shop'],
  user_email: 'dev@example.com',
  transcript_path: '/Users/dev/.cursor/projects/shop/agent-transcripts/6c1f0b2a.txt',
};

function payload(hook_event_name: string, fields: Record<string, unknown>): string {
  return JSON.stringify({ ...common, hook_event_name, ...fields });
}

function preToolUse(tool_name: string, tool_input: Record<string, unknown> | string): string {
  return payload('preToolUse', { tool_name, tool_input, tool_use_id: 'toolu_bdrk_01Xy', cwd: '/Users/dev/shop' });
}

const base = { event: 'tool', runtime: 'cursor', sessionId: CONVERSATION, cwd: '/Users/dev/shop' } as const;

describe('cursor: the dedicated events', () => {
  it('beforeShellExecution → shell in its cwd', () => {
    expect(cursor.parseInput(payload('beforeShellExecution', { command: 'npm run deploy', cwd: '/Users/dev/shop/api' }))).toStrictEqual({
      ...base,
      cwd: '/Users/dev/shop/api',
      toolName: 'Shell',
      call: { kind: 'shell', command: 'npm run deploy' },
    });
  });

  it('beforeReadFile → read; the first workspace root stands in for cwd', () => {
    const raw = payload('beforeReadFile', { file_path: '/Users/dev/shop/.env', content: 'STRIPE_KEY=sk_live_x\n', attachments: [{ type: 'rule', file_path: '/Users/dev/shop/.cursor/rules/a.mdc' }] });
    expect(cursor.parseInput(raw)).toStrictEqual({ ...base, toolName: 'Read', call: { kind: 'read', path: '/Users/dev/shop/.env' } });
  });

  it('beforeMCPExecution → mcp; tool_input as an object or as a JSON string; the server from its URL or command', () => {
    expect(cursor.parseInput(payload('beforeMCPExecution', { tool_name: 'query', tool_input: { sql: 'select 1' }, url: 'http://localhost:3000/mcp' }))).toStrictEqual({
      ...base,
      toolName: 'query',
      call: { kind: 'mcp', server: 'http://localhost:3000/mcp', tool: 'query', arguments: { sql: 'select 1' } },
    });
    expect(cursor.parseInput(payload('beforeMCPExecution', { tool_name: 'query', tool_input: '{"sql":"select 1"}', command: 'npx -y @acme/db-mcp' }))).toStrictEqual({
      ...base,
      toolName: 'query',
      call: { kind: 'mcp', server: 'npx -y @acme/db-mcp', tool: 'query', arguments: { sql: 'select 1' } },
    });
    expect(cursor.parseInput(payload('beforeMCPExecution', { tool_name: 'search_issues', tool_input: { q: 'bug' }, mcp_server_name: 'github', url: 'https://api.example/mcp' }))).toMatchObject({
      call: { kind: 'mcp', server: 'github', tool: 'search_issues' },
    });
  });

  it('beforeSubmitPrompt → prompt', () => {
    const raw = payload('beforeSubmitPrompt', { prompt: 'what is in @.env?', attachments: [{ type: 'file', file_path: '/Users/dev/shop/.env' }] });
    expect(cursor.parseInput(raw)).toStrictEqual({ event: 'prompt', runtime: 'cursor', sessionId: CONVERSATION, cwd: '/Users/dev/shop', prompt: 'what is in @.env?' });
  });
});

describe('cursor: preToolUse', () => {
  const write = (tool: string, input: Record<string, unknown>, path: string) => [tool, input, { ...base, toolName: tool, call: { kind: 'write', path, input } }] as const;
  const cases = [
    write('Write', { file_path: '/Users/dev/shop/src/config.ts', contents: 'export {}\n' }, '/Users/dev/shop/src/config.ts'),
    write('Edit', { file_path: 'src/app.ts', old_string: 'a', new_string: 'b' }, 'src/app.ts'),
    write('StrReplace', { path: 'src/app.ts', old_string: 'a', new_string: 'b' }, 'src/app.ts'),
    write('MultiEdit', { file_path: 'src/app.ts', edits: [{ old_string: 'a', new_string: 'b' }] }, 'src/app.ts'),
    write('Delete', { target_file: '.env' }, '.env'),
    write('EditNotebook', { target_notebook: 'analysis.ipynb', cell_idx: 2, new_string: 'x' }, 'analysis.ipynb'),
    ['Grep', { pattern: 'SECRET', path: '/Users/dev/shop', glob: '*.ts' }, { ...base, toolName: 'Grep', call: { kind: 'search', path: '/Users/dev/shop', pattern: 'SECRET', glob: '*.ts', contents: true } }],
    ['Grep', { pattern: 'SECRET' }, { ...base, toolName: 'Grep', call: { kind: 'search', pattern: 'SECRET', contents: true } }],
    ['Glob', { glob_pattern: '**/*.pem', target_directory: '/Users/dev' }, { ...base, toolName: 'Glob', call: { kind: 'search', path: '/Users/dev', pattern: '**/*.pem', contents: false } }],
    ['LS', { target_directory: 'secrets' }, { ...base, toolName: 'LS', call: { kind: 'search', path: 'secrets', pattern: '*', contents: false } }],
    ['WebFetch', { url: 'https://example.com/a' }, { ...base, toolName: 'WebFetch', call: { kind: 'fetch', url: 'https://example.com/a' } }],
    // Decided by beforeShellExecution, beforeReadFile and beforeMCPExecution instead.
    ['Shell', { command: 'ls' }, { ...base, toolName: 'Shell', call: { kind: 'other', name: 'Shell' } }],
    ['Read', { file_path: '.env' }, { ...base, toolName: 'Read', call: { kind: 'other', name: 'Read' } }],
    ['MCP:query', { sql: 'select 1' }, { ...base, toolName: 'MCP:query', call: { kind: 'other', name: 'MCP:query' } }],
    ['Task', { description: 'explore' }, { ...base, toolName: 'Task', call: { kind: 'other', name: 'Task' } }],
  ] as const;
  for (const [tool, input, expected] of cases) {
    it(`${tool} ${JSON.stringify(input).slice(0, 50)}`, () => {
      expect(cursor.parseInput(preToolUse(tool, input))).toStrictEqual(expected);
    });
  }

  it('tool_input sent as a JSON string', () => {
    expect(cursor.parseInput(preToolUse('Write', '{"file_path":"a.ts","contents":"x"}'))).toMatchObject({ call: { kind: 'write', path: 'a.ts' } });
  });
});

describe('cursor: refuses what it cannot read', () => {
  it('names the missing or wrong field', () => {
    expectInvalid(cursor, preToolUse('Write', { contents: 'x' }), 'cursor hook input: tool_input.file_path is missing');
    expectInvalid(cursor, preToolUse('Write', { file_path: 3 }), 'tool_input.file_path must be a string');
    expectInvalid(cursor, preToolUse('Grep', {}), 'tool_input.pattern is missing');
    expectInvalid(cursor, preToolUse('Glob', {}), 'tool_input.glob_pattern is missing');
    expectInvalid(cursor, preToolUse('Write', 'not json'), 'tool_input is a string but not JSON');
    expectInvalid(cursor, preToolUse('Write', '[1]'), 'tool_input must be a JSON object');
    expectInvalid(cursor, payload('beforeShellExecution', { cwd: '/a' }), 'command is missing');
    expectInvalid(cursor, payload('beforeReadFile', {}), 'file_path is missing');
    expectInvalid(cursor, payload('beforeMCPExecution', { tool_name: 'q', tool_input: {} }), 'names no server');
    expectInvalid(cursor, payload('afterFileEdit', { file_path: '/a', edits: [] }), 'hook_event_name must be');
  });

  it('needs a cwd or a workspace root, absolute', () => {
    const { workspace_roots: _, ...noRoots } = common;
    expectInvalid(cursor, JSON.stringify({ ...noRoots, hook_event_name: 'beforeReadFile', file_path: '/a' }), 'cwd is missing and workspace_roots is empty');
    expectInvalid(cursor, JSON.stringify({ ...common, workspace_roots: [], hook_event_name: 'beforeReadFile', file_path: '/a' }), 'cwd is missing and workspace_roots is empty');
    expectInvalid(cursor, JSON.stringify({ ...common, workspace_roots: ['shop'], hook_event_name: 'beforeReadFile', file_path: '/a' }), 'workspace_roots.0 must be an absolute path');
    expectInvalid(cursor, payload('beforeShellExecution', { command: 'ls', cwd: 'relative' }), 'cwd must be an absolute path');
  });
});

describe('cursor: output (always JSON)', () => {
  const tool = cursor.parseInput(payload('beforeShellExecution', { command: 'git push', cwd: '/w' }));
  const prompt = cursor.parseInput(payload('beforeSubmitPrompt', { prompt: 'hi' }));

  it('permission events: allow, deny with user_message and agent_message, ask as deny, {} for no opinion', () => {
    expect(outputs(cursor, tool)).toStrictEqual({
      allow: out('{"permission":"allow"}\n'),
      deny: out(
        '{"permission":"deny","user_message":"read /repo/.env: protected (secrets). Do not read it; ask the user for the value you need.","agent_message":"read /repo/.env: protected (secrets). Do not read it; ask the user for the value you need."}\n',
      ),
      ask: out('{"permission":"deny","user_message":"git push needs approval","agent_message":"git push needs approval"}\n'),
      no_opinion: out('{}\n'),
    });
  });

  it('beforeSubmitPrompt: continue true or false', () => {
    expect(outputs(cursor, prompt)).toStrictEqual({
      allow: out('{"continue":true}\n'),
      deny: out('{"continue":false,"user_message":"read /repo/.env: protected (secrets). Do not read it; ask the user for the value you need."}\n'),
      ask: out('{"continue":false,"user_message":"git push needs approval"}\n'),
      no_opinion: out('{}\n'),
    });
  });

  it('unparsable input: a deny every event understands, and exit 2', () => {
    expect(cursor.formatVerdict({ decision: 'deny', reason: 'cursor hook input: not JSON' }, undefined)).toStrictEqual(
      out('{"continue":false,"permission":"deny","user_message":"cursor hook input: not JSON","agent_message":"cursor hook input: not JSON"}\n', 2, 'cursor hook input: not JSON\n'),
    );
  });

  it('declares no ask, prompts supported', () => {
    expect(cursor.supports).toStrictEqual({ ask: false, prompt: true });
  });
});

import { describe, expect, it } from 'vitest';
import type { HookEvent } from '../../../src/hooks/hook-event.js';
import { copilotProtocol as copilot } from '../../../src/hooks/runtimes/copilot.js';
import { expectInvalid, out, outputs } from './support.js';

/** The coding agent's payload: toolArgs is a JSON-encoded string, and there is no sessionId. */
function preToolUse(toolName: string, args: Record<string, unknown>): string {
  return JSON.stringify({ timestamp: 1763716264123, cwd: '/home/runner/work/shop/shop', toolName, toolArgs: JSON.stringify(args) });
}

const base = { event: 'tool', runtime: 'copilot', sessionId: '', cwd: '/home/runner/work/shop/shop' } as const;

describe('copilot: every tool as Copilot sends it', () => {
  const cases: [string, Record<string, unknown>, HookEvent][] = [
    ['bash', { command: 'rm -rf dist', description: 'Clean build directory' }, { ...base, toolName: 'bash', call: { kind: 'shell', command: 'rm -rf dist', terminal: 'session' } }],
    ['write_bash', { sessionId: 's1', input: 'cat .env\n' }, { ...base, toolName: 'write_bash', call: { kind: 'shell', command: 'cat .env\n', terminal: 'input' } }],
    ['read_bash', { sessionId: 's1' }, { ...base, toolName: 'read_bash', call: { kind: 'other', name: 'read_bash' } }],
    ['powershell', { command: 'Get-Content .env' }, { ...base, toolName: 'powershell', call: { kind: 'shell', command: 'Get-Content .env', dialect: 'powershell' } }],
    ['view', { path: '/home/runner/work/shop/shop/.env', view_range: [1, 20] }, { ...base, toolName: 'view', call: { kind: 'read', path: '/home/runner/work/shop/shop/.env' } }],
    ['create', { path: 'src/new.ts', file_text: 'export {}\n' }, { ...base, toolName: 'create', call: { kind: 'write', path: 'src/new.ts', input: { path: 'src/new.ts', file_text: 'export {}\n' } } }],
    [
      'edit',
      { path: 'src/app.ts', old_str: 'port = 80', new_str: 'port = 8080' },
      { ...base, toolName: 'edit', call: { kind: 'write', path: 'src/app.ts', input: { path: 'src/app.ts', old_str: 'port = 80', new_str: 'port = 8080' } } },
    ],
    ['str_replace_editor', { command: 'view', path: '.env' }, { ...base, toolName: 'str_replace_editor', call: { kind: 'read', path: '.env' } }],
    [
      'str_replace_editor',
      { command: 'str_replace', path: 'a.ts', old_str: 'a', new_str: 'b' },
      { ...base, toolName: 'str_replace_editor', call: { kind: 'write', path: 'a.ts', input: { command: 'str_replace', path: 'a.ts', old_str: 'a', new_str: 'b' } } },
    ],
    ['glob', { pattern: '**/*.pem' }, { ...base, toolName: 'glob', call: { kind: 'search', pattern: '**/*.pem', contents: false } }],
    ['grep', { pattern: 'API_KEY', path: 'config', glob: '*.yml' }, { ...base, toolName: 'grep', call: { kind: 'search', path: 'config', pattern: 'API_KEY', glob: '*.yml', contents: true } }],
    ['web_fetch', { url: 'https://example.com/docs', max_length: 5000 }, { ...base, toolName: 'web_fetch', call: { kind: 'fetch', url: 'https://example.com/docs' } }],
    ['task', { description: 'explore', prompt: 'x', agent_type: 'explore' }, { ...base, toolName: 'task', call: { kind: 'other', name: 'task' } }],
    ['github-mcp-server-get_issue', { owner: 'acme', repo: 'shop', issue_number: 1 }, { ...base, toolName: 'github-mcp-server-get_issue', call: { kind: 'other', name: 'github-mcp-server-get_issue' } }],
  ];
  for (const [tool, args, expected] of cases) {
    it(`${tool} ${JSON.stringify(args).slice(0, 60)}`, () => {
      expect(copilot.parseInput(preToolUse(tool, args))).toStrictEqual(expected);
    });
  }

  it('the newer CLI payload: sessionId, and toolArgs as an object', () => {
    const raw = JSON.stringify({ sessionId: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d', timestamp: 1763716264123, cwd: '/home/dev/shop', toolName: 'view', toolArgs: { path: '.env' } });
    expect(copilot.parseInput(raw)).toStrictEqual({ event: 'tool', runtime: 'copilot', sessionId: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d', cwd: '/home/dev/shop', toolName: 'view', call: { kind: 'read', path: '.env' } });
  });

  it('userPromptSubmitted is read as a prompt (though Copilot ignores the answer)', () => {
    const raw = JSON.stringify({ timestamp: 1763716264000, cwd: '/home/dev/shop', prompt: 'Fix the authentication bug' });
    expect(copilot.parseInput(raw)).toStrictEqual({ event: 'prompt', runtime: 'copilot', sessionId: '', cwd: '/home/dev/shop', prompt: 'Fix the authentication bug' });
  });
});

describe('copilot: refuses what it cannot read', () => {
  it('names the missing or wrong field', () => {
    expectInvalid(copilot, preToolUse('view', {}), 'copilot hook input: toolArgs.path is missing');
    expectInvalid(copilot, preToolUse('bash', { command: false }), 'toolArgs.command must be a string');
    expectInvalid(copilot, preToolUse('str_replace_editor', { path: 'a' }), 'toolArgs.command is missing');
    expectInvalid(copilot, JSON.stringify({ timestamp: 1, cwd: '/a', toolName: 'bash', toolArgs: '{"command":' }), 'toolArgs is a string but not JSON');
    expectInvalid(copilot, JSON.stringify({ timestamp: 1, cwd: '/a', toolName: 'bash', toolArgs: '"ls"' }), 'toolArgs must encode a JSON object');
    expectInvalid(copilot, JSON.stringify({ timestamp: 1, cwd: '/a', toolName: 'bash' }), 'toolArgs is missing');
    expectInvalid(copilot, JSON.stringify({ timestamp: 1, cwd: '/a' }), 'toolName is missing');
    expectInvalid(copilot, JSON.stringify({ timestamp: 1, toolName: 'bash', toolArgs: '{}' }), 'cwd is missing');
    expectInvalid(copilot, JSON.stringify({ timestamp: 1, cwd: 'work', toolName: 'bash', toolArgs: '{"command":"ls"}' }), 'cwd must be an absolute path');
  });
});

describe('copilot: output', () => {
  const tool = copilot.parseInput(preToolUse('bash', { command: 'git push' }));
  const prompt = copilot.parseInput(JSON.stringify({ timestamp: 1, cwd: '/w', prompt: 'hi' }));

  it('preToolUse: permissionDecision allow or deny; ask is deny; nothing for no opinion', () => {
    expect(outputs(copilot, tool)).toStrictEqual({
      allow: out('{"permissionDecision":"allow"}\n'),
      deny: out('{"permissionDecision":"deny","permissionDecisionReason":"read /repo/.env: protected (secrets). Do not read it; ask the user for the value you need."}\n'),
      ask: out('{"permissionDecision":"deny","permissionDecisionReason":"git push needs approval"}\n'),
      no_opinion: out(''),
    });
  });

  it('a prompt cannot be refused: nothing is printed whatever the verdict', () => {
    expect(outputs(copilot, prompt)).toStrictEqual({ allow: out(''), deny: out(''), ask: out(''), no_opinion: out('') });
  });

  it('unparsable input: the deny JSON with exit 0 (Copilot skips hooks that exit non-zero)', () => {
    expect(copilot.formatVerdict({ decision: 'deny', reason: 'copilot hook input: not JSON' }, undefined)).toStrictEqual(
      out('{"permissionDecision":"deny","permissionDecisionReason":"copilot hook input: not JSON"}\n', 0, 'copilot hook input: not JSON\n'),
    );
  });

  it('declares neither ask nor prompts', () => {
    expect(copilot.supports).toStrictEqual({ ask: false, prompt: false });
  });
});

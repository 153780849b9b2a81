import { describe, expect, it } from 'vitest';
import { codexProtocol as codex, patchedFiles } from '../../../src/hooks/runtimes/codex.js';
import { expectInvalid, line, out, outputs } from './support.js';

const SESSION = '019a3c2e-7b41-7d10-9a3e-5f0c1b2d3e4f';

/** A PreToolUse payload as Codex serializes it (PreToolUseCommandInput). */
function preToolUse(tool_name: string, tool_input: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    session_id: SESSION,
    turn_id: '3',
    transcript_path: '/home/dev/.codex/sessions/2026/11/21/rollout-2026-11-21T09-12-44-019a3c2e.jsonl',
    cwd: '/home/dev/shop',
    hook_event_name: 'PreToolUse',
    model: 'gpt-5.2-codex',
    permission_mode: 'default',
    tool_name,
    tool_input,
    tool_use_id: 'call_Qm3Yx8c1',
    ...extra,
  });
}

const base = { event: 'tool', runtime: 'codex', sessionId: SESSION, cwd: '/home/dev/shop' } as const;

const PATCH = [
  '*** Begin Patch',
  '*** Add File: docs/notes.md',
  '+hello',
  '*** Update File: src/app.ts',
  '*** Move to: src/main.ts',
  '@@ const port',
  '-const port = 80;',
  '+const port = 8080;',
  '*** Delete File: /home/dev/shop/.env',
  '*** Update File: src/app.ts',
  '*** End Patch',
  '',
].join('\n');

describe('codex: every tool as Codex sends it', () => {
  it('Bash → shell in a terminal write_stdin can type into later', () => {
    expect(codex.parseInput(preToolUse('Bash', { command: 'cat ~/.aws/credentials' }))).toStrictEqual({ ...base, toolName: 'Bash', call: { kind: 'shell', command: 'cat ~/.aws/credentials', terminal: 'session' } });
  });

  it('Bash with a workdir runs there; a null workdir is none', () => {
    expect(codex.parseInput(preToolUse('Bash', { command: 'ls', workdir: '/home/dev/shop/src' }))).toStrictEqual({ ...base, toolName: 'Bash', call: { kind: 'shell', command: 'ls', cwd: '/home/dev/shop/src', terminal: 'session' } });
    expect(codex.parseInput(preToolUse('Bash', { command: 'ls', workdir: null }))).toStrictEqual({ ...base, toolName: 'Bash', call: { kind: 'shell', command: 'ls', terminal: 'session' } });
  });

  it('Bash running apply_patch: the files of the patch headers are writes too, under the workdir', () => {
    const input = { command: "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: app.ts\n*** End Patch\nEOF", workdir: 'src' };
    expect(codex.parseInput(preToolUse('Bash', input))).toStrictEqual({
      ...base,
      toolName: 'Bash',
      call: { kind: 'shell', command: input.command, cwd: 'src', terminal: 'session' },
      additionalCalls: [{ kind: 'write', path: 'src/app.ts', input }],
    });
  });

  it('Read, Edit and Write → a read or write of file_path, as for Claude Code', () => {
    expect(codex.parseInput(preToolUse('Read', { file_path: '.env', offset: 1 }))).toStrictEqual({ ...base, toolName: 'Read', call: { kind: 'read', path: '.env' } });
    const edit = { file_path: 'svc.yml', old_string: 'a', new_string: 'b' };
    expect(codex.parseInput(preToolUse('Edit', edit))).toStrictEqual({ ...base, toolName: 'Edit', call: { kind: 'write', path: 'svc.yml', input: edit } });
    const write = { file_path: 'a.ts', content: '' };
    expect(codex.parseInput(preToolUse('Write', write))).toStrictEqual({ ...base, toolName: 'Write', call: { kind: 'write', path: 'a.ts', input: write } });
  });

  it('apply_patch → one write per file the patch adds, updates, moves to or deletes, each bound to the whole patch', () => {
    const input = { command: PATCH };
    expect(codex.parseInput(preToolUse('apply_patch', input))).toStrictEqual({
      ...base,
      toolName: 'apply_patch',
      call: { kind: 'write', path: 'docs/notes.md', input },
      additionalCalls: [
        { kind: 'write', path: 'src/app.ts', input },
        { kind: 'write', path: 'src/main.ts', input },
        { kind: 'write', path: '/home/dev/shop/.env', input },
      ],
    });
  });

  it('apply_patch with one file has no additionalCalls, and CRLF patches are read', () => {
    const input = { command: '*** Begin Patch\r\n*** Update File: README.md\r\n@@\r\n-a\r\n+b\r\n*** End Patch\r\n' };
    expect(codex.parseInput(preToolUse('apply_patch', input))).toStrictEqual({ ...base, toolName: 'apply_patch', call: { kind: 'write', path: 'README.md', input } });
  });

  it('an MCP tool → mcp with its arguments', () => {
    const args = { entities: [{ name: 'svc', entityType: 'project', observations: ['x'] }] };
    expect(codex.parseInput(preToolUse('mcp__memory__create_entities', args))).toStrictEqual({
      ...base,
      toolName: 'mcp__memory__create_entities',
      call: { kind: 'mcp', server: 'memory', tool: 'create_entities', arguments: args },
    });
  });

  it('any other tool → other; transcript_path may be null', () => {
    expect(codex.parseInput(preToolUse('update_plan', { plan: [] }, { transcript_path: null }))).toStrictEqual({ ...base, toolName: 'update_plan', call: { kind: 'other', name: 'update_plan' } });
  });

  it('UserPromptSubmit → prompt', () => {
    const raw = JSON.stringify({
      session_id: SESSION,
      turn_id: '4',
      transcript_path: null,
      cwd: '/home/dev/shop',
      hook_event_name: 'UserPromptSubmit',
      model: 'gpt-5.2-codex',
      permission_mode: 'default',
      prompt: 'explain @.env',
    });
    expect(codex.parseInput(raw)).toStrictEqual({ event: 'prompt', runtime: 'codex', sessionId: SESSION, cwd: '/home/dev/shop', prompt: 'explain @.env' });
  });

  it('patchedFiles ignores patch content lines that only look like headers', () => {
    expect(patchedFiles('*** Begin Patch\n*** Add File: a.txt\n+*** Add File: b.txt\n*** End Patch')).toEqual(['a.txt']);
  });
});

describe('codex: refuses what it cannot read', () => {
  it('names the missing or wrong field', () => {
    expectInvalid(codex, preToolUse('Bash', {}), 'codex hook input: tool_input.command is missing');
    expectInvalid(codex, preToolUse('apply_patch', { diff: 'x' }), 'tool_input.command is missing');
    expectInvalid(codex, preToolUse('apply_patch', { patch: 'x' }), 'names no file');
    expectInvalid(codex, preToolUse('Edit', { path: 'x' }), 'tool_input.file_path is missing');
    expectInvalid(codex, preToolUse('apply_patch', { command: '*** Begin Patch\n*** End Patch' }), 'names no file');
    expectInvalid(codex, preToolUse('Bash', { command: 'ls' }, { transcript_path: 5 }), 'transcript_path must be');
    expectInvalid(codex, preToolUse('Bash', { command: 'ls' }, { cwd: '.' }), 'cwd must be an absolute path');
    expectInvalid(codex, preToolUse('mcp__x__', {}), 'is not mcp__<server>__<tool>');
    expectInvalid(codex, preToolUse('apply_patch', { command: '*** Add File: a\u0000b' }), 'NUL');
  });
});

describe('codex: output', () => {
  const tool = codex.parseInput(preToolUse('Bash', { command: 'git push' }));
  const prompt = codex.parseInput(JSON.stringify({ session_id: SESSION, cwd: '/w', hook_event_name: 'UserPromptSubmit', prompt: 'hi' }));

  it('PreToolUse: only deny is printed (Codex rejects allow without updatedInput and ask); ask becomes deny', () => {
    expect(outputs(codex, tool)).toStrictEqual({
      allow: out(''),
      deny: out(
        '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"read /repo/.env: protected (secrets). Do not read it; ask the user for the value you need."}}\n',
      ),
      ask: out('{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"git push needs approval"}}\n'),
      no_opinion: out(''),
    });
  });

  it('UserPromptSubmit: decision block with a non-empty reason', () => {
    expect(outputs(codex, prompt)).toStrictEqual({
      allow: out(''),
      deny: out(line({ decision: 'block', reason: 'read /repo/.env: protected (secrets). Do not read it; ask the user for the value you need.' })),
      ask: out('{"decision":"block","reason":"git push needs approval"}\n'),
      no_opinion: out(''),
    });
    expect(codex.formatVerdict({ decision: 'deny', reason: '' }, prompt).stdout).toBe('{"decision":"block","reason":"svc refused this action."}\n');
  });

  it('unparsable input: exit 2 with the reason on stderr', () => {
    expect(codex.formatVerdict({ decision: 'deny', reason: 'codex hook input: not JSON' }, undefined)).toStrictEqual(out('', 2, 'codex hook input: not JSON\n'));
  });

  it('declares no ask, prompts supported', () => {
    expect(codex.supports).toStrictEqual({ ask: false, prompt: true });
  });
});

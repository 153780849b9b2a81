import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { installHook } from '../../../src/hooks/install/index.js';
import { readJson, workspace } from './support.js';

/** Each runtime's settings: the exact file a fresh install writes, and a merge into a real-world file. */

async function withFile(relative: string, content: unknown): Promise<{ dir: string; file: string }> {
  const dir = await workspace();
  const file = path.join(dir, relative);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(content, null, 2)}\n`);
  return { dir, file };
}

describe('claude-code: .claude/settings.json', () => {
  const command = 'svc hook claude-code';

  it('fresh: PreToolUse for every tool and UserPromptSubmit', async () => {
    const dir = await workspace();
    await installHook('claude-code', { workspace: dir, command });
    expect(await readFile(path.join(dir, '.claude/settings.json'), 'utf8')).toBe(
      [
        '{',
        '  "hooks": {',
        '    "PreToolUse": [',
        '      {',
        '        "matcher": "*",',
        '        "hooks": [',
        '          {',
        '            "type": "command",',
        '            "command": "svc hook claude-code",',
        '            "timeout": 30',
        '          }',
        '        ]',
        '      }',
        '    ],',
        '    "UserPromptSubmit": [',
        '      {',
        '        "hooks": [',
        '          {',
        '            "type": "command",',
        '            "command": "svc hook claude-code",',
        '            "timeout": 30',
        '          }',
        '        ]',
        '      }',
        '    ]',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('merges with existing permissions, env and other hooks, keeping all of them', async () => {
    const existing = {
      $schema: 'https://json.schemastore.org/claude-code-settings.json',
      permissions: { allow: ['Bash(npm run test:*)'], deny: ['Read(./.env)'] },
      env: { NODE_ENV: 'development' },
      hooks: {
        PreToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/check-style.sh' }] }],
        PostToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: 'npx prettier --write', timeout: 60 }] }],
        Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }],
      },
      model: 'opus',
    };
    const { dir, file } = await withFile('.claude/settings.json', existing);
    expect((await installHook('claude-code', { workspace: dir, command })).changed).toBe(true);
    const hook = { type: 'command', command, timeout: 30 };
    expect(await readJson(file)).toStrictEqual({
      ...existing,
      hooks: {
        PreToolUse: [...existing.hooks.PreToolUse, { matcher: '*', hooks: [hook] }],
        PostToolUse: existing.hooks.PostToolUse,
        Stop: existing.hooks.Stop,
        UserPromptSubmit: [{ hooks: [hook] }],
      },
    });
    expect((await installHook('claude-code', { workspace: dir, command })).changed).toBe(false);
  });

  it('counts as installed only where the matcher covers every tool; a user-tuned entry is left alone', async () => {
    const narrow = await withFile('.claude/settings.json', { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command }] }] } });
    await installHook('claude-code', { workspace: narrow.dir, command });
    expect(await readJson(narrow.file)).toMatchObject({ hooks: { PreToolUse: [{ matcher: 'Bash' }, { matcher: '*' }] } });

    const tuned = { hooks: { PreToolUse: [{ matcher: '', hooks: [{ type: 'command', command, timeout: 5 }] }], UserPromptSubmit: [{ hooks: [{ type: 'command', command, timeout: 5 }] }] } };
    const done = await withFile('.claude/settings.json', tuned);
    expect((await installHook('claude-code', { workspace: done.dir, command })).changed).toBe(false);
    expect(await readJson(done.file)).toStrictEqual(tuned);
  });
});

describe('codex: .codex/hooks.json', () => {
  const command = 'svc hook codex';

  it('fresh: PreToolUse for every tool and UserPromptSubmit', async () => {
    const dir = await workspace();
    await installHook('codex', { workspace: dir, command });
    const hook = { type: 'command', command, timeout: 30 };
    expect(await readJson(path.join(dir, '.codex/hooks.json'))).toStrictEqual({ hooks: { PreToolUse: [{ matcher: '*', hooks: [hook] }], UserPromptSubmit: [{ hooks: [hook] }] } });
  });

  it('merges with existing session and Bash hooks', async () => {
    const existing = {
      hooks: {
        SessionStart: [{ matcher: 'startup|resume', hooks: [{ type: 'command', command: 'sh .codex/hooks/session-start.sh', statusMessage: 'Loading context' }] }],
        PreToolUse: [{ matcher: '^Bash$', hooks: [{ type: 'command', command: 'python3 .codex/hooks/guard.py', timeout: 10 }] }],
      },
    };
    const { dir, file } = await withFile('.codex/hooks.json', existing);
    await installHook('codex', { workspace: dir, command });
    const hook = { type: 'command', command, timeout: 30 };
    expect(await readJson(file)).toStrictEqual({
      hooks: { SessionStart: existing.hooks.SessionStart, PreToolUse: [...existing.hooks.PreToolUse, { matcher: '*', hooks: [hook] }], UserPromptSubmit: [{ hooks: [hook] }] },
    });
  });
});

describe('cursor: .cursor/hooks.json', () => {
  const command = 'svc hook cursor';
  const entry = { command, failClosed: true, timeout: 30 };

  it('fresh: version 1 and every event that can refuse, fail-closed', async () => {
    const dir = await workspace();
    await installHook('cursor', { workspace: dir, command });
    expect(await readJson(path.join(dir, '.cursor/hooks.json'))).toStrictEqual({
      hooks: { beforeShellExecution: [entry], beforeMCPExecution: [entry], beforeReadFile: [entry], preToolUse: [entry], beforeSubmitPrompt: [entry] },
      version: 1,
    });
  });

  it('merges with existing hooks and keeps their version', async () => {
    const existing = {
      version: 1,
      hooks: {
        afterFileEdit: [{ command: './hooks/format.sh' }],
        beforeShellExecution: [{ command: './hooks/block-git.sh', timeout: 5 }],
        preToolUse: [{ command: './hooks/guard.sh', matcher: 'Write' }, { command, matcher: 'Shell' }],
      },
    };
    const { dir, file } = await withFile('.cursor/hooks.json', existing);
    await installHook('cursor', { workspace: dir, command });
    expect(await readJson(file)).toStrictEqual({
      version: 1,
      hooks: {
        afterFileEdit: existing.hooks.afterFileEdit,
        beforeShellExecution: [...existing.hooks.beforeShellExecution, entry],
        preToolUse: [...existing.hooks.preToolUse, entry],
        beforeMCPExecution: [entry],
        beforeReadFile: [entry],
        beforeSubmitPrompt: [entry],
      },
    });
    expect((await installHook('cursor', { workspace: dir, command })).changed).toBe(false);
  });
});

describe('gemini: .gemini/settings.json', () => {
  const command = 'svc hook gemini';
  const hook = { name: 'svc', type: 'command', command, timeout: 30000 };

  it('fresh: BeforeTool for every tool and BeforeAgent, timeout in milliseconds', async () => {
    const dir = await workspace();
    await installHook('gemini', { workspace: dir, command });
    expect(await readJson(path.join(dir, '.gemini/settings.json'))).toStrictEqual({ hooks: { BeforeTool: [{ matcher: '*', hooks: [hook] }], BeforeAgent: [{ hooks: [hook] }] } });
  });

  it('merges with existing settings and the non-event keys under hooks', async () => {
    const existing = {
      general: { vimMode: true },
      tools: { sandbox: 'docker' },
      mcpServers: { github: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'] } },
      hooks: {
        enabled: true,
        disabled: ['legacy-scanner'],
        BeforeTool: [{ matcher: 'write_file|replace', hooks: [{ name: 'fmt', type: 'command', command: './fmt.sh', timeout: 5000 }] }],
        AfterAgent: [{ hooks: [{ type: 'command', command: './review.sh' }] }],
      },
    };
    const { dir, file } = await withFile('.gemini/settings.json', existing);
    await installHook('gemini', { workspace: dir, command });
    expect(await readJson(file)).toStrictEqual({
      ...existing,
      hooks: { ...existing.hooks, BeforeTool: [...existing.hooks.BeforeTool, { matcher: '*', hooks: [hook] }], BeforeAgent: [{ hooks: [hook] }] },
    });
  });
});

describe('copilot: .github/hooks/svc.json', () => {
  const command = 'svc hook copilot';
  const entry = { type: 'command', bash: command, powershell: command, timeoutSec: 30 };

  it('fresh: version 1 and preToolUse only (Copilot ignores the prompt hook’s answer)', async () => {
    const dir = await workspace();
    await installHook('copilot', { workspace: dir, command });
    expect(await readJson(path.join(dir, '.github/hooks/svc.json'))).toStrictEqual({ hooks: { preToolUse: [entry] }, version: 1 });
  });

  it('leaves the other hook files alone and merges into an existing svc.json', async () => {
    const dir = await workspace();
    const other = path.join(dir, '.github/hooks/audit.json');
    await mkdir(path.dirname(other), { recursive: true });
    const audit = '{"version":1,"hooks":{"sessionStart":[{"type":"command","bash":"./audit/start.sh"}]}}';
    await writeFile(other, audit);
    const existing = { version: 1, hooks: { preToolUse: [{ type: 'command', bash: './scripts/security-check.sh', comment: 'runs first' }], sessionEnd: [{ type: 'command', bash: './end.sh' }] } };
    await writeFile(path.join(dir, '.github/hooks/svc.json'), JSON.stringify(existing));
    await installHook('copilot', { workspace: dir, command });
    expect(await readFile(other, 'utf8')).toBe(audit);
    expect(await readJson(path.join(dir, '.github/hooks/svc.json'))).toStrictEqual({ version: 1, hooks: { preToolUse: [...existing.hooks.preToolUse, entry], sessionEnd: existing.hooks.sessionEnd } });
    expect((await installHook('copilot', { workspace: dir, command })).changed).toBe(false);
  });
});

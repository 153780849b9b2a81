import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { initWorkspace } from '../../../src/hooks/init-workspace.js';
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

  it('an svc hook under a narrower matcher is moved to `*`, not run a second time on Bash', async () => {
    const { dir, file } = await withFile('.claude/settings.json', {
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'svc hook claude-code' }] }, { matcher: 'Bash', hooks: [{ type: 'command', command: 'lint.sh' }, { type: 'command', command: 'npx svc hook claude-code --timeout-ms 5000' }] }] },
    });
    expect((await installHook('claude-code', { workspace: dir, command })).changed).toBe(true);
    const settings = (await readJson(file)) as { hooks: { PreToolUse: unknown[] } };
    expect(settings.hooks.PreToolUse).toStrictEqual([
      { matcher: 'Bash', hooks: [{ type: 'command', command: 'lint.sh' }] },
      { matcher: '*', hooks: [{ type: 'command', command, timeout: 30 }] },
    ]);
  });

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

  it('counts as installed only where the matcher covers every tool (a narrower one is replaced); a user-tuned entry is left alone', async () => {
    const narrow = await withFile('.claude/settings.json', { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command }] }] } });
    await installHook('claude-code', { workspace: narrow.dir, command });
    expect(await readJson(narrow.file)).toMatchObject({ hooks: { PreToolUse: [{ matcher: '*' }] } });

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
        // svc's own entry under a narrower matcher is replaced: it would decide Shell calls twice.
        preToolUse: [existing.hooks.preToolUse[0], entry],
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

describe('svc init: warnings', () => {
  it('says so when Claude Code settings switch every hook off, and when svc is started from PATH', async () => {
    const { dir } = await withFile('.claude/settings.local.json', { disableAllHooks: true });
    const home = await workspace();
    const steps = await initWorkspace({ workspace: dir, runtime: 'claude-code', svcCommand: 'npx svc', home });
    const warnings = steps.flatMap((step) => (step.warning === undefined ? [] : [step.warning]));
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain("`npx svc`, found on the agent's PATH");
    expect(warnings[1]).toContain(`${path.join(dir, '.claude/settings.local.json')} sets "disableAllHooks": true`);
    const settings = JSON.parse(await readFile(path.join(dir, '.claude/settings.json'), 'utf8')) as { hooks: { PreToolUse: { hooks: { command: string }[] }[] } };
    expect(settings.hooks.PreToolUse[0]?.hooks[0]?.command).toBe(`npx svc hook claude-code --config ${path.join(dir, 'svc.yml')} || exit 2`);
  });

  it('Copilot gets the pinned command in bash and in PowerShell form, without a shell fallback', async () => {
    const dir = await workspace();
    await initWorkspace({ workspace: dir, runtime: 'copilot', cliPath: "/opt/my svc/main.js" });
    const entry = ((await readJson(path.join(dir, '.github/hooks/svc.json'))) as { hooks: { preToolUse: { bash: string; powershell: string }[] } }).hooks.preToolUse[0];
    const config = path.join(dir, 'svc.yml');
    expect(entry).toMatchObject({ bash: `${process.execPath} '/opt/my svc/main.js' hook copilot --config ${config}`, powershell: `& ${process.execPath} '/opt/my svc/main.js' hook copilot --config ${config}` });
  });
});

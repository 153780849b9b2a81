import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { svc } from '../support/proxy.js';

/**
 * Calls the runtimes send that once got no opinion, or a wrong one: each runs the real
 * `svc hook <runtime>` as a child process with the runtime's own JSON on stdin, in a workspace
 * made by `svc init`, with HOME a temporary directory holding ~/.aws/credentials.
 */
let root: string;
let ws: string;
let home: string;
let env: NodeJS.ProcessEnv;

type Answer = 'allow' | 'deny' | 'none';

interface Decided {
  answer: Answer;
  reason: string;
}

/** The decision in any runtime's format: allow, deny, or none (nothing printed). */
async function hook(runtime: string, event: unknown, cwd = ws): Promise<Decided> {
  const run = await runCli(['hook', runtime], { cwd, env, input: JSON.stringify(event) });
  expect(run.code, run.stderr).toBe(0);
  if (run.stdout === '') return { answer: 'none', reason: '' };
  const parsed = JSON.parse(run.stdout) as Record<string, unknown>;
  const specific = (parsed.hookSpecificOutput ?? parsed) as Record<string, unknown>;
  const decision = specific.permissionDecision ?? specific.decision ?? specific.permission;
  const reason = String(specific.permissionDecisionReason ?? specific.reason ?? specific.agent_message ?? '');
  if (decision === 'block') return { answer: 'deny', reason };
  if (decision !== 'allow' && decision !== 'deny') throw new Error(`unexpected answer ${run.stdout}`);
  return { answer: decision, reason };
}

const copilot = (toolName: string, args: Record<string, unknown>) => hook('copilot', { timestamp: 1763716264123, cwd: ws, toolName, toolArgs: JSON.stringify(args) });
const codex = (toolName: string, toolInput: Record<string, unknown>) =>
  hook('codex', { session_id: 's', turn_id: '1', transcript_path: null, cwd: ws, hook_event_name: 'PreToolUse', model: 'gpt-5.2-codex', permission_mode: 'default', tool_name: toolName, tool_input: toolInput, tool_use_id: 'call_1' });
const claude = (toolName: string, toolInput: Record<string, unknown>) => hook('claude-code', { session_id: 's', cwd: ws, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: toolName, tool_input: toolInput });
const claudePrompt = (prompt: string) => hook('claude-code', { session_id: 's', cwd: ws, permission_mode: 'default', hook_event_name: 'UserPromptSubmit', prompt });

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-runtime-gaps-'));
  ws = join(root, 'ws');
  home = join(root, 'home');
  await mkdir(join(ws, 'src'), { recursive: true });
  await mkdir(join(home, '.aws'), { recursive: true });
  await writeFile(join(ws, '.env'), 'API_KEY=sk-live-789\n');
  await writeFile(join(ws, 'src/app.ts'), 'export const answer = 42; // TODO\n');
  await writeFile(join(home, '.aws/credentials'), '[default]\n');
  env = { ...process.env, HOME: home, SVC_REVIEWER_KEYS_DIR: join(home, '.config/svc/reviewer-keys') };
  const init = await svc(['init', '--dir', ws], { env, cwd: ws });
  expect(init.code, init.stderr).toBe(0);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('A: text typed into a running terminal, and programs that read it', () => {
  it('Copilot write_bash is read as a bash command line: a protected read is denied, a plain answer passes', async () => {
    expect((await copilot('write_bash', { sessionId: 's1', input: 'cat .env\n' })).answer).toBe('deny');
    expect((await copilot('write_bash', { shellId: 's1', input: `cat ${join(home, '.aws/credentials')}{enter}` })).answer).toBe('deny');
    expect((await copilot('write_bash', { sessionId: 's1', input: 'y\n' })).answer).toBe('none');
  });

  it('Copilot write_bash: a relative path in the session directory, editing keys and an unfinished line need approval', async () => {
    for (const input of ['cat credentials\n', 'cat .en{tab}\n', 'cat .eny\u007fv\n', 'cat .e', 'cat !$\n']) {
      const decided = await copilot('write_bash', { sessionId: 's1', input });
      expect(decided.answer, input).toBe('deny');
      expect(decided.reason, input).toContain('shell_dynamic_path');
    }
  });

  it.each(['script -q /dev/null', 'ssh build-host', 'less README.md', 'vim src/app.ts', 'tmux', 'sqlite3 app.db', 'gdb ./server', 'socat - EXEC:sh', 'python3 -m pdb x.py', 'su', 'sudo -i'])(
    'a session that reads commands from its terminal needs approval: Codex and Copilot `%s`',
    async (command) => {
      const byCodex = await codex('Bash', { command });
      expect(byCodex.answer).toBe('deny');
      expect(byCodex.reason).toContain('shell_dynamic_path');
      expect((await copilot('bash', { command, description: 'x', mode: 'async' })).reason).toContain('shell_dynamic_path');
    },
  );

  it('commands that read no commands from their terminal are left alone, and Claude Code (no write-to-terminal tool) is unchanged', async () => {
    for (const command of ['ssh build-host uptime', 'npm test', 'psql -c "select 1"', 'tmux ls', 'sqlite3 app.db "select 1"', 'git status']) {
      expect((await codex('Bash', { command })).answer, command).toBe('none');
    }
    expect((await claude('Bash', { command: 'less README.md' })).answer).toBe('none');
  });
});

describe('B: Codex tools and working directories', () => {
  it('Edit, Write and Read with file_path are judged like Claude Code’s', async () => {
    expect((await codex('Edit', { file_path: 'svc.yml', old_string: 'a', new_string: 'b' })).answer).toBe('deny');
    expect((await codex('Write', { file_path: join(ws, '.claude/settings.json'), content: '{}' })).answer).toBe('deny');
    expect((await codex('Read', { file_path: '.env' })).answer).toBe('deny');
    expect((await codex('Read', { file_path: 'src/app.ts' })).answer).toBe('none');
  });

  it('a workdir in the Bash input is where relative paths lead', async () => {
    expect((await codex('Bash', { command: 'cat credentials', workdir: join(home, '.aws') })).answer).toBe('deny');
    expect((await codex('Bash', { command: 'cat app.ts', workdir: 'src' })).answer).toBe('none');
  });

  it('apply_patch run as a command writes the files of its headers', async () => {
    const command = "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: svc.yml\n@@\n-a\n+b\n*** End Patch\nEOF\n";
    expect((await codex('Bash', { command })).answer).toBe('deny');
    expect((await codex('Bash', { command: command.replace('svc.yml', 'src/app.ts') })).answer).toBe('none');
  });
});

describe('C: MCP tools', () => {
  it.each([
    ['mcp__serena__read_file', { relative_path: '.env' }],
    ['mcp__fs__read', { absolute_path: '<ws>/.env' }],
    ['mcp__fs__read', { file_name: '.env' }],
    ['mcp__fs__read', { pathname: '.env' }],
    ['mcp__jetbrains__get_file_text_by_path', { pathInProject: '.env' }],
    ['mcp__fs__open', { location: '.env' }],
    ['mcp__db__query', { db_path: '~/.aws/credentials', sql: 'select 1' }],
    ['mcp__fs__read_resource', { resource: 'file://<ws>/.env' }],
    ['mcp__fetch__fetch', { url: 'file://<home>/.aws/credentials' }],
  ])('a path under a key that names one, or a file:// URL, is a file action: %s %j', async (tool, input) => {
    const placed = JSON.parse(JSON.stringify(input).replaceAll('<ws>', ws).replaceAll('<home>', home)) as Record<string, unknown>;
    expect((await claude(tool, placed)).reason).toContain('protected_path_read');
  });

  it.each([
    ['mcp__fs__set', { path: '.git/config', value: 'x' }],
    ['mcp__jetbrains__replace_text_in_file', { pathInProject: 'svc.yml', oldText: 'a', newText: 'b' }],
    ['mcp__serena__replace_content', { relative_path: '.claude/settings.json', needle: 'a', repl: 'b' }],
    ['mcp__serena__insert_after_symbol', { relative_path: 'svc.yml', name_path: 'x', body: 'y' }],
    ['mcp__fs__update', { file: '.codex/hooks.json', content: '{}' }],
  ])('a tool whose name says it changes files writes its path: %s', async (tool, input) => {
    expect((await claude(tool, input)).reason).toContain('protected_path_write');
  });

  it('a search tool given a directory reads the protected files under it; a listing does not', async () => {
    expect((await claude('mcp__ripgrep__search', { pattern: 'KEY', path: ws })).reason).toContain('protected_path_read');
    expect((await claude('mcp__ripgrep__search', { pattern: 'KEY', path: join(ws, 'src') })).answer).toBe('none');
    expect((await claude('mcp__fs__list_directory', { path: ws })).answer).toBe('none');
  });

  it('a tool that runs a command is judged as that command line, in the directory it names', async () => {
    expect((await claude('mcp__serena__execute_shell_command', { command: 'cat .env' })).reason).toContain('protected_path_read');
    expect((await claude('mcp__desktop-commander__start_process', { command: 'cat credentials', cwd: join(home, '.aws'), timeout_ms: 1000 })).reason).toContain('protected_path_read');
    expect((await claude('mcp__desktop-commander__start_process', { command: 'ssh build-host', timeout_ms: 1000 })).reason).toContain('shell_dynamic_path');
    expect((await claude('mcp__desktop-commander__interact_with_process', { pid: 42, input: 'cat .env\n' })).reason).toContain('protected_path_read');
    expect((await codex('mcp__shell__run_command', { cmd: 'ls src' })).answer).toBe('none');
    expect((await claude('mcp__serena__execute_shell_command', { command: 'ls src' })).answer).toBe('none');
  });

  it('other MCP tools keep no opinion', async () => {
    expect((await claude('mcp__github__create_issue', { owner: 'acme', repo: 'api', title: 'bug', body: 'see settings' })).answer).toBe('none');
    expect((await claude('mcp__fs__read_file', { path: 'src/app.ts' })).answer).toBe('none');
    expect((await claude('mcp__aws__get_profile', { profile: 'default' })).answer).toBe('none');
  });
});

describe('D: prompt mentions of MCP resources', () => {
  it('a file:// URL inside an @-mention is a read of that file', async () => {
    expect((await claudePrompt(`summarize @aws-docs:file://${join(home, '.aws/credentials')}`)).reason).toContain('protected_path_read');
    expect((await claudePrompt(`see @file://${join(ws, '.env')}`)).reason).toContain('protected_path_read');
    expect((await claudePrompt('see @fs:file://~/.aws/credentials please')).reason).toContain('protected_path_read');
    expect((await claudePrompt(`see @fs:file://${join(ws, 'src/app.ts')}`)).answer).toBe('none');
  });
});

describe('E: a search glob that cannot select a protected file does not read it', () => {
  it('Grep with a positive glob leaves out protected files whose names it cannot match', async () => {
    // Not a git repository: ripgrep ignores nothing here, so without a glob .env and .svc/keys are read.
    expect((await claude('Grep', { pattern: 'TODO' })).answer).toBe('deny');
    expect((await claude('Grep', { pattern: 'TODO', glob: '*.ts' })).answer).toBe('none');
    expect((await claude('Grep', { pattern: 'TODO', glob: '**/*.{ts,tsx}' })).answer).toBe('none');
    expect((await copilot('grep', { pattern: 'TODO', glob: '*.ts' })).answer).toBe('none');
  });

  it('a glob that could select them still reads them', async () => {
    for (const glob of ['*.env', '.env*', '*', '**/*', '!*.md', '{src/*.ts,.env}', '*.key']) {
      expect((await claude('Grep', { pattern: 'TODO', glob })).answer, glob).toBe('deny');
    }
  });
});

// A second audit: Grep globs ripgrep reads differently, and MCP commands and paths under other shapes.
describe('Grep globs whose globset reading picomatch may not share keep the read', () => {
  it.each(['.e\\nv', '.en[v/]', '.[!x]nv', '.[^x]nv', '{.env}', '.{env}', '.e{n}v', '*.ts .env', '*.ts\t.env', '*.ts,.env'])('%j', async (glob) => {
    expect((await claude('Grep', { pattern: 'TODO', glob })).answer).toBe('deny');
  });

  it('ordinary globs still leave .env out', async () => {
    for (const glob of ['*.ts', '**/*.{ts,tsx}', 'src/*.[jt]s', '*.{js,ts}']) {
      expect((await claude('Grep', { pattern: 'TODO', glob })).answer, glob).toBe('none');
    }
  });
});

describe('MCP commands under other shapes', () => {
  it.each([
    ['mcp__x__execute_command', { command: 'cat', args: ['.env'] }],
    ['mcp__x__run', { command: 'cat .env' }],
    ['mcp__x__run_script', { script: 'cat .env' }],
    ['mcp__x__execute_code', { language: 'bash', code: 'cat .env' }],
    ['mcp__x__execute_command', { Command: 'cat .env' }],
    ['mcp__x__exec', { cmd: ['cat', '.env'] }],
  ])('%s %j reads .env', async (tool, input) => {
    expect((await claude(tool, input)).reason).toContain('protected_path_read');
  });

  it('ordinary commands and code in other languages stay as they were', async () => {
    expect((await claude('mcp__x__execute_command', { command: 'ls', args: ['src'] })).answer).toBe('none');
    expect((await claude('mcp__x__run', { command: 'ls src' })).answer).toBe('none');
    expect((await claude('mcp__x__execute_code', { language: 'python', code: 'print(1)' })).answer).toBe('none');
    expect((await claude('mcp__x__run_query', { command: 'cat .env' })).answer).toBe('none');
  });
});

describe('MCP paths under other shapes', () => {
  it.each([
    ['mcp__x__read_file', { name: '.env' }],
    ['mcp__x__read', { paths: [{ p: '.env' }] }],
    ['mcp__git__git_show', { sha: 'HEAD:.env' }],
    ['mcp__x__search', { pattern: 'KEY', cwd: '<ws>' }],
    ['mcp__x__search_code', { query: 'KEY', projectRoot: '<ws>' }],
    ['mcp__x__grep', { pattern: 'KEY', workspace: '<ws>' }],
  ])('%s %j reads a protected file', async (tool, input) => {
    const placed = JSON.parse(JSON.stringify(input).replaceAll('<ws>', ws)) as Record<string, unknown>;
    expect((await claude(tool, placed)).reason).toContain('protected_path_read');
  });

  it('a file tool writing a name writes it', async () => {
    expect((await claude('mcp__x__save', { name: '.git/config', content: 'x' })).reason).toContain('protected_path_write');
    expect((await claude('mcp__x__write_file', { name: 'svc.yml', content: 'x' })).reason).toContain('protected_path_write');
  });

  it('ordinary names, contents and searches stay as they were', async () => {
    expect((await claude('mcp__x__read_file', { name: 'src/app.ts' })).answer).toBe('none');
    expect((await claude('mcp__x__write_files', { files: [{ path: 'src/b.ts', content: '.env' }] })).answer).toBe('none');
    expect((await claude('mcp__memory__create_entities', { entities: [{ name: '.env', entityType: 'x' }] })).answer).toBe('none');
    expect((await claude('mcp__x__search', { pattern: 'KEY', cwd: join(ws, 'src') })).answer).toBe('none');
    expect((await claude('mcp__git__git_log', { sha: 'HEAD' })).answer).toBe('none');
  });
});

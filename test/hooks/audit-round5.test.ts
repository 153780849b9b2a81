import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { svc } from '../support/proxy.js';

/**
 * Audit round 5: Grep globs ripgrep reads differently, and MCP commands and paths under other shapes: each runs the real
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

const claude = (toolName: string, toolInput: Record<string, unknown>) => hook('claude-code', { session_id: 's', cwd: ws, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: toolName, tool_input: toolInput });

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-audit-round5-'));
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

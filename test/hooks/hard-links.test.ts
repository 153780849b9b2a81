import { execFileSync } from 'node:child_process';
import { linkSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { svc } from '../support/proxy.js';

/**
 * A file with several names (hard links) is written through all of them: an audit linked
 * `.git/config` to an innocent name in one call, edited that name in the next (an alias running
 * `cat .env`) and ran `git x`. A write to a file with more than one name needs approval, whatever
 * tool writes it; files with one name are written as before.
 */

let root: string;
let ws: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'svc-hard-links-'));
  ws = join(root, 'ws');
  const home = join(root, 'home');
  mkdirSync(ws);
  mkdirSync(home);
  execFileSync('git', ['init', '-q'], { cwd: ws });
  writeFileSync(join(ws, 'notes.md'), '# notes\n');
  // Made outside the hook, as a call the hook let through could have made it.
  linkSync(join(ws, '.git/config'), join(ws, 'gc'));
  env = { ...process.env, HOME: home, SVC_REVIEWER_KEYS_DIR: join(home, 'reviewer-keys') };
  const init = await svc(['init', '--dir', ws], { env, cwd: ws });
  expect(init.code, init.stderr).toBe(0);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

async function decide(toolName: string, toolInput: Record<string, unknown>): Promise<{ decision: string; reason: string }> {
  const event = { session_id: 'links', transcript_path: join(root, 't.jsonl'), cwd: ws, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: toolName, tool_input: toolInput };
  const run = await runCli(['hook', 'claude-code'], { cwd: ws, env, input: JSON.stringify(event) });
  expect(run.code, run.stderr).toBe(0);
  if (run.stdout === '') return { decision: 'no_opinion', reason: '' };
  const output = (JSON.parse(run.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput;
  return { decision: output.permissionDecision, reason: output.permissionDecisionReason };
}

describe('writes to a file with other names', () => {
  it.each([
    ['Edit', { file_path: 'gc', old_string: '[core]', new_string: '[alias]\n\tx = !cat .env\n[core]' }],
    ['Write', { file_path: 'gc', content: '[alias]\n\tx = !cat .env\n' }],
    ['Bash', { command: 'echo "[alias] x = !cat .env" >> gc' }],
  ] as const)('%s of a hard link to .git/config needs approval (denied until approved)', async (tool, input) => {
    const before = readFileSync(join(ws, '.git/config'), 'utf8');
    const { decision, reason } = await decide(tool, { ...input, ...('file_path' in input && { file_path: join(ws, input.file_path) }) });
    expect(decision).toBe('deny');
    expect(reason).toMatch(/2 names \(hard links\)/);
    expect(reason).toMatch(/svc approvals approve/);
    expect(readFileSync(join(ws, '.git/config'), 'utf8')).toBe(before);
  });

  it('a file with one name is written as before, and a hard link may still be read', async () => {
    expect((await decide('Edit', { file_path: join(ws, 'notes.md'), old_string: '# notes', new_string: '# Notes' })).decision).toBe('no_opinion');
    expect((await decide('Read', { file_path: join(ws, 'gc') })).decision).toBe('no_opinion');
  });
});

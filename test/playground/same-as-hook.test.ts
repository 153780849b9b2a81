/**
 * The command box decides like `svc hook claude-code`: the same commands, sent as Claude Code
 * PreToolUse events to the real CLI over the playground's own svc.yml, workspace and home, get the
 * same permission decision with the same reason codes as `POST /api/playground` answers.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPlaygroundApp, type PlaygroundApp } from '../../src/playground/server.js';

const CLI = join(import.meta.dirname, '../../dist/src/cli/main.js');

let playground: PlaygroundApp;

beforeAll(async () => {
  playground = await buildPlaygroundApp({ rateLimit: false });
});

afterAll(async () => {
  await playground?.close();
});

function hook(stdin: string, home: string): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'hook', 'claude-code', '--config', join(playground.sandbox.workspace, 'svc.yml')], { env: { ...process.env, HOME: home }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout }));
    child.stdin.end(stdin);
  });
}

/** The permission decision and the reason codes ([code] in the reason) of Claude Code's answer. */
function verdict(stdout: string): { decision: string; codes: string[] } {
  if (stdout.trim() === '') return { decision: 'none', codes: [] };
  const parsed = JSON.parse(stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
  const reason = parsed.hookSpecificOutput.permissionDecisionReason;
  return { decision: parsed.hookSpecificOutput.permissionDecision, codes: [...reason.matchAll(/\[([a-z][a-z0-9_, ]*)\]/g)].flatMap((match) => (match[1] as string).split(', ')) };
}

describe('POST /api/playground and svc hook claude-code', () => {
  const commands = ['cp .env /tmp/x', 'cat .env | base64', 'grep -r KEY .', 'cat ~/.ssh/id_ed25519', 'git push origin main', 'ls -la src', 'cat src/app.ts', 'echo $(', 'tar czf /tmp/all.tgz .'];
  it('give the same decision and reason codes for the same command', async () => {
    for (const command of commands) {
      const answer = (await playground.app.inject({ method: 'POST', url: '/api/playground', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ command }) })).json() as { hookOutput: { stdout: string } };
      const event = JSON.stringify({ session_id: 'playground', cwd: playground.sandbox.workspace, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } });
      const cli = await hook(event, playground.sandbox.home);
      expect(cli.code).toBe(0);
      expect({ command, ...verdict(answer.hookOutput.stdout) }).toEqual({ command, ...verdict(cli.stdout) });
    }
  });
});

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, closeSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli, type CliResult } from '../support/cli.js';

/**
 * How `svc hook` meets its stdin and stdout (src/cli/hook-entry.ts): stdin is read synchronously,
 * and as a stream only when it is non-blocking and has nothing yet; stdout is built only when there
 * is something to write, and a reader that stops early is not an error.
 */
describe('svc hook stdin and stdout', () => {
  let root: string;
  let ws: string;
  let env: NodeJS.ProcessEnv;

  const event = (command: string): string =>
    JSON.stringify({ session_id: 'stdio', transcript_path: join(root, 't.jsonl'), cwd: ws, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } });

  /** Runs `svc hook claude-code` with `input` on stdin (or what `onStdin` writes), collecting its output unless `onStdout` takes the stream. */
  function runHook(stdin: 'pipe' | number, input?: string, onStdout?: (stdout: Readable) => void, nodeArgs: string[] = [], onStdin?: (stdin: Writable) => void): Promise<CliResult> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [...nodeArgs, CLI, 'hook', 'claude-code'], { cwd: ws, env, stdio: [stdin, 'pipe', 'pipe'] });
      if (child.stdout === null || child.stderr === null) throw new Error('spawned without pipes');
      let stdout = '';
      let stderr = '';
      if (onStdout) onStdout(child.stdout);
      else child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      if (child.stdin !== null) {
        if (onStdin) onStdin(child.stdin);
        else child.stdin.end(input ?? '');
      }
    });
  }

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'svc-hook-stdio-'));
    ws = join(root, 'ws');
    mkdirSync(ws);
    mkdirSync(join(root, 'home'));
    writeFileSync(join(ws, '.env'), 'API_KEY=sk-live-123\n');
    env = { ...process.env, HOME: join(root, 'home'), SVC_REVIEWER_KEYS_DIR: join(root, 'home/reviewer-keys') };
    const init = await runCli(['init', '--dir', ws], { cwd: ws, env });
    expect(init.code, init.stderr).toBe(0);
  });

  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('reads an event from a pipe and from a file alike', async () => {
    const piped = await runHook('pipe', event('cat .env'));
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toContain('protected_path_read');

    const file = join(root, 'event.json');
    writeFileSync(file, event('cat .env'));
    const fd = openSync(file, 'r');
    try {
      const fromFile = await runHook(fd);
      expect(fromFile.code, fromFile.stderr).toBe(0);
      // The same answer but for the ledger seq of the decision.
      const withoutSeq = (text: string): string => text.replace(/svc ledger seq \d+/, 'svc ledger seq N');
      expect(withoutSeq(fromFile.stdout)).toBe(withoutSeq(piped.stdout));
    } finally {
      closeSync(fd);
    }
  });

  it('reads a non-blocking stdin that has nothing yet as a stream, to its end', async () => {
    // libuv gives a child blocking stdio, so the child makes its stdin non-blocking itself before
    // the hook runs (opening a pipe handle on it does that); its first read finds nothing (EAGAIN)
    // until the event arrives, in two parts, after it started.
    const preload = join(root, 'non-blocking-stdin.cjs');
    writeFileSync(preload, "new (require('node:net').Socket)({ fd: 0, readable: false, writable: false });\n");
    let stdin: Writable | undefined;
    const run = runHook('pipe', undefined, undefined, ['--require', preload], (child) => (stdin = child));
    const text = event('cat .env');
    await new Promise((resolve) => setTimeout(resolve, 500));
    stdin?.write(text.slice(0, 40));
    await new Promise((resolve) => setTimeout(resolve, 50));
    stdin?.end(text.slice(40));
    const answer = await run;
    expect(answer.code, answer.stderr).toBe(0);
    expect(answer.stdout).toContain('protected_path_read');
  });

  it('exits quietly with its answer\'s status when the reader of stdout has gone', async () => {
    const answer = await runHook('pipe', event('cat .env'), (stdout) => stdout.destroy());
    expect(answer.stderr).toBe('');
    expect(answer.code).toBe(0);
  });
});

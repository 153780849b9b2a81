import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { isAlive } from '../../src/events/process-alive.js';
import { Enforcer } from '../../src/proxy/enforcer.js';
import { CLI, runCli } from '../support/cli.js';

/**
 * `hooks.residentProxy` (opt-in): a hook that decided locally starts `svc proxy --idle-exit` for
 * the workspace in the background, the calls after it are forwarded to that proxy, and the proxy
 * exits cleanly once idle. Also `svc proxy --idle-exit` itself. Every process here is real: the
 * CLI as a child process, the detached proxy it starts, the ledger on disk.
 */
let root: string;
let home: string;
let env: NodeJS.ProcessEnv;
const started: number[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-resident-'));
  home = join(root, 'home');
  await mkdir(home);
  env = { ...process.env, HOME: home, SVC_REVIEWER_KEYS_DIR: join(home, 'reviewer-keys') };
});

afterAll(async () => {
  // A failed test must not leave a detached proxy behind.
  for (const pid of started) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  await rm(root, { recursive: true, force: true });
});

/** A workspace made by `svc init`, with `hooks:` extended by `hooksExtra` (YAML lines, indented two spaces). */
async function workspace(name: string, hooksExtra: string[]): Promise<string> {
  const ws = join(root, name);
  await mkdir(join(ws, 'src'), { recursive: true });
  await writeFile(join(ws, 'src/app.ts'), 'export const answer = 42;\n');
  const init = await runCli(['init', '--dir', ws], { env });
  expect(init.code, init.stderr).toBe(0);
  const config = join(ws, 'svc.yml');
  await writeFile(config, (await readFile(config, 'utf8')).replace('hooks:\n', `hooks:\n${hooksExtra.map((line) => `  ${line}\n`).join('')}`));
  return ws;
}

function bashEvent(ws: string, command: string): string {
  return JSON.stringify({ session_id: 'resident', transcript_path: join(ws, 't.jsonl'), cwd: ws, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } });
}

async function hookJson(ws: string, command: string): Promise<{ mode: string; decision: string }> {
  const run = await runCli(['hook', 'claude-code', '--json'], { cwd: ws, env, input: bashEvent(ws, command) });
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { mode: string; decision: string };
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The live proxy serving the workspace, from `.svc/proxy.json`. */
async function liveProxy(ws: string): Promise<{ url: string; pid: number } | undefined> {
  const text = await readFile(join(ws, '.svc', 'proxy.json'), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const address = JSON.parse(text) as { url: string; pid: number };
  if (!started.includes(address.pid)) started.push(address.pid);
  return isAlive(address.pid) ? address : undefined;
}

/** Pids of every `svc proxy` process started for this workspace's svc.yml (Linux: /proc). */
async function proxiesServing(ws: string): Promise<number[]> {
  const config = join(ws, 'svc.yml');
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const argv = (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (argv.includes('proxy') && argv.includes(config)) pids.push(Number(entry));
  }
  return pids;
}

describe('svc proxy --idle-exit', () => {
  it('stays up while requests come, then exits cleanly once idle, removing its address files', async () => {
    const ws = await workspace('idle', []);
    const proxy = spawn(process.execPath, [CLI, 'proxy', '--config', join(ws, 'svc.yml'), '--port', '0', '--json', '--idle-exit', '1s'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    proxy.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => proxy.once('exit', resolve));
    const { url } = JSON.parse(await new Promise<string>((resolve) => proxy.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8'))))) as { url: string };
    started.push(proxy.pid as number);

    // Two and a half idle periods of requests: it is still serving.
    const busyUntil = Date.now() + 2_500;
    while (Date.now() < busyUntil) {
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(isAlive(proxy.pid as number)).toBe(true);

    expect(await exited).toBe(0);
    expect(stderr).toContain('no request for 1s, exiting');
    expect(existsSync(join(ws, '.svc', 'proxy.json'))).toBe(false);
    expect(existsSync(join(ws, '.svc', 'ledger.jsonl.proxy.json'))).toBe(false);
    const verified = await runCli(['verify-export', join(ws, '.svc', 'ledger.jsonl')], { env });
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
  });

  it('--wait-for-ledger waits for a writer that holds the ledger; without it the proxy fails at once', async () => {
    const ws = await workspace('wait', []);
    const config = join(ws, 'svc.yml');
    const holder = await Enforcer.open(await loadConfig(config), { signer: 'in-thread' });
    const impatient = await runCli(['proxy', '--config', config, '--port', '0'], { env });
    expect(impatient.code).toBe(2);
    expect(impatient.stderr).toContain('[ledger_locked]');

    const proxy = spawn(process.execPath, [CLI, 'proxy', '--config', config, '--port', '0', '--json', '--idle-exit', '1s', '--wait-for-ledger', '20s'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    started.push(proxy.pid as number);
    const exited = new Promise<number | null>((resolve) => proxy.once('exit', resolve));
    const listening = new Promise<string>((resolve) => proxy.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8'))));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(isAlive(proxy.pid as number)).toBe(true);
    await holder.close();
    expect(JSON.parse(await listening)).toMatchObject({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
    expect(await exited).toBe(0);
  });

  it('refuses a duration it cannot read, before opening anything', async () => {
    const ws = await workspace('bad-duration', []);
    for (const [flag, value] of [['--idle-exit', '5x'], ['--wait-for-ledger', '90']]) {
      const run = await runCli(['proxy', '--config', join(ws, 'svc.yml'), '--port', '0', flag as string, value as string], { env });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`${flag} ${value} is not a duration`);
    }
    expect(existsSync(join(ws, '.svc', 'ledger.jsonl'))).toBe(false);
  });
});

describe('svc hook with hooks.residentProxy', () => {
  it('decides the first call locally and starts a proxy; the next calls go to it until it has been idle', async () => {
    const ws = await workspace('resident', ['residentProxy:', '  idleExit: 5s']);
    expect(await hookJson(ws, 'ls src')).toMatchObject({ mode: 'local', decision: 'no_opinion' });
    const proxy = await waitFor('the resident proxy', () => liveProxy(ws));

    expect(await hookJson(ws, 'cat src/app.ts')).toMatchObject({ mode: 'proxy', decision: 'no_opinion' });
    expect(await hookJson(ws, 'cat .env')).toMatchObject({ mode: 'proxy', decision: 'deny' });

    // Idle for 5 s (long enough for a slow machine to start the calls above): it exits.
    await waitFor('the idle proxy to exit', async () => (isAlive(proxy.pid) || existsSync(join(ws, '.svc', 'proxy.json')) ? undefined : true));
    const log = await readFile(join(ws, '.svc', 'resident-proxy.log'), 'utf8');
    expect(log).toContain(`svc proxy listening on ${proxy.url}`);
    expect(log).toContain('no request for 5s, exiting');
    const verified = await runCli(['verify-export', join(ws, '.svc', 'ledger.jsonl')], { env });
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    const ledger = await readFile(join(ws, '.svc', 'ledger.jsonl'), 'utf8');
    expect(ledger.split('\n').filter((line) => line.includes('"type":"policy.decided"')).length).toBeGreaterThanOrEqual(3);
  });

  it('starts one proxy for calls that arrive together', async () => {
    const ws = await workspace('together', ['residentProxy:', '  idleExit: 5s']);
    const answers = await Promise.all(['ls', 'ls src', 'cat src/app.ts', 'wc -l src/app.ts'].map((command) => hookJson(ws, command)));
    for (const answer of answers) expect(answer.decision).toBe('no_opinion');
    const proxy = await waitFor('the resident proxy', () => liveProxy(ws));
    expect(await proxiesServing(ws)).toEqual([proxy.pid]);
    expect(await hookJson(ws, 'ls')).toMatchObject({ mode: 'proxy' });
    await waitFor('the idle proxy to exit', async () => (isAlive(proxy.pid) ? undefined : true));
    expect(await proxiesServing(ws)).toEqual([]);
  });

  it('logs what the started proxy says, such as why it could not start, and the hook still decides', async () => {
    const ws = await workspace('unstartable', ['residentProxy:', '  idleExit: 3s']);
    const config = join(ws, 'svc.yml');
    // The hook binds nothing, so only the proxy refuses a host that is not loopback.
    await writeFile(config, `${await readFile(config, 'utf8')}\nproxy:\n  host: 0.0.0.0\n`);
    expect(await hookJson(ws, 'ls src')).toMatchObject({ mode: 'local', decision: 'no_opinion' });
    const log = join(ws, '.svc', 'resident-proxy.log');
    const text = await waitFor('the start failure in the log', async () => {
      const logged = await readFile(log, 'utf8').catch(() => '');
      return logged.includes('[bind_not_loopback]') ? logged : undefined;
    });
    expect(text).toContain('0.0.0.0');
    expect(await hookJson(ws, 'ls')).toMatchObject({ mode: 'local', decision: 'no_opinion' });
    expect(existsSync(join(ws, '.svc', 'proxy.json'))).toBe(false);
  });

  it('starts nothing without the option', async () => {
    const ws = await workspace('plain', []);
    expect(await hookJson(ws, 'ls src')).toMatchObject({ mode: 'local' });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(existsSync(join(ws, '.svc', 'proxy.json'))).toBe(false);
    expect(existsSync(join(ws, '.svc', 'proxy.starting'))).toBe(false);
  });

  it('fails closed on an idleExit it cannot read', async () => {
    const ws = await workspace('bad-config', ['residentProxy:', '  idleExit: soon']);
    const run = await runCli(['hook', 'claude-code'], { cwd: ws, env, input: bashEvent(ws, 'ls') });
    expect(run.code).toBe(0);
    const output = JSON.parse(run.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
    expect(output.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(output.hookSpecificOutput.permissionDecisionReason).toContain('idleExit is a duration such as 30s, 15m, 1h or 7d');
  });
});

import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config/load-config.js';
import { Enforcer } from '../src/proxy/enforcer.js';
import { fmtInt, fmtNum, now, seconds, table, target, type Benchmark, type BenchResult } from './lib.js';

/**
 * Wall time of one `svc hook claude-code` invocation for a typical Bash command, as Claude Code
 * pays it before every tool call: a new node process, the event on stdin, the decision recorded
 * in the ledger, the answer on stdout. The baseline is `node -e 0` measured in the same run,
 * interleaved with the hook runs so drift hits both. Measured without a proxy (the hook opens
 * the ledger itself), with `svc proxy` running for the workspace, and with the proxy that
 * `hooks.residentProxy` makes the first call start. The typical line is one the hook reads
 * without loading the bash grammar; the same line with a quoted word, which needs it, is measured
 * beside it. Two more baselines show what the local hook's two caches save: the engine's V8 code
 * cache (a copy of the build without it) and the ledger's resume point (removed before each
 * call, on a ledger with a long history). Where the environment sets NODE_EXTRA_CA_CERTS, which
 * every node process parses as it starts, the local pair is measured without it too.
 */
const CLI = fileURLToPath(new URL('../src/cli/svc.cjs', import.meta.url));
const DIST_SRC = fileURLToPath(new URL('../src/', import.meta.url));
const NODE_MODULES = fileURLToPath(new URL('../../node_modules/', import.meta.url));

function timeProcess(args: string[], input: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ ms: number; stdout: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const started = now();
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ ms: seconds(started) * 1000, stdout, code }));
    child.stdin.end(input);
  });
}

/** Decides `records` / 3 file reads in this process, as earlier hook calls would have (three records each). */
async function appendHistory(configFile: string, records: number): Promise<void> {
  const enforcer = await Enforcer.open(await loadConfig(configFile), { signer: 'in-thread' });
  try {
    for (let index = 0; index < records / 3; index += 1) {
      const path = join(dirname(configFile), 'src', `history-${index}.ts`);
      const action = { schemaVersion: 'svc.action.v0', actor: { agentId: 'agent:claude-code', runtime: 'claude-code' }, intent: { taskId: 'task:bench-history' }, capability: { tool: 'fs.file.read', resource: `file:${path}`, payload: { path, operation: 'read', command: `cat ${path}` } } };
      await enforcer.authorize(action, { source: 'hook' });
    }
  } finally {
    await enforcer.close();
  }
}

/** The built package copied without the hook engine's V8 code cache, for the baseline of what the cache saves. */
async function cliWithoutCodeCache(root: string): Promise<string> {
  const copy = join(root, 'no-code-cache');
  await cp(DIST_SRC, join(copy, 'dist', 'src'), { recursive: true, filter: (source) => !source.endsWith('.v8cache') && !source.endsWith('.map') });
  await writeFile(join(copy, 'package.json'), '{ "type": "module" }\n');
  await symlink(NODE_MODULES, join(copy, 'node_modules'), 'dir');
  return join(copy, 'dist', 'src', 'cli', 'svc.cjs');
}

/** Runs `work` while `svc proxy` (started with `args`) serves the workspace, then stops it cleanly. */
async function withProxy<T>(args: string[], env: NodeJS.ProcessEnv, work: () => Promise<T>): Promise<T> {
  const proxy = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    await new Promise<void>((resolve, reject) => {
      proxy.stdout.once('data', () => resolve());
      proxy.once('exit', (code) => reject(new Error(`svc proxy exited ${code}`)));
    });
    return await work();
  } finally {
    // Wait for the clean stop: it removes its address files and writes a checkpoint.
    const exited = new Promise((resolve) => proxy.once('exit', resolve));
    proxy.kill('SIGTERM');
    await exited;
  }
}

/**
 * With `hooks.residentProxy` on: the first call decides locally and starts a proxy in the
 * background; the calls after it, measured here, are forwarded to it. The proxy is stopped after.
 */
async function measureResident(runs: number, event: string, ws: string, env: NodeJS.ProcessEnv): Promise<{ node: number; hook: number; answer: string }> {
  const config = join(ws, 'svc.yml');
  await writeFile(config, (await readFile(config, 'utf8')).replace('hooks:\n', 'hooks:\n  residentProxy:\n    idleExit: 10m\n'));
  await measure(1, event, ws, env);
  const addressFile = join(ws, '.svc', 'proxy.json');
  const deadline = Date.now() + 30_000;
  while (!existsSync(addressFile)) {
    if (Date.now() > deadline) throw new Error('hooks.residentProxy started no proxy within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const { pid } = JSON.parse(await readFile(addressFile, 'utf8')) as { pid: number };
  try {
    await measure(2, event, ws, env);
    return await measure(runs, event, ws, env);
  } finally {
    process.kill(pid, 'SIGTERM');
    // Its clean stop removes the address file; a proxy that does not stop must not hang the bench.
    const stopBy = Date.now() + 30_000;
    while (existsSync(addressFile)) {
      if (Date.now() > stopBy) throw new Error(`the resident proxy (pid ${pid}) did not stop within 30 s of SIGTERM`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function measure(runs: number, event: string, ws: string, env: NodeJS.ProcessEnv, beforeEach?: () => Promise<void>, cli = CLI): Promise<{ node: number; hook: number; answer: string }> {
  const node: number[] = [];
  const hook: number[] = [];
  let answer = '';
  for (let index = 0; index < runs; index += 1) {
    node.push((await timeProcess(['-e', '0'], '', ws, env)).ms);
    await beforeEach?.();
    const run = await timeProcess([cli, 'hook', 'claude-code'], event, ws, env);
    if (run.code !== 0) throw new Error(`svc hook exited ${run.code}`);
    answer = run.stdout;
    hook.push(run.ms);
  }
  return { node: median(node), hook: median(hook), answer };
}

export const benchmark: Benchmark = {
  name: 'hook',
  description: '`svc hook claude-code` wall time per invocation (a Bash command with two file operations) vs `node -e 0`',
  async run(options): Promise<BenchResult> {
    const root = await mkdtemp(join(options.outDir, 'hook-'));
    const ws = join(root, 'ws');
    const home = join(root, 'home');
    await mkdir(join(ws, 'src'), { recursive: true });
    await mkdir(home, { recursive: true });
    await writeFile(join(ws, 'src/app.ts'), 'export const answer = 42;\n');
    await writeFile(join(ws, '.env'), 'KEY=1\n');
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, SVC_REVIEWER_KEYS_DIR: join(home, 'reviewer-keys') };
    const init = spawnSync(process.execPath, [CLI, 'init', '--dir', ws], { env, encoding: 'utf8' });
    if (init.status !== 0) throw new Error(`svc init failed: ${init.stderr}`);
    // A typical call: one command, a read and a write, no opinion (nothing printed).
    const bash = (command: string): string => JSON.stringify({ session_id: 'bench', transcript_path: join(home, 't.jsonl'), cwd: ws, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } });
    const event = bash('grep -n answer src/app.ts > /tmp/svc-bench-out.txt');
    // The typical line is in the language the hook reads without the bash grammar
    // (plain-command-tree.ts); the same with a quoted word needs it.
    const grammarEvent = bash('grep -n "an answer" src/app.ts > /tmp/svc-bench-out.txt');
    const runs = options.quick ? 8 : 30;
    try {
      await measure(2, event, ws, env); // warm the page cache and create keys and ledger
      const local = await measure(runs, event, ws, env);
      // Node parses the CA bundle NODE_EXTRA_CA_CERTS names as every process starts, before any
      // script runs, so where the environment sets it (this machine does) it is in both figures
      // above and flatters their ratio; the same pair without it shows the ratio where it is not set.
      const { NODE_EXTRA_CA_CERTS: extraCaCerts, ...envWithoutExtraCaCerts } = env;
      const withoutExtraCaCerts = extraCaCerts === undefined ? undefined : await measure(runs, event, ws, envWithoutExtraCaCerts);
      const grammarLine = await measure(runs, grammarEvent, ws, env);
      const withoutCache = await measure(runs, event, ws, env, undefined, await cliWithoutCodeCache(root));
      if (withoutCache.answer !== local.answer) throw new Error(`the hook without its code cache answered ${JSON.stringify(withoutCache.answer)}, with it ${JSON.stringify(local.answer)}`);

      // A workspace used for weeks: the ledger holds a long history of earlier calls. The hook
      // reopens it from its resume point; the baseline removes the point before each call, which
      // makes the hook check and fold the whole history as it did before resume points.
      const historyRecords = options.quick ? 5_000 : 20_000;
      await appendHistory(join(ws, 'svc.yml'), historyRecords);
      await measure(1, event, ws, env);
      const longHistory = await measure(runs, event, ws, env);
      const resumeFile = join(ws, '.svc', 'ledger.jsonl.resume');
      const fullScan = await measure(options.quick ? 3 : 5, event, ws, env, () => rm(resumeFile, { force: true }));

      const viaProxy = await withProxy([CLI, 'proxy', '--config', join(ws, 'svc.yml'), '--port', '0', '--json'], env, async () => {
        await measure(2, event, ws, env);
        return measure(runs, event, ws, env);
      });
      const resident = await measureResident(runs, event, ws, env);
      const rows = [
        ['node -e 0 (baseline)', fmtNum(local.node, 1), '1.00'],
        ['svc hook, deciding locally', fmtNum(local.hook, 1), fmtNum(local.hook / local.node)],
        ['  same, with a quoted word (needs the bash grammar)', fmtNum(grammarLine.hook, 1), fmtNum(grammarLine.hook / grammarLine.node)],
        ['  same, engine compiled without its code cache (baseline)', fmtNum(withoutCache.hook, 1), fmtNum(withoutCache.hook / withoutCache.node)],
        [`  same, ledger of ${fmtInt(historyRecords)}+ records`, fmtNum(longHistory.hook, 1), fmtNum(longHistory.hook / longHistory.node)],
        [`  same, without the resume point (baseline)`, fmtNum(fullScan.hook, 1), fmtNum(fullScan.hook / fullScan.node)],
        ...(withoutExtraCaCerts
          ? [
              ['node -e 0 without NODE_EXTRA_CA_CERTS (baseline)', fmtNum(withoutExtraCaCerts.node, 1), '1.00'],
              ['svc hook, deciding locally, without it', fmtNum(withoutExtraCaCerts.hook, 1), fmtNum(withoutExtraCaCerts.hook / withoutExtraCaCerts.node)],
            ]
          : []),
        ['node -e 0 (baseline, proxy run)', fmtNum(viaProxy.node, 1), '1.00'],
        ['svc hook, asking the proxy', fmtNum(viaProxy.hook, 1), fmtNum(viaProxy.hook / viaProxy.node)],
        ['svc hook, hooks.residentProxy (after the first call)', fmtNum(resident.hook, 1), fmtNum(resident.hook / resident.node)],
      ];
      console.log(table(['median of ' + runs, 'ms', '× node'], rows));
      const caNote = withoutExtraCaCerts && `NODE_EXTRA_CA_CERTS is set (${extraCaCerts}): every node process parses that CA bundle as it starts, ${fmtNum(local.node - withoutExtraCaCerts.node, 1)} ms of node -e 0 here; the targets use the environment as it is`;
      if (caNote) console.log(`  ${caNote}`);
      return {
        name: 'hook',
        metrics: [
          { label: 'node -e 0', value: local.node, unit: 'ms' },
          { label: 'svc hook (local)', value: local.hook, unit: 'ms' },
          ...(withoutExtraCaCerts
            ? [
                { label: 'node -e 0 (without NODE_EXTRA_CA_CERTS)', value: withoutExtraCaCerts.node, unit: 'ms' },
                { label: 'svc hook (local, without NODE_EXTRA_CA_CERTS)', value: withoutExtraCaCerts.hook, unit: 'ms' },
              ]
            : []),
          { label: 'svc hook (local, line needing the bash grammar)', value: grammarLine.hook, unit: 'ms' },
          { label: 'svc hook (local, no code cache)', value: withoutCache.hook, unit: 'ms' },
          { label: `svc hook (local, ${historyRecords}-record history)`, value: longHistory.hook, unit: 'ms' },
          { label: `svc hook (local, ${historyRecords}-record history, no resume point)`, value: fullScan.hook, unit: 'ms' },
          { label: 'svc hook (proxy)', value: viaProxy.hook, unit: 'ms' },
          { label: 'svc hook (resident proxy)', value: resident.hook, unit: 'ms' },
        ],
        targets: [
          target('hook without proxy / node -e 0', local.hook / local.node, '<=', 2, '×'),
          target('hook with proxy / node -e 0', viaProxy.hook / viaProxy.node, '<=', 2, '×'),
        ],
        notes: [
          `answers: local ${JSON.stringify(local.answer)}, quoted ${JSON.stringify(grammarLine.answer)}, proxy ${JSON.stringify(viaProxy.answer)}, resident proxy ${JSON.stringify(resident.answer)}`,
          ...(caNote ? [caNote] : []),
        ],
      };
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  },
};

import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { fmtInt, fmtNum, table, type BenchOptions, type BenchResult, type Benchmark, type Metric } from './lib.js';
import { measureLoad, startServer, type LoadRun, type LoadSettings, type ServerProcess } from './load.js';

/**
 * `POST /api/playground` of `svc playground` with the per-client window lifted, beside the bare
 * fastify JSON echo (bench/echo-server.ts) under the same autocannon load in the same run: each
 * server a child process, 50 connections, pipelining 1, rounds in which the targets take turns.
 * Each request is a shell command evaluated through the hook path (tree-sitter analysis, one
 * decision and ledger record per action, the command's own and one per file operation); the
 * commands cycle through a pool of 128 so consecutive payloads differ. Every answer must be a
 * decision (200): anything else makes the run invalid.
 */

const ECHO_SERVER = fileURLToPath(new URL('./echo-server.js', import.meta.url));
const PLAYGROUND_SERVER = fileURLToPath(new URL('./playground-server.js', import.meta.url));
const POOL = 128;

function settingsFor(quick: boolean): LoadSettings {
  return quick ? { connections: 50, pipelining: 1, warmupSeconds: 1, seconds: 3, rounds: 3 } : { connections: 50, pipelining: 1, warmupSeconds: 1, seconds: 10, rounds: 5 };
}

/** Three kinds of command in turn: a denied copy of .env, a read with a pipe, a plain listing. */
export function commandBody(n: number): string {
  const id = String(n).padStart(4, '0');
  const commands = [`cp .env /tmp/out-${id}`, `cat src/app.ts | grep -n hello${id}`, `ls -la src/dir${id}`];
  return JSON.stringify({ command: commands[n % commands.length] });
}

const BODIES = Array.from({ length: POOL }, (_, n) => commandBody(n));

function row(run: LoadRun, echo: LoadRun): string[] {
  if (run.invalid) return [run.label, 'INVALID', '', '', '', '', fmtNum(run.serverCpuPerRequest, 0)];
  return [run.label, fmtInt(run.rate), fmtNum(run.rate / echo.rate, 3), fmtNum(run.p50, 2), fmtNum(run.p99, 2), fmtNum(run.max, 1), fmtNum(run.serverCpuPerRequest, 0)];
}

export const benchmark: Benchmark = {
  name: 'playground',
  description: 'POST /api/playground requests/s and p99 (rate limit lifted) vs a bare fastify JSON echo under the same autocannon load',
  async run(options: BenchOptions): Promise<BenchResult> {
    const settings = settingsFor(options.quick);
    const servers: ServerProcess[] = [];
    try {
      const echo = await startServer([ECHO_SERVER]);
      servers.push(echo);
      const playground = await startServer([PLAYGROUND_SERVER]);
      servers.push(playground);
      const check = await fetch(`${playground.url}/api/playground`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: BODIES[0] });
      const checked = (await check.json()) as { decision?: string };
      if (check.status !== 200 || checked.decision !== 'deny') throw new Error(`POST /api/playground answered ${check.status} ${JSON.stringify(checked).slice(0, 300)}; expected a deny of cp .env`);
      console.log(`  autocannon in this process, each server a child process; ${settings.connections} connections, pipelining ${settings.pipelining}; ${settings.rounds} rounds, ${settings.seconds} s per target; ${POOL} commands in turn`);
      const [echoRun, playgroundRun] = (await measureLoad(
        [
          { label: 'fastify JSON echo (baseline)', url: echo.url, path: '/echo', bodies: BODIES, serverPid: echo.child.pid },
          { label: 'svc playground POST /api/playground', url: playground.url, path: '/api/playground', bodies: BODIES, serverPid: playground.child.pid },
        ],
        settings,
      )) as [LoadRun, LoadRun];
      console.log(table(['target', 'requests/s', 'vs echo', 'p50 ms', 'p99 ms', 'max ms', 'CPU µs/req'], [row(echoRun, echoRun), row(playgroundRun, echoRun)]));
      console.log(`  this machine has ${cpus().length} CPUs; the playground's answers include every action's payload, hashes and ledger record (${fmtInt(playgroundRun.responseBytes)} bytes per response)`);
      const notes = [`${settings.connections} connections, pipelining ${settings.pipelining}, ${settings.rounds} rounds, ${settings.seconds} s per target`];
      for (const run of [echoRun, playgroundRun]) if (run.invalid) notes.push(`INVALID ${run.label}: ${run.invalid}`);
      const metrics: Metric[] = [
        { label: 'echo requests/s', value: echoRun.invalid ? Number.NaN : echoRun.rate, unit: 'requests/s' },
        { label: 'echo latency p99', value: echoRun.p99, unit: 'ms' },
        { label: 'POST /api/playground requests/s', value: playgroundRun.invalid ? Number.NaN : playgroundRun.rate, unit: 'requests/s' },
        { label: 'POST /api/playground latency p50', value: playgroundRun.p50, unit: 'ms' },
        { label: 'POST /api/playground latency p99', value: playgroundRun.p99, unit: 'ms' },
        { label: 'POST /api/playground vs echo', value: playgroundRun.invalid || echoRun.invalid ? Number.NaN : playgroundRun.rate / echoRun.rate, unit: 'ratio' },
        { label: 'POST /api/playground server CPU per request', value: playgroundRun.serverCpuPerRequest, unit: 'µs' },
      ];
      return { name: this.name, metrics, targets: [], notes };
    } finally {
      for (const server of servers) await server.stop(5_000).catch(() => undefined);
    }
  },
};

// `node dist/bench/playground.js [--quick]` runs this benchmark alone.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await benchmark.run({ quick: process.argv.includes('--quick'), outDir: fileURLToPath(new URL('../../bench/out/', import.meta.url)) });
  console.log(JSON.stringify(result.metrics));
}

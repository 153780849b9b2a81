import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fmtInt, fmtNum, printTargets, table, target, type BenchOptions, type BenchResult, type Benchmark } from './lib.js';

/**
 * `tools/call` latency through `svc mcp serve` beside calling the same upstream directly, in the
 * same run: the reference everything server (stdio) and its `echo` tool, one official SDK client
 * per path, calls one at a time (an agent waits for each result). Each call through the wrapper
 * is checked against its pin, decided by policy, gets an ActionPass verified again before it is
 * forwarded, and has its decision and outcome fdatasync'd into the ledger; the direct call does
 * none of that. The two paths take turns in rounds, so a slow spell of the machine hits both.
 * Every call must succeed, and the ledger must hold one succeeded execution per wrapped call.
 */

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SVC_CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const EVERYTHING = join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
/** At most 2 ms added at the median, in µs (bench/lib.ts prints targets as whole numbers). */
const ADDED_MEDIAN_GOAL_US = 2000;

interface Settings {
  warmup: number;
  rounds: number;
  callsPerRound: number;
}

function settingsFor(quick: boolean): Settings {
  return quick ? { warmup: 50, rounds: 4, callsPerRound: 100 } : { warmup: 200, rounds: 10, callsPerRound: 200 };
}

async function connect(command: string, args: string[]): Promise<Client> {
  const client = new Client({ name: 'svc-bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
  await client.listTools();
  return client;
}

/** Milliseconds of each of `count` sequential echo calls; throws on any failed call. */
async function callRound(client: Client, count: number, offset: number): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const start = performance.now();
    const result = await client.callTool({ name: 'echo', arguments: { message: `bench call ${offset + index}` } });
    times.push(performance.now() - start);
    if (result.isError) throw new Error(`the echo call failed: ${JSON.stringify(result).slice(0, 300)}`);
  }
  return times;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

async function succeededExecutions(ledger: string): Promise<number> {
  let count = 0;
  for (const line of (await readFile(ledger, 'utf8')).split('\n')) {
    if (line.includes('"type":"execution.completed"') && line.includes('"outcome":"succeeded"')) count += 1;
  }
  return count;
}

export const benchmark: Benchmark = {
  name: 'mcp-call',
  description: 'tools/call latency through svc mcp serve vs the same upstream called directly (everything server, echo)',
  async run(options: BenchOptions): Promise<BenchResult> {
    const settings = settingsFor(options.quick);
    const dir = join(options.outDir, `mcp-call-${process.pid}`);
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    const config = join(dir, 'svc.yml');
    await writeFile(
      config,
      `tenant: org:acme
mcp:
  servers:
    everything:
      command: ${JSON.stringify(process.execPath)}
      args: [${JSON.stringify(EVERYTHING)}, stdio]
policy:
  rules:
    - id: bench-echo
      when: { tool: mcp.everything.echo }
      decision: allow
`,
    );
    console.log(`  one SDK client per path, calls one at a time; ${settings.warmup} warm-up calls per path, then ${settings.rounds} rounds of ${settings.callsPerRound} calls per path in turn`);
    const direct = await connect(process.execPath, [EVERYTHING, 'stdio']);
    const wrapped = await connect(process.execPath, [SVC_CLI, 'mcp', 'serve', '--config', config]);
    const timings = { direct: [] as number[], wrapped: [] as number[] };
    try {
      await callRound(direct, settings.warmup, 0);
      await callRound(wrapped, settings.warmup, 0);
      for (let round = 0; round < settings.rounds; round += 1) {
        const offset = settings.warmup + round * settings.callsPerRound;
        const [first, second] = round % 2 === 0 ? (['direct', 'wrapped'] as const) : (['wrapped', 'direct'] as const);
        timings[first].push(...(await callRound(first === 'direct' ? direct : wrapped, settings.callsPerRound, offset)));
        timings[second].push(...(await callRound(second === 'direct' ? direct : wrapped, settings.callsPerRound, offset)));
      }
    } finally {
      await direct.close();
      await wrapped.close();
    }
    const wrappedCalls = settings.warmup + settings.rounds * settings.callsPerRound;
    const executions = await succeededExecutions(join(dir, '.svc/ledger.jsonl'));
    if (executions !== wrappedCalls) throw new Error(`the ledger holds ${executions} succeeded executions, expected ${wrappedCalls}: the figures are invalid`);
    await rm(dir, { recursive: true, force: true });

    const direct50 = quantile(timings.direct.sort((a, b) => a - b), 0.5);
    const direct99 = quantile(timings.direct, 0.99);
    const wrapped50 = quantile(timings.wrapped.sort((a, b) => a - b), 0.5);
    const wrapped99 = quantile(timings.wrapped, 0.99);
    const added50 = wrapped50 - direct50;
    console.log(
      table(
        ['path', 'calls', 'median ms', 'p99 ms'],
        [
          ['everything server, directly (baseline)', fmtInt(timings.direct.length), fmtNum(direct50, 3), fmtNum(direct99, 3)],
          ['through svc mcp serve', fmtInt(timings.wrapped.length), fmtNum(wrapped50, 3), fmtNum(wrapped99, 3)],
          ['added by svc', '', fmtNum(added50, 3), fmtNum(wrapped99 - direct99, 3)],
        ],
      ),
    );
    console.log(`  ledger: ${fmtInt(executions)} succeeded executions recorded, one per wrapped call`);
    const targets = [target('median added by svc mcp serve per tools/call', added50 * 1000, '<=', ADDED_MEDIAN_GOAL_US, 'µs')];
    printTargets(targets);
    return {
      name: 'mcp-call',
      metrics: [
        { label: 'direct tools/call median', value: direct50, unit: 'ms' },
        { label: 'direct tools/call p99', value: direct99, unit: 'ms' },
        { label: 'wrapped tools/call median', value: wrapped50, unit: 'ms' },
        { label: 'wrapped tools/call p99', value: wrapped99, unit: 'ms' },
        { label: 'added median', value: added50, unit: 'ms' },
      ],
      targets,
      notes: [`${settings.rounds} rounds x ${settings.callsPerRound} sequential calls per path after ${settings.warmup} warm-up calls`, 'everything server echo over stdio, SDK client'],
    };
  },
};

if (process.argv[1] !== undefined && import.meta.url === `file://${process.argv[1]}`) {
  const { BENCH_OUT } = await import('./lib.js');
  await benchmark.run({ quick: process.argv.includes('--quick'), outDir: BENCH_OUT });
}

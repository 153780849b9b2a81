import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { benchmark as hook } from './hook-invocation.js';
import { benchmark as ledgerAppend } from './ledger-append.js';
import { benchmark as mcpCall } from './mcp-call.js';
import { benchmark as playground } from './playground.js';
import { BENCH_OUT, fmtNum, formatTarget, now, seconds, table, type BenchResult, type Benchmark } from './lib.js';
import { benchmark as proxy } from './proxy-throughput.js';
import { benchmark as replay } from './replay.js';
import { benchmark as shellAnalysis } from './shell-analysis.js';
import { benchmark as verifyExport } from './verify-export.js';

/**
 * `npm run bench` / `node dist/bench/run.js [--quick] [--only <name>[,<name>]]`
 *
 * Runs every benchmark in sequence, prints each figure beside its same-run baseline and a
 * PASS/MISS line per target (a miss never fails the run), then a summary, and writes everything
 * to bench/out/results.json. Exits non-zero only when a benchmark could not run.
 */

const BENCHMARKS: Benchmark[] = [ledgerAppend, verifyExport, replay, proxy, shellAnalysis, hook, mcpCall, playground];

function parseArgs(argv: string[]): { quick: boolean; only: string[] | undefined } {
  let quick = false;
  let only: string[] | undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--quick') quick = true;
    else if (arg === '--only') {
      const value = argv[i + 1];
      if (value === undefined) throw new Error('--only needs a benchmark name');
      only = value.split(',');
      i += 1;
    } else if (arg.startsWith('--only=')) only = arg.slice('--only='.length).split(',');
    else if (arg === '--help' || arg === '-h') {
      console.log(`usage: node dist/bench/run.js [--quick] [--only <${BENCHMARKS.map((b) => b.name).join('|')}>[,...]]`);
      process.exit(0);
    } else throw new Error(`unknown argument ${arg}`);
  }
  const unknown = only?.filter((name) => !BENCHMARKS.some((b) => b.name === name)) ?? [];
  if (unknown.length > 0) throw new Error(`unknown benchmark ${unknown.join(', ')}; known: ${BENCHMARKS.map((b) => b.name).join(', ')}`);
  return { quick, only };
}

async function main(): Promise<void> {
  const { quick, only } = parseArgs(process.argv.slice(2));
  const selected = BENCHMARKS.filter((b) => only === undefined || only.includes(b.name));
  await mkdir(BENCH_OUT, { recursive: true });
  const cpu = cpus()[0]?.model ?? 'unknown cpu';
  console.log(`svc bench${quick ? ' --quick' : ''}: node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} x ${cpu}, ${fmtNum(totalmem() / 2 ** 30, 1)} GiB`);
  const started = now();
  const results: (BenchResult & { seconds: number; error?: string })[] = [];
  for (const bench of selected) {
    // What the benchmark before wrote and deleted (a proxy's ledger, thousands of outbox files) is
    // flushed now, not in the background while this one measures fdatasync or process start-up.
    spawnSync('sync', { stdio: 'ignore' });
    console.log(`\n== ${bench.name}: ${bench.description}`);
    const benchStart = now();
    try {
      const result = await bench.run({ quick, outDir: BENCH_OUT });
      results.push({ ...result, seconds: seconds(benchStart) });
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      console.log(`  ERROR: ${message}`);
      results.push({ name: bench.name, metrics: [], targets: [], notes: [], seconds: seconds(benchStart), error: message });
      process.exitCode = 1;
    }
  }

  console.log('\n== summary');
  const rows = results.flatMap((result) => {
    if (result.error) return [[result.name, 'ERROR', result.error.split('\n')[0] ?? '']];
    if (result.targets.length === 0) return [[result.name, '-', `no targets (${fmtNum(result.seconds, 1)} s)`]];
    return result.targets.map((t) => [result.name, t.pass ? 'PASS' : 'MISS', formatTarget(t).slice(6)]);
  });
  console.log(table(['benchmark', 'result', 'target'], rows, '  ', [0, 2]));
  const total = seconds(started);
  console.log(`  total ${fmtNum(total, 1)} s`);

  const out = join(BENCH_OUT, 'results.json');
  const report = {
    startedAt: new Date(Date.now() - total * 1000).toISOString(),
    quick,
    node: process.version,
    platform: `${process.platform}/${process.arch}`,
    cpus: cpus().length,
    cpu,
    totalSeconds: total,
    benchmarks: results,
  };
  await writeFile(out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`  results written to ${out}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(2);
});

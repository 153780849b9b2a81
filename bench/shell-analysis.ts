import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Parser } from 'web-tree-sitter';
import { createBashParser, loadBashGrammar } from '../src/hooks/shell/bash-parser.js';
import { loadShellAnalyzer } from '../src/hooks/shell/index.js';
import { createShellAnalyzer } from '../src/hooks/shell/shell-analyzer.js';
import type { ShellContext } from '../src/hooks/shell/shell-analysis.js';
import { loadCorpus, makeFixtureWorkspace } from '../test/hooks/shell/corpus.js';
import { fmtInt, fmtNum, now, printTargets, seconds, table, target, type BenchOptions, type BenchResult, type Benchmark, type Metric } from './lib.js';

/**
 * Shell analysis throughput: `ShellAnalyzer.analyze` over every command of the shell corpus,
 * in-process after a warm-up, in the corpus' fixture workspace (so globs list real directories
 * and symlinks resolve for real). The baseline, measured in the same run and interleaved with
 * it, is tree-sitter parsing the same commands alone (parse, then free the tree): the part of
 * the work no analysis can avoid the first time it sees a script. The corpus goes round, so the
 * process' analyzer has seen every command before and reuses its syntax tree
 * (syntax-tree-cache.ts); an analyzer that parses every script afresh is measured beside it, for
 * commands never seen before. Also, in fresh node processes, the time to import the analyzer,
 * to load it (WebAssembly runtime and grammar) and to run a first analysis.
 */

interface Timing {
  warmupMs: number;
  rounds: number;
  windowMs: number;
}

const INDEX = fileURLToPath(new URL('../src/hooks/shell/index.js', import.meta.url));

/** Runs `work` over the commands, round-robin, for `ms` milliseconds; commands per second. */
function rate(commands: readonly { command: string; context: ShellContext }[], ms: number, work: (command: string, context: ShellContext) => void): number {
  const start = now();
  const deadline = start + BigInt(Math.round(ms * 1e6));
  let done = 0;
  let index = 0;
  while (now() < deadline) {
    for (let batch = 0; batch < 64; batch += 1) {
      const item = commands[index] as { command: string; context: ShellContext };
      work(item.command, item.context);
      index = index + 1 === commands.length ? 0 : index + 1;
    }
    done += 64;
  }
  return done / seconds(start);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

/** In a fresh process: ms to import the analyzer's modules, then ms for loadShellAnalyzer() (wasm init, grammar), then the first analysis. */
function loadTimesInChild(): { importMs: number; loadMs: number; firstMs: number } {
  const script = [
    'const t0 = performance.now();',
    `const m = await import(${JSON.stringify(pathToFileURL(INDEX).href)});`,
    'const t1 = performance.now();',
    'const analyzer = await m.loadShellAnalyzer();',
    'const t2 = performance.now();',
    "analyzer.analyze('cat README.md | grep -n x > out.txt', { cwd: process.cwd(), home: process.cwd() });",
    'const t3 = performance.now();',
    'console.log(JSON.stringify({ importMs: t1 - t0, loadMs: t2 - t1, firstMs: t3 - t2 }));',
  ].join(' ');
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`analyzer load in a child failed: ${child.stderr}`);
  return JSON.parse(child.stdout.trim()) as { importMs: number; loadMs: number; firstMs: number };
}

export const benchmark: Benchmark = {
  name: 'shell-analysis',
  description: 'ShellAnalyzer.analyze commands/s over the shell corpus (trees reused, and every script parsed afresh) vs tree-sitter parse alone of the same commands',
  async run(options: BenchOptions): Promise<BenchResult> {
    const timing: Timing = options.quick ? { warmupMs: 300, rounds: 3, windowMs: 300 } : { warmupMs: 1_000, rounds: 5, windowMs: 1_000 };
    const fixture = makeFixtureWorkspace();
    try {
      const analyzer = await loadShellAnalyzer();
      const grammar = await loadBashGrammar();
      const { language } = grammar;
      const afreshAnalyzer = createShellAnalyzer(createBashParser(grammar, { reuseParses: false }));
      const parser = new Parser();
      parser.setLanguage(language);
      const corpus = loadCorpus();
      // Script files are followed, as the hook follows every one that is not protected.
      const commands = corpus.map((entry) => ({ command: entry.command, context: { cwd: join(fixture.root, entry.cwd ?? '.'), home: fixture.home, mayReadScript: () => true } }));
      const meanLength = commands.reduce((sum, item) => sum + item.command.length, 0) / commands.length;
      const analyze = (command: string, context: ShellContext): void => {
        analyzer.analyze(command, context);
      };
      const analyzeAfresh = (command: string, context: ShellContext): void => {
        afreshAnalyzer.analyze(command, context);
      };
      const parse = (command: string): void => {
        parser.parse(command)?.delete();
      };

      rate(commands, timing.warmupMs / 3, analyze);
      rate(commands, timing.warmupMs / 3, analyzeAfresh);
      rate(commands, timing.warmupMs / 3, parse);
      const analysisRates: number[] = [];
      const afreshRates: number[] = [];
      const parseRates: number[] = [];
      for (let round = 0; round < timing.rounds; round += 1) {
        analysisRates.push(rate(commands, timing.windowMs, analyze));
        afreshRates.push(rate(commands, timing.windowMs, analyzeAfresh));
        parseRates.push(rate(commands, timing.windowMs, parse));
      }
      const analysisRate = median(analysisRates);
      const afreshRate = median(afreshRates);
      const parseRate = median(parseRates);

      // Per-command latency of one analysis of a script not seen before, each corpus command timed on its own (warm).
      const latencies: number[] = [];
      for (let pass = 0; pass < (options.quick ? 3 : 10); pass += 1) {
        for (const { command, context } of commands) {
          const started = now();
          afreshAnalyzer.analyze(command, context);
          latencies.push(seconds(started) * 1e6);
        }
      }
      latencies.sort((a, b) => a - b);
      const loads = Array.from({ length: options.quick ? 3 : 7 }, loadTimesInChild);
      const importMs = median(loads.map((load) => load.importMs));
      const loadMs = median(loads.map((load) => load.loadMs));
      const firstMs = median(loads.map((load) => load.firstMs));

      console.log(`  corpus: ${fmtInt(commands.length)} commands, mean ${fmtNum(meanLength, 1)} characters; ${timing.rounds} interleaved rounds of ${fmtNum(timing.windowMs / 1000, 1)} s each after ${fmtNum(timing.warmupMs / 1000, 1)} s warm-up (medians)`);
      console.log(
        table(
          ['measure', 'commands/s', 'µs/command', 'vs parse alone'],
          [
            ['tree-sitter parse alone (baseline)', fmtInt(parseRate), fmtNum(1e6 / parseRate, 1), '1.000'],
            ['ShellAnalyzer.analyze (scripts seen before)', fmtInt(analysisRate), fmtNum(1e6 / analysisRate, 1), fmtNum(analysisRate / parseRate, 3)],
            ['ShellAnalyzer.analyze, every script parsed afresh', fmtInt(afreshRate), fmtNum(1e6 / afreshRate, 1), fmtNum(afreshRate / parseRate, 3)],
          ],
        ),
      );
      console.log(`  analyze latency per command: p50 ${fmtNum(quantile(latencies, 0.5), 1)} µs, p99 ${fmtNum(quantile(latencies, 0.99), 1)} µs, max ${fmtNum(latencies[latencies.length - 1] ?? 0, 1)} µs`);
      console.log(`  in a fresh process (medians of ${loads.length}): import ${fmtNum(importMs, 1)} ms, loadShellAnalyzer() ${fmtNum(loadMs, 1)} ms (wasm runtime and bash grammar), first analyze ${fmtNum(firstMs, 1)} ms`);

      const metrics: Metric[] = [
        { label: 'analysis', value: analysisRate, unit: 'commands/s' },
        { label: 'analysis, every script parsed afresh', value: afreshRate, unit: 'commands/s' },
        { label: 'parse alone', value: parseRate, unit: 'commands/s' },
        { label: 'analysis vs parse alone', value: analysisRate / parseRate, unit: 'ratio' },
        { label: 'analysis afresh vs parse alone', value: afreshRate / parseRate, unit: 'ratio' },
        { label: 'analyze latency p50', value: quantile(latencies, 0.5), unit: 'µs' },
        { label: 'analyze latency p99', value: quantile(latencies, 0.99), unit: 'µs' },
        { label: 'import in a fresh process', value: importMs, unit: 'ms' },
        { label: 'loadShellAnalyzer in a fresh process', value: loadMs, unit: 'ms' },
        { label: 'first analyze in a fresh process', value: firstMs, unit: 'ms' },
      ];
      // Judged on commands never seen before: the corpus going round would otherwise be all repeats.
      const targets = [target('shell analysis commands/s, every script parsed afresh', afreshRate, '>=', 20_000, 'commands/s')];
      printTargets(targets);
      parser.delete();
      return { name: this.name, metrics, targets, notes: [] };
    } finally {
      fixture.cleanup();
    }
  },
};

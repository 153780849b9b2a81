import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { signingKeyFromSeed, type SigningKey } from '../src/actionpass/keys.js';
import type { FlowContext } from '../scripts/sample-flows.js';

/**
 * Shared pieces of the benchmarks (DESIGN.md section 10): every figure is printed beside a
 * baseline measured in the same run, so the ratio holds on a noisy machine.
 */

export interface BenchOptions {
  quick: boolean;
  /** `bench/out` in the source tree (gitignored): fixtures, scratch files and results.json. */
  outDir: string;
}

export interface Metric {
  label: string;
  value: number;
  unit: string;
}

export interface Target {
  label: string;
  actual: number;
  op: '>=' | '<=' | '<';
  goal: number;
  unit: string;
  pass: boolean;
}

export interface BenchResult {
  name: string;
  metrics: Metric[];
  targets: Target[];
  notes: string[];
}

export interface Benchmark {
  name: string;
  description: string;
  run(options: BenchOptions): Promise<BenchResult>;
}

/** `bench/out` of the source tree, found from `dist/bench/*.js`. */
export const BENCH_OUT = fileURLToPath(new URL('../../bench/out/', import.meta.url));

export const now = (): bigint => process.hrtime.bigint();
export const seconds = (from: bigint, to: bigint = now()): number => Number(to - from) / 1e9;
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function target(label: string, actual: number, op: Target['op'], goal: number, unit: string): Target {
  const pass = op === '>=' ? actual >= goal : op === '<=' ? actual <= goal : actual < goal;
  return { label, actual, op, goal, unit, pass };
}

// ---------------------------------------------------------------------------------------------
// Formatting

export function fmtInt(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

export function fmtNum(value: number, digits = 2): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function fmtMB(bytes: number): string {
  return `${fmtNum(bytes / (1024 * 1024), 1)} MB`;
}

/** Plain aligned text: first column left-aligned, the others right-aligned unless listed in `left`. */
export function table(header: string[], rows: string[][], indent = '  ', left: number[] = [0]): string {
  const all = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...all.map((row) => (row[column] ?? '').length)));
  const line = (row: string[]) =>
    indent +
    row
      .map((cell, column) => (left.includes(column) ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  const rule = indent + widths.map((width) => '-'.repeat(width)).join('  ');
  return [line(header), rule, ...rows.map(line)].join('\n');
}

export function formatTarget(t: Target): string {
  // A multiple (×) in whole numbers would print 3.14 as 3.
  const value = t.unit === 'ratio' ? fmtNum(t.actual, 3) : t.unit === 'MB' ? fmtNum(t.actual, 1) : t.unit === '×' ? fmtNum(t.actual, 2) : fmtInt(t.actual);
  const goal = t.unit === 'ratio' ? fmtNum(t.goal, 2) : t.unit === 'MB' ? fmtNum(t.goal, 0) : fmtInt(t.goal);
  return `${t.pass ? 'PASS' : 'MISS'}  ${t.label}: ${value} ${t.op} ${goal} ${t.unit === 'ratio' ? '' : t.unit}`.trimEnd();
}

export function printTargets(targets: Target[]): void {
  for (const t of targets) console.log(`  ${formatTarget(t)}`);
}

// ---------------------------------------------------------------------------------------------
// Keys and flows: fixed seeds, so cached fixtures stay valid across runs.

export function benchKey(name: string, fill: number): SigningKey {
  return signingKeyFromSeed(name, Buffer.alloc(32, fill));
}

export const BENCH_ORIGIN = 'svc.bench/org:acme/fixture';

export function benchFlowContext(): FlowContext {
  return { keys: { pass: benchKey('svc.bench/ledger', 7), reviewer: benchKey('svc.bench/reviewer', 9) }, tenant: 'org:acme', issuedAt: 1_790_000_000 };
}

// ---------------------------------------------------------------------------------------------
// Baseline: hashing a file, streamed, with the ledger reader's chunk size.

export async function hashFile(path: string, end?: number): Promise<{ seconds: number; bytes: number; digest: string }> {
  const start = now();
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20, ...(end !== undefined && { end: end - 1 }) })) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { seconds: seconds(start), bytes, digest: hash.digest('hex') };
}

// ---------------------------------------------------------------------------------------------
// Child processes: a fresh node per measurement, so memory and JIT state of earlier work do not count.

/** Byte offset just after the first `records` lines of a file (its size if it has fewer). */
export async function offsetAfterRecords(path: string, records: number): Promise<number> {
  let seen = 0;
  let offset = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    const bytes = chunk as Buffer;
    for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) {
      seen += 1;
      if (seen === records) return offset + at + 1;
    }
    offset += bytes.length;
  }
  return offset;
}

export type ChildMode = 'idle' | 'hash' | 'verify' | 'pass-bare' | 'pass-sinks';

export interface ChildReport {
  mode: ChildMode;
  path: string;
  seconds: number;
  /** process.resourceUsage().maxRSS, in bytes. */
  maxRss: number;
  records?: number;
  valid?: boolean;
  defect?: string;
}

const CHILD = fileURLToPath(new URL('./child.js', import.meta.url));

/** `end`: for hash and pass modes, read only the bytes before this offset. */
export function runChild(mode: ChildMode, path: string, end?: number): Promise<ChildReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, mode, path, ...(end === undefined ? [] : [String(end)])], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.on('error', reject);
    child.on('close', (code) => {
      const last = stdout.trim().split('\n').pop() ?? '';
      if (code !== 0) return reject(new Error(`bench child ${mode} ${path} exited ${code}: ${stderr.trim() || stdout.trim()}`));
      try {
        resolve(JSON.parse(last) as ChildReport);
      } catch {
        reject(new Error(`bench child ${mode} printed no report: ${stdout.trim()} ${stderr.trim()}`));
      }
    });
  });
}

/** Runs a child `runs` times and keeps the fastest (the least disturbed by the machine). */
export async function bestChild(mode: ChildMode, path: string, runs: number, end?: number): Promise<ChildReport> {
  let best: ChildReport | undefined;
  for (let run = 0; run < runs; run += 1) {
    const report = await runChild(mode, path, end);
    if (!best || report.seconds < best.seconds) best = report;
  }
  return best as ChildReport;
}

/** Throws unless every child run verified the ledger and saw exactly `records` records. */
export function assertValidRuns(reports: readonly ChildReport[], records: number): void {
  for (const report of reports) {
    if (!report.valid || report.records !== records) throw new Error(`${report.mode} ${report.path}: valid=${report.valid} records=${report.records} ${report.defect ?? ''}`);
  }
}

/** A table of child runs over `records` records: seconds, records/s, ratio to the sha256 baseline run, peak RSS. */
export function rateTable(records: number, baseline: ChildReport, rows: [label: string, report: ChildReport][], extra: string[][] = []): string {
  const baselineRate = records / baseline.seconds;
  const row = (label: string, report: ChildReport) => [label, fmtNum(report.seconds, 2), fmtInt(records / report.seconds), fmtNum(records / report.seconds / baselineRate, 3), fmtMB(report.maxRss)];
  return table(['measure', 'seconds', 'records/s', 'vs sha256', 'peak RSS'], [...rows.map(([label, report]) => row(label, report)), ...extra]);
}

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { now, seconds } from './lib.js';

/**
 * HTTP load for the proxy benchmark: servers in child processes that print one JSON line with
 * their `url` once listening, and autocannon (programmatic API, in the bench process) with one
 * set of settings for every target, so the figures of the proxy and of its echo baseline differ
 * only by the server.
 */

// ---------------------------------------------------------------------------------------------
// Servers

export interface ServerProcess {
  url: string;
  /** The JSON line the server printed (the proxy adds tenant, policyHash, ledger). */
  info: Record<string, unknown>;
  child: ChildProcess;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** SIGTERM, then the exit code (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<number | null>;
}

/** Spawns `node <args>` and waits for the first stdout line, a JSON object with a `url`. */
export function startServer(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; readyMs?: number } = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${args.join(' ')}: ${why}${stderr.trim() ? `\n${stderr.trim()}` : ''}`));
    };
    const timer = setTimeout(() => fail(`printed no address within ${options.readyMs ?? 30_000} ms`), options.readyMs ?? 30_000);
    child.once('error', (error) => fail(error.message));
    const early = (code: number | null, signal: NodeJS.Signals | null) => fail(`exited ${code ?? signal} before listening: ${stdout.trim()}`);
    child.once('exit', early);
    const onData = (text: string) => {
      stdout += text;
      const newline = stdout.indexOf('\n');
      if (newline === -1) return;
      child.stdout.off('data', onData);
      child.off('exit', early);
      clearTimeout(timer);
      // Keep draining stdout so a chatty server never blocks on a full pipe.
      child.stdout.resume();
      let info: Record<string, unknown>;
      try {
        info = JSON.parse(stdout.slice(0, newline)) as Record<string, unknown>;
      } catch {
        return fail(`printed ${stdout.slice(0, newline)}, not a JSON line`);
      }
      if (typeof info.url !== 'string') return fail(`printed no url: ${stdout.slice(0, newline)}`);
      resolve({
        url: info.url,
        info,
        child,
        stderr: () => stderr,
        async stop(graceMs = 15_000) {
          if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
          child.kill('SIGTERM');
          const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
          const code = await exited;
          clearTimeout(kill);
          return code;
        },
      });
    };
    child.stdout.setEncoding('utf8').on('data', onData);
  });
}

// ---------------------------------------------------------------------------------------------
// CPU time

let clockTicks: number | undefined;

/**
 * CPU seconds (user + system) a process has used so far, all threads, or with `mainThread` only
 * the thread running its event loop (its thread id is its pid); NaN where /proc is not there.
 */
export function processCpuSeconds(pid: number, mainThread = false): number {
  try {
    clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    const stat = readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
    // Fields after the command name in parentheses (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks;
  } catch {
    return Number.NaN;
  }
}

// ---------------------------------------------------------------------------------------------
// Load

export interface LoadSettings {
  connections: number;
  pipelining: number;
  /** Seconds of load on each target before any measurement (once, before the first round). */
  warmupSeconds: number;
  /** Measured seconds per target, split evenly over the rounds. */
  seconds: number;
  /** The targets take turns, one slice of each per round, so a slow spell of the machine hits them all. */
  rounds: number;
}

export interface LoadTarget {
  label: string;
  url: string;
  path: string;
  /** The JSON request bodies, sent in turn by every connection (prebuilt: no per-request cost in the load generator). */
  bodies: readonly string[];
  /** The process serving the target: its CPU time over the measured windows is reported. */
  serverPid?: number | undefined;
}

export interface LoadRun {
  label: string;
  /** Measured seconds (the sum of the rounds' windows). */
  seconds: number;
  /** Responses received in the measured windows (any status). */
  responses: number;
  /** 2xx responses per second over the measured windows. */
  rate: number;
  /** Latency of the 2xx responses, ms, from every response (not a histogram's buckets). */
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Mean bytes per response (headers and body). */
  responseBytes: number;
  /** Requests the load generator wrote, warm-up included. */
  sent: number;
  /** CPU seconds of the server process (every thread: GC, the libuv pool) per second of the measured windows; NaN without /proc. */
  serverCpu: number;
  /** Server CPU microseconds per 2xx response. */
  serverCpuPerRequest: number;
  /**
   * The server's main-thread CPU microseconds per 2xx response: the event loop is what saturates
   * first (a worker thread signs on the other core), so this is the cost that bounds throughput.
   */
  serverMainCpuPerRequest: number;
  /** CPU seconds of this process (the load generator) per second of the measured windows. */
  loadCpu: number;
  /** process.hrtime.bigint() at the start of the first measured slice and the end of the last. */
  window: { start: bigint; end: bigint };
  /** Why the figure cannot be trusted, if it cannot: any non-2xx answer, error, timeout, in the warm-up too. */
  invalid?: string;
}

interface Slice {
  result: autocannon.Result;
  latencies: Float64Array;
  count: number;
  bytes: number;
  wall: number;
  start: bigint;
  end: bigint;
  serverCpu: number;
  serverMainCpu: number;
  loadCpu: number;
}

/** One autocannon run; every 2xx response's latency recorded at full resolution. */
async function cannon(target: LoadTarget, settings: LoadSettings, duration: number): Promise<Slice> {
  const serverBefore = target.serverPid === undefined ? Number.NaN : processCpuSeconds(target.serverPid);
  const mainBefore = target.serverPid === undefined ? Number.NaN : processCpuSeconds(target.serverPid, true);
  const loadBefore = process.cpuUsage();
  const start = now();
  const run = await new Promise<Omit<Slice, 'wall' | 'start' | 'end' | 'serverCpu' | 'serverMainCpu' | 'loadCpu'>>((resolve, reject) => {
    let latencies = new Float64Array(1 << 16);
    let count = 0;
    let bytes = 0;
    const instance = autocannon(
      {
        url: target.url,
        connections: settings.connections,
        pipelining: settings.pipelining,
        duration,
        timeout: 10,
        requests: target.bodies.map((body) => ({ method: 'POST', path: target.path, headers: { 'content-type': 'application/json' }, body })),
      },
      (error: unknown, result: autocannon.Result) => {
        if (error) reject(error instanceof Error ? error : new Error(String(error)));
        else resolve({ result, latencies: latencies.subarray(0, count), count, bytes });
      },
    );
    instance.on('response', (_client, statusCode, resBytes, responseTime) => {
      if (statusCode < 200 || statusCode >= 300) return;
      if (count === latencies.length) {
        const grown = new Float64Array(latencies.length * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[count] = responseTime;
      count += 1;
      bytes += resBytes;
    });
  });
  const end = now();
  const wall = seconds(start, end);
  const load = process.cpuUsage(loadBefore);
  const serverCpu = (target.serverPid === undefined ? Number.NaN : processCpuSeconds(target.serverPid)) - serverBefore;
  const serverMainCpu = (target.serverPid === undefined ? Number.NaN : processCpuSeconds(target.serverPid, true)) - mainBefore;
  return { ...run, wall, start, end, serverCpu, serverMainCpu, loadCpu: (load.user + load.system) / 1e6 };
}

function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

/**
 * Warms every target up for `warmupSeconds`, then measures them in turn, `rounds` times, each for
 * `seconds / rounds`: the same autocannon settings for all. One LoadRun per target, in order.
 */
export async function measureLoad(targets: readonly LoadTarget[], settings: LoadSettings): Promise<LoadRun[]> {
  const warmups: (Slice | undefined)[] = [];
  for (const target of targets) warmups.push(settings.warmupSeconds > 0 ? await cannon(target, settings, settings.warmupSeconds) : undefined);
  const slices: Slice[][] = targets.map(() => []);
  for (let round = 0; round < settings.rounds; round += 1) {
    for (const [index, target] of targets.entries()) slices[index]?.push(await cannon(target, settings, settings.seconds / settings.rounds));
  }
  return targets.map((target, index) => summarize(target, warmups[index], slices[index] ?? []));
}

function summarize(target: LoadTarget, warmup: Slice | undefined, slices: Slice[]): LoadRun {
  const count = slices.reduce((sum, slice) => sum + slice.count, 0);
  const latencies = new Float64Array(count);
  let at = 0;
  for (const slice of slices) {
    latencies.set(slice.latencies, at);
    at += slice.latencies.length;
  }
  latencies.sort();
  let sum = 0;
  for (const value of latencies) sum += value;
  const total = (pick: (slice: Slice) => number) => slices.reduce((acc, slice) => acc + pick(slice), 0);
  // autocannon's own window (it starts once the clients exist), never longer than the wall time of the call.
  const elapsed = total((slice) => Math.min(slice.wall, slice.result.duration));
  const wall = total((slice) => slice.wall);
  const serverCpu = total((slice) => slice.serverCpu);
  const found = [
    ...(warmup ? problems(warmup.result).map((problem) => `warm-up: ${problem}`) : []),
    ...slices.flatMap((slice, round) => problems(slice.result).map((problem) => `round ${round + 1}: ${problem}`)),
    ...(count === 0 ? ['no 2xx response'] : []),
  ];
  const result = (pick: (r: autocannon.Result) => number) => total((slice) => pick(slice.result));
  return {
    label: target.label,
    seconds: elapsed,
    responses: result((r) => r['1xx'] + r['2xx'] + r['3xx'] + r['4xx'] + r['5xx']),
    rate: count / elapsed,
    p50: quantile(latencies, 0.5),
    p90: quantile(latencies, 0.9),
    p99: quantile(latencies, 0.99),
    max: latencies.length > 0 ? (latencies[latencies.length - 1] as number) : Number.NaN,
    mean: count > 0 ? sum / count : Number.NaN,
    non2xx: result((r) => r.non2xx),
    errors: result((r) => r.errors),
    timeouts: result((r) => r.timeouts),
    responseBytes: count > 0 ? total((slice) => slice.bytes) / count : 0,
    sent: result((r) => r.requests.sent) + (warmup?.result.requests.sent ?? 0),
    serverCpu: serverCpu / wall,
    serverCpuPerRequest: (serverCpu * 1e6) / Math.max(1, count),
    serverMainCpuPerRequest: (total((slice) => slice.serverMainCpu) * 1e6) / Math.max(1, count),
    loadCpu: total((slice) => slice.loadCpu) / wall,
    window: { start: slices[0]?.start ?? 0n, end: slices[slices.length - 1]?.end ?? 0n },
    ...(found.length > 0 && { invalid: found.join('; ') }),
  };
}

function problems(result: autocannon.Result): string[] {
  const found: string[] = [];
  if (result.non2xx > 0) {
    const codes = Object.entries(result.statusCodeStats ?? {})
      .filter(([code]) => !code.startsWith('2'))
      .map(([code, stats]) => `${stats.count ?? 0} x ${code}`);
    found.push(`${result.non2xx} non-2xx (${codes.join(', ')})`);
  }
  if (result.errors > 0) found.push(`${result.errors} errors (${result.timeouts} timeouts)`);
  if (result.mismatches > 0) found.push(`${result.mismatches} body mismatches`);
  if (result.resets > 0) found.push(`${result.resets} request pipeline resets`);
  return found;
}

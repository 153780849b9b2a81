import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseDocument } from 'yaml';
import { BENCH_OUT, fmtInt, fmtMB, fmtNum, printTargets, table, target, type BenchOptions, type BenchResult, type Benchmark, type Metric } from './lib.js';
import { measureLoad, startServer, type LoadRun, type LoadSettings, type LoadTarget, type ServerProcess } from './load.js';

/**
 * `/authorize` and `/actions` of `svc proxy` under HTTP load, against a bare fastify JSON echo
 * (bench/echo-server.ts) measured with the same load generator in the same run: autocannon in
 * this process, each server a child process of its own; 50 connections, pipelining 1; a 1 s
 * warm-up per target, then 10 s per target (3 s with --quick) measured in rounds in which the
 * targets take turns, so a slow spell of a shared machine hits all three. Every target gets the
 * same allowed chat action as body, its text numbered from a pool of 128, so consecutive payloads
 * differ. Besides requests/s and latency, each server's CPU time per request is read from /proc:
 * the cost of a request whatever else the machine is doing.
 *
 * The proxy runs `svc.yml.example` in a fresh workspace under bench/out, with its chat budget
 * raised to 10,000,000 an hour: still evaluated on every decision, never denying. The ledger is
 * read at the end: every decision must be an allow, or the figures are invalid.
 *
 * `node dist/bench/proxy-throughput.js --profile [--actions] [--quick] [--top N]` runs one
 * /authorize (or /actions) load with the proxy under `node --cpu-prof` instead, writes the profile
 * to bench/out/prof/, and prints where the proxy's main thread spends its time: by step of the
 * request, by kind of work, then profile-top's top functions.
 *
 * A second reference runs in the same rounds: bench/contract-floor-server.ts, plain code doing only
 * the work an allow needs under svc's formats, with every check and all policy left out. It shows how far
 * `/authorize` is from what its contract costs on this machine, and whether the targets are within
 * the contract's reach at all. `node dist/bench/proxy-throughput.js --floor [--quick]` measures the
 * floor with and without its fdatasync and its signature, against the echo: what each part costs.
 */

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SVC_CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const ECHO_SERVER = fileURLToPath(new URL('./echo-server.js', import.meta.url));
const FLOOR_SERVER = fileURLToPath(new URL('./contract-floor-server.js', import.meta.url));
const PROFILE_TOP = fileURLToPath(new URL('./profile-top.js', import.meta.url));

const BUDGET_MAX = 10_000_000;
const AUTHORIZE_RATIO_GOAL = 0.3;
const AUTHORIZE_RATIO_AIM = 0.5;
const AUTHORIZE_P99_GOAL_MS = 10;

/** Distinct request bodies every connection sends in turn (prebuilt by autocannon: no per-request cost). */
const BODY_POOL = 128;

function loadSettings(quick: boolean): LoadSettings {
  return quick ? { connections: 50, pipelining: 1, warmupSeconds: 1, seconds: 3, rounds: 3 } : { connections: 50, pipelining: 1, warmupSeconds: 1, seconds: 10, rounds: 5 };
}

/** The allowed chat action of every request; `n` numbers its text (fixed width: every body has the same length). */
export function actionBody(n: number): string {
  return JSON.stringify({
    schemaVersion: 'svc.action.v0',
    actor: { agentId: 'agent:bench', humanOwner: 'user:dev@acme.example', runtime: 'bench' },
    intent: { taskId: 'bench-1' },
    capability: { tool: 'chat.message.send', resource: 'channel:eng', payload: { channel: 'eng', text: `deploy finished #${String(n % 1e8).padStart(8, '0')}` } },
  });
}

// ---------------------------------------------------------------------------------------------
// Workspace and servers

/** A fresh workspace: svc.yml.example as svc.yml, every budget raised so none ever denies. */
async function prepareWorkspace(dir: string): Promise<string> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const doc = parseDocument(await readFile(join(REPO, 'svc.yml.example'), 'utf8'));
  if (doc.errors.length > 0) throw new Error(`svc.yml.example: ${doc.errors[0]?.message ?? 'invalid YAML'}`);
  const budgets = doc.getIn(['policy', 'budgets']) as { items?: unknown[] } | undefined;
  for (let index = 0; index < (budgets?.items?.length ?? 0); index += 1) doc.setIn(['policy', 'budgets', index, 'max'], BUDGET_MAX);
  const config = join(dir, 'svc.yml');
  await writeFile(config, doc.toString());
  return config;
}

function startEcho(): Promise<ServerProcess> {
  return startServer([ECHO_SERVER]);
}

function startFloor(ledgerPath: string, flags: string[] = []): Promise<ServerProcess> {
  return startServer([FLOOR_SERVER, ledgerPath, ...flags]);
}

function startProxy(config: string, nodeFlags: string[] = []): Promise<ServerProcess> {
  return startServer([...nodeFlags, SVC_CLI, 'proxy', '--config', config, '--port', '0', '--json'], { cwd: REPO });
}

async function post(url: string, body: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** One request before the load: the target answers what the benchmark assumes (an echo, an allow, an execution). */
async function checkEcho(url: string): Promise<void> {
  const body = actionBody(0);
  const { status, json } = await post(`${url}/echo`, body);
  if (status !== 200 || JSON.stringify(json) !== body) throw new Error(`echo server answered ${status} ${JSON.stringify(json)}`);
}

/** The floor answers an allow with a signed pass, as the proxy does (unsigned with --no-sign). */
async function checkFloor(url: string): Promise<void> {
  const { status, json } = await post(`${url}/authorize`, actionBody(0));
  if (status !== 200 || (json.decision as { decision?: string } | undefined)?.decision !== 'allow' || typeof (json.actionPass as { token?: unknown } | undefined)?.token !== 'string') {
    throw new Error(`the contract floor answered ${status} ${JSON.stringify(json).slice(0, 400)}`);
  }
}

async function checkProxy(url: string, path: '/authorize' | '/actions'): Promise<void> {
  const { status, json } = await post(`${url}${path}`, actionBody(0));
  const decision = (json.decision as { decision?: string } | undefined)?.decision;
  const expected = path === '/authorize' ? 'decided' : 'executed';
  if (status !== 200 || decision !== 'allow' || json.status !== expected || (path === '/authorize' && json.actionPass === undefined)) {
    throw new Error(`${path} answered ${status} ${JSON.stringify(json).slice(0, 400)}; expected an allowed action, status ${expected}`);
  }
}

interface LedgerStats {
  records: number;
  bytes: number;
  types: Map<string, number>;
  decisions: Map<string, number>;
}

/** Counts the records of the ledger by type, and the policy.decided records by decision. */
async function ledgerStats(path: string): Promise<LedgerStats> {
  const stats: LedgerStats = { records: 0, bytes: (await stat(path)).size, types: new Map(), decisions: new Map() };
  for await (const line of createInterface({ input: createReadStream(path, { highWaterMark: 1 << 20 }), crlfDelay: Infinity })) {
    if (line.length === 0) continue;
    const record = JSON.parse(line) as { type?: string; data?: { decision?: string } };
    stats.records += 1;
    const type = record.type ?? '?';
    stats.types.set(type, (stats.types.get(type) ?? 0) + 1);
    if (type === 'policy.decided') {
      const decision = record.data?.decision ?? '?';
      stats.decisions.set(decision, (stats.decisions.get(decision) ?? 0) + 1);
    }
  }
  return stats;
}

// ---------------------------------------------------------------------------------------------
// The benchmark

const BODIES = Array.from({ length: BODY_POOL }, (_, n) => actionBody(n + 1));

function targetOf(label: string, server: ServerProcess, path: string): LoadTarget {
  return { label, url: server.url, path, bodies: BODIES, serverPid: server.child.pid };
}

const LOAD_COLUMNS = ['target', 'requests/s', 'vs echo', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'server CPU', 'CPU µs/req', 'main µs/req', 'load gen CPU'];

const cpu = (value: number, digits: number) => (Number.isNaN(value) ? '-' : fmtNum(value, digits));

function runRow(run: LoadRun, echo: LoadRun): string[] {
  const cost = [cpu(run.serverCpu, 2), cpu(run.serverCpuPerRequest, 0), cpu(run.serverMainCpuPerRequest, 0), cpu(run.loadCpu, 2)];
  if (run.invalid) return [run.label, 'INVALID', '', '', '', '', '', ...cost];
  return [run.label, fmtInt(run.rate), fmtNum(run.rate / echo.rate, 3), fmtNum(run.p50, 2), fmtNum(run.p90, 2), fmtNum(run.p99, 2), fmtNum(run.max, 1), ...cost];
}

function runMetrics(key: string, run: LoadRun): Metric[] {
  return [
    { label: `${key} requests/s`, value: run.invalid ? Number.NaN : run.rate, unit: 'requests/s' },
    { label: `${key} latency p50`, value: run.p50, unit: 'ms' },
    { label: `${key} latency p90`, value: run.p90, unit: 'ms' },
    { label: `${key} latency p99`, value: run.p99, unit: 'ms' },
    { label: `${key} latency max`, value: run.max, unit: 'ms' },
    { label: `${key} responses`, value: run.responses, unit: 'responses' },
    { label: `${key} response bytes`, value: run.responseBytes, unit: 'bytes' },
    { label: `${key} server CPU`, value: run.serverCpu, unit: 'cores' },
    { label: `${key} server CPU per request`, value: run.serverCpuPerRequest, unit: 'µs' },
    { label: `${key} server main-thread CPU per request`, value: run.serverMainCpuPerRequest, unit: 'µs' },
    { label: `${key} load generator CPU`, value: run.loadCpu, unit: 'cores' },
  ];
}

export const benchmark: Benchmark = {
  name: 'proxy',
  description: '/authorize and /actions requests/s and latency vs a bare fastify JSON echo under the same autocannon load',
  async run(options: BenchOptions): Promise<BenchResult> {
    const settings = loadSettings(options.quick);
    const dir = join(options.outDir, `proxy-${process.pid}`);
    const config = await prepareWorkspace(dir);
    const bodyBytes = Buffer.byteLength(BODIES[0] as string);
    const slice = fmtNum(settings.seconds / settings.rounds, 1);
    console.log(
      `  autocannon in this process, each server a child process; ${settings.connections} connections, pipelining ${settings.pipelining}; ` +
        `${settings.warmupSeconds} s warm-up per target, then ${settings.rounds} rounds of ${slice} s per target in turn (${settings.seconds} s each); ` +
        `body: the allowed chat action, ${bodyBytes} bytes, ${BODY_POOL} texts in turn`,
    );
    const notes = [`${settings.connections} connections, pipelining ${settings.pipelining}, ${settings.rounds} x ${slice} s per target after ${settings.warmupSeconds} s warm-up`, `request body ${bodyBytes} bytes`];
    const servers: ServerProcess[] = [];
    try {
      const echoServer = await startEcho();
      servers.push(echoServer);
      const floorServer = await startFloor(join(dir, 'contract-floor.jsonl'));
      servers.push(floorServer);
      const proxy = await startProxy(config);
      servers.push(proxy);
      const ledgerPath = String(proxy.info.ledger);
      await checkEcho(echoServer.url);
      await checkFloor(floorServer.url);
      await checkProxy(proxy.url, '/authorize');
      await checkProxy(proxy.url, '/actions');

      const [echo, floor, authorize, actions] = (await measureLoad(
        [
          targetOf('fastify JSON echo (baseline)', echoServer, '/echo'),
          targetOf('contract floor (reference, no checks)', floorServer, '/authorize'),
          targetOf('svc proxy POST /authorize', proxy, '/authorize'),
          targetOf('svc proxy POST /actions', proxy, '/actions'),
        ],
        settings,
      )) as [LoadRun, LoadRun, LoadRun, LoadRun];
      const proxyExit = await proxy.stop();
      if (proxyExit !== 0) throw new Error(`svc proxy exited ${proxyExit} on SIGTERM: ${proxy.stderr().trim()}`);
      await echoServer.stop();
      await floorServer.stop();
      const ledger = await ledgerStats(ledgerPath);
      const outboxFiles = await countFiles(join(dir, '.svc', 'outbox'));

      const allowed = ledger.decisions.get('allow') ?? 0;
      const decided = ledger.types.get('policy.decided') ?? 0;
      const otherDecisions = [...ledger.decisions].filter(([decision]) => decision !== 'allow');
      if (otherDecisions.length > 0) {
        const problem = `the ledger holds ${otherDecisions.map(([d, n]) => `${n} ${d}`).join(', ')} decisions: not every request was allowed`;
        authorize.invalid ??= problem;
        actions.invalid ??= problem;
      }

      console.log(
        table(LOAD_COLUMNS, [runRow(echo, echo), runRow(floor, echo), runRow(authorize, echo), runRow(actions, echo)]),
      );
      console.log(
        `  CPU in cores (1.00 = one core busy) from /proc, every thread of the process (main µs/req: the event-loop thread alone); this machine has ${cpus().length} CPUs. ` +
          `Response bytes: echo ${fmtInt(echo.responseBytes)}, /authorize ${fmtInt(authorize.responseBytes)}, /actions ${fmtInt(actions.responseBytes)}`,
      );
      console.log(
        `  contract floor: only the work of an allow under svc's formats (hashes, three chained records, Ed25519 pass on a worker, group commit with fdatasync), no checks or policy; ` +
          `/authorize runs at ${fmtNum(authorize.rate / floor.rate, 2)} of its requests/s, at ${fmtNum(authorize.serverCpuPerRequest / floor.serverCpuPerRequest, 2)}x its CPU per request`,
      );
      const costRatio = authorize.serverCpuPerRequest / echo.serverCpuPerRequest;
      if (!Number.isNaN(costRatio)) console.log(`  CPU per request: /authorize costs ${fmtNum(costRatio, 1)}x the echo, /actions ${fmtNum(actions.serverCpuPerRequest / echo.serverCpuPerRequest, 1)}x`);
      // A closed loop: every connection waits for its answer, so the mean latency is connections / rate.
      console.log(
        `  closed loop of ${settings.connections} connections: mean latency = ${settings.connections} / rate (/authorize ${fmtNum(authorize.mean, 2)} ms measured, ` +
          `${fmtNum((1000 * settings.connections) / authorize.rate, 2)} ms predicted), so the latency is mostly queueing behind the other connections`,
      );

      const executions = ledger.types.get('execution.completed') ?? 0;
      const sent = authorize.sent + actions.sent + 2;
      console.log(
        `  ledger at the end: ${fmtInt(ledger.records)} records, ${fmtMB(ledger.bytes)}, every one durable before its answer: ` +
          `${fmtInt(decided)} decisions (${fmtInt(allowed)} allow${otherDecisions.map(([d, n]) => `, ${fmtInt(n)} ${d}`).join('')}) for ${fmtInt(sent)} requests sent (warm-up included), ` +
          `${fmtInt(ledger.types.get('actionpass.issued') ?? 0)} passes, ${fmtInt(executions)} executions, ${fmtInt(ledger.types.get('ledger.checkpoint') ?? 0)} checkpoints; ${fmtInt(outboxFiles)} outbox files`,
      );
      for (const run of [echo, authorize, actions]) {
        if (!run.invalid) continue;
        console.log(`  INVALID ${run.label}: ${run.invalid}`);
        notes.push(`INVALID ${run.label}: ${run.invalid}`);
      }

      const ratio = authorize.invalid || echo.invalid ? Number.NaN : authorize.rate / echo.rate;
      const invalid = authorize.invalid || echo.invalid ? ' (invalid run)' : '';
      const targets = [
        target(`/authorize / echo requests/s (aim ${fmtNum(AUTHORIZE_RATIO_AIM, 2)})${invalid}`, ratio, '>=', AUTHORIZE_RATIO_GOAL, 'ratio'),
        // In µs: the target lines print whole numbers, and a p99 of 9.6 ms must not read "10 <= 10 ms".
        target(`/authorize p99 latency${invalid}`, authorize.invalid ? Number.NaN : authorize.p99 * 1000, '<=', AUTHORIZE_P99_GOAL_MS * 1000, 'µs'),
      ];
      printTargets(targets);
      const metrics: Metric[] = [
        ...runMetrics('echo', echo),
        ...runMetrics('contract floor', floor),
        ...runMetrics('/authorize', authorize),
        ...runMetrics('/actions', actions),
        { label: '/authorize vs echo', value: ratio, unit: 'ratio' },
        { label: 'contract floor vs echo', value: floor.invalid || echo.invalid ? Number.NaN : floor.rate / echo.rate, unit: 'ratio' },
        { label: '/authorize vs contract floor', value: authorize.invalid || floor.invalid ? Number.NaN : authorize.rate / floor.rate, unit: 'ratio' },
        { label: '/actions vs echo', value: actions.invalid || echo.invalid ? Number.NaN : actions.rate / echo.rate, unit: 'ratio' },
        { label: 'request body', value: bodyBytes, unit: 'bytes' },
        { label: 'ledger records at the end', value: ledger.records, unit: 'records' },
        { label: 'ledger bytes at the end', value: ledger.bytes, unit: 'bytes' },
        { label: 'ledger decisions', value: decided, unit: 'records' },
        { label: 'ledger allow decisions', value: allowed, unit: 'records' },
        { label: 'ledger executions', value: executions, unit: 'records' },
        { label: 'requests sent to the proxy', value: sent, unit: 'requests' },
      ];
      return { name: this.name, metrics, targets, notes };
    } finally {
      for (const server of servers) await server.stop(5_000).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    }
  },
};

async function countFiles(dir: string): Promise<number> {
  let count = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => [])) if (entry.isFile()) count += 1;
  return count;
}

// ---------------------------------------------------------------------------------------------
// Profile

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

type Frame = ProfileNode['callFrame'];

/** Which step of a request a stack belongs to: the innermost frame a rule names decides. */
const STAGES: [stage: string, test: (frame: Frame) => boolean][] = [
  ['ActionPass: claims, canonical JWS, Ed25519 signature', ({ url }) => /\/src\/actionpass\/(actionpass-token|jws)\.js$/.test(url)],
  ['ids: crypto.randomBytes per action, pass, approval', ({ url, functionName }) => url.endsWith('/src/proxy/enforcer.js') && functionName === 'newId'],
  ['action: normalize, validate (zod), action and payload hashes', ({ url }) => url.endsWith('/src/actionpass/action.js')],
  ['runtime state: apply each sealed record (budgets, passes)', ({ url }) => url.includes('/src/projections/')],
  ['ledger: event check, canonical record, hash chain, group commit, checkpoints', ({ url }) => url.includes('/src/events/') && !url.endsWith('/canonical.js')],
  ['policy: rules and budgets', ({ url }) => url.includes('/src/policy/') || url.includes('/src/commands/')],
  ['handler: demo outbox write (/actions)', ({ url }) => url.includes('/src/adapters/')],
  ['response: decision body', ({ url }) => url.endsWith('/src/proxy/responses.js')],
  ['proxy: routes, guards, enforcer glue', ({ url }) => url.includes('/src/proxy/')],
];

/** What kind of work a frame is; native frames (no url) and promisify wrappers take their caller's kind. */
function kindOf(frame: Frame, parent: Frame | undefined): string | undefined {
  const { functionName: name, url } = frame;
  if (name === '(garbage collector)') return 'garbage collector';
  if (name === '(idle)') return 'idle';
  if (name === '(program)') return 'V8/native, unattributed (program)';
  if (url.includes('internal/crypto/sig')) return 'Ed25519 signing (node:crypto)';
  if (url.includes('internal/crypto/hash')) return 'sha256 (node:crypto)';
  if (url.includes('internal/crypto/random')) return 'random bytes (node:crypto)';
  if (url.includes('/node_modules/zod/')) return 'zod';
  if (url.endsWith('/src/events/canonical.js')) return 'canonical JSON (svc)';
  if (url.includes('/node_modules/secure-json-parse/')) return 'request body JSON.parse';
  if (url.includes('/node_modules/fastify/lib/reply.js') && name === 'serialize') return 'response JSON.stringify (fastify)';
  if (url.includes('/node_modules/')) return 'fastify and other npm';
  if (/^node:(_http|net|internal\/(stream|streams|http|net))/.test(url)) return 'node http, net, streams, socket writes';
  if (/^node:(fs|internal\/fs)/.test(url)) return 'file system calls';
  if (url === 'node:buffer' || url === 'node:internal/buffer') return 'node Buffer (encode, decode, copy)';
  if (/^node:(events|async_hooks|internal\/process\/task_queues|internal\/async_hooks|internal\/timers|timers)/.test(url)) return 'node events, promises, async hooks, timers';
  if (url.includes('/dist/src/')) return 'svc code (other)';
  if (url === '' && ['fdatasync', 'fsync', 'open', 'close', 'read', 'writeString', 'ftruncate', 'fstat', 'rename', 'mkdir'].includes(name)) return 'file system calls';
  if (url === '' && parent?.url.startsWith('node:internal/fs')) return 'file system calls';
  if (url === '' || url === 'node:internal/util') return undefined;
  return 'node other';
}

interface ProfileSummary {
  /** Microseconds sampled in the window, idle included. */
  total: number;
  idle: number;
  stages: Map<string, number>;
  kinds: Map<string, number>;
  /** Whether the samples were cut to the measured window (else: the whole profile). */
  windowed: boolean;
}

/** Splits the samples taken within `window` (process.hrtime in ns; the profile uses the same monotonic clock, in µs) by stage and by kind. */
function summarizeProfile(profile: CpuProfile, window: { start: bigint; end: bigint }): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const memo = new Map<number, { stage: string; kind: string }>();
  const classify = (id: number): { stage: string; kind: string } => {
    const known = memo.get(id);
    if (known) return known;
    let stage: string | undefined;
    let kind: string | undefined;
    let inSvc = false;
    for (let at: number | undefined = id; at !== undefined && (stage === undefined || kind === undefined); at = parent.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (!frame) break;
      const up = parent.get(at);
      kind ??= kindOf(frame, up === undefined ? undefined : byId.get(up)?.callFrame);
      stage ??= STAGES.find(([, test]) => test(frame))?.[0];
      inSvc ||= frame.url.includes('/dist/src/');
    }
    kind ??= 'node other';
    // Outside every svc frame, the stage is the kind of work (HTTP in and out, GC, idle).
    const result = { stage: stage ?? (inSvc ? 'svc: other' : `outside svc: ${kind}`), kind };
    memo.set(id, result);
    return result;
  };
  const startUs = Number(window.start / 1000n);
  const endUs = Number(window.end / 1000n);
  const windowed = startUs >= profile.startTime && endUs <= profile.endTime + 1e6;
  const summary: ProfileSummary = { total: 0, idle: 0, stages: new Map(), kinds: new Map(), windowed };
  let time = profile.startTime;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    time += delta;
    if (windowed && (time < startUs || time > endUs)) return;
    const { stage, kind } = classify(id);
    summary.total += delta;
    if (kind === 'idle') summary.idle += delta;
    summary.stages.set(stage, (summary.stages.get(stage) ?? 0) + delta);
    summary.kinds.set(kind, (summary.kinds.get(kind) ?? 0) + delta);
  });
  return summary;
}

function shareTable(title: string, shares: Map<string, number>, summary: ProfileSummary, requests: number): string {
  const busy = summary.total - summary.idle;
  const rows = [...shares]
    .filter(([name]) => name !== 'idle' && name !== 'outside svc: idle')
    .sort((a, b) => b[1] - a[1])
    .map(([name, us]) => [name, fmtNum((100 * us) / busy, 1), fmtNum((100 * us) / summary.total, 1), fmtNum(us / Math.max(1, requests), 1)]);
  return table([title, '% busy', '% all', 'µs/req'], rows);
}

async function profileProxy(quick: boolean, path: '/authorize' | '/actions', top: number): Promise<void> {
  const settings = { ...loadSettings(quick), rounds: 1 };
  const dir = join(BENCH_OUT, `proxy-profile-${process.pid}`);
  const profDir = join(BENCH_OUT, 'prof');
  await mkdir(profDir, { recursive: true });
  const name = `proxy${path.replace('/', '-')}-${new Date().toISOString().replace(/[:.]/g, '-')}.cpuprofile`;
  const config = await prepareWorkspace(dir);
  const proxy = await startProxy(config, ['--cpu-prof', '--cpu-prof-dir', profDir, '--cpu-prof-name', name, '--cpu-prof-interval', '250']);
  let run: LoadRun;
  try {
    await checkProxy(proxy.url, path);
    [run] = (await measureLoad([targetOf(`svc proxy POST ${path}, under --cpu-prof`, proxy, path)], settings)) as [LoadRun];
  } finally {
    await proxy.stop();
    await rm(dir, { recursive: true, force: true });
  }
  const file = join(profDir, name);
  console.log(
    table(
      ['target', 'requests/s', 'p50 ms', 'p99 ms', 'server CPU', 'CPU µs/req', 'main µs/req', 'load gen CPU'],
      [[run.label, run.invalid ? 'INVALID' : fmtInt(run.rate), fmtNum(run.p50, 2), fmtNum(run.p99, 2), cpu(run.serverCpu, 2), cpu(run.serverCpuPerRequest, 0), cpu(run.serverMainCpuPerRequest, 0), cpu(run.loadCpu, 2)]],
    ),
  );
  if (run.invalid) console.log(`  INVALID: ${run.invalid}`);
  const summary = summarizeProfile(JSON.parse(await readFile(file, 'utf8')) as CpuProfile, run.window);
  const requests = run.rate * run.seconds;
  console.log(
    `\n  ${file}\n  main thread, ${summary.windowed ? `the ${fmtNum(run.seconds, 1)} s measured window` : 'whole profile (the window did not match its clock)'}: ` +
      `${fmtNum(summary.total / 1e6, 2)} s sampled, ${fmtNum((100 * summary.idle) / summary.total, 1)}% idle; µs/req = sampled time / ${fmtInt(requests)} requests. ` +
      'Sample times are wall-clock: time the thread spent descheduled is charged to where it stood.\n',
  );
  console.log(shareTable('by step of the request (innermost svc frame)', summary.stages, summary, requests));
  console.log('');
  console.log(shareTable('by kind of work (innermost frame)', summary.kinds, summary, requests));
  console.log(`\n  node dist/bench/profile-top.js ${file} ${top} (whole profile, start-up included):`);
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [PROFILE_TOP, file, String(top)], { stdio: 'inherit', cwd: REPO });
    child.on('error', reject);
    child.on('exit', () => resolve());
  });
}

// ---------------------------------------------------------------------------------------------
// The contract floor, part by part

const FLOOR_VARIANTS: [label: string, flags: string[]][] = [
  ['contract floor', []],
  ['  without fdatasync', ['--no-sync']],
  ['  without the signature', ['--no-sign']],
  ['  without either', ['--no-sync', '--no-sign']],
];

async function measureFloorParts(quick: boolean): Promise<void> {
  const settings = loadSettings(quick);
  const dir = join(BENCH_OUT, `contract-floor-${process.pid}`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const servers: ServerProcess[] = [];
  try {
    const echoServer = await startEcho();
    servers.push(echoServer);
    const targets = [targetOf('fastify JSON echo (baseline)', echoServer, '/echo')];
    for (const [index, [label, flags]] of FLOOR_VARIANTS.entries()) {
      const server = await startFloor(join(dir, `ledger-${index}.jsonl`), flags);
      servers.push(server);
      await checkFloor(server.url);
      targets.push(targetOf(label, server, '/authorize'));
    }
    const runs = await measureLoad(targets, settings);
    const echo = runs[0] as LoadRun;
    console.log(table(LOAD_COLUMNS, runs.map((run) => runRow(run, echo))));
    console.log(`  targets for /authorize: at least ${AUTHORIZE_RATIO_GOAL} of the echo's requests/s, p99 at most ${AUTHORIZE_P99_GOAL_MS} ms`);
  } finally {
    for (const server of servers) await server.stop(5_000).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const fail = (error: unknown): never => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(2);
  };
  if (args.includes('--floor')) {
    measureFloorParts(args.includes('--quick')).catch(fail);
  } else if (args.includes('--profile')) {
    const topAt = args.indexOf('--top');
    profileProxy(args.includes('--quick'), args.includes('--actions') ? '/actions' : '/authorize', topAt === -1 ? 25 : Number(args[topAt + 1])).catch(fail);
  } else {
    console.error('usage: node dist/bench/proxy-throughput.js --profile [--actions] [--quick] [--top N] | --floor [--quick]   (the benchmark itself: npm run bench -- --only proxy)');
    process.exit(2);
  }
}

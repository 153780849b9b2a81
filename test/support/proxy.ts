/**
 * Process-level helpers for the e2e suites: a workspace with its own svc.yml, the real `svc proxy`
 * as a child process, requests over loopback HTTP, and a reader of the ledger file as bytes.
 *
 * Every proxy started here is stopped when the test file finishes (and killed if the test runner
 * itself exits first), so a failing test never leaves a listening process behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { CLI } from './cli.js';

export const EXAMPLE_CONFIG = fileURLToPath(new URL('../../svc.yml.example', import.meta.url));
export const REVIEWER = 'user:lead@acme.example';

// ---------------------------------------------------------------------------------------------
// Workspaces

export interface Workspace {
  dir: string;
  configFile: string;
  ledger: string;
  outbox: string;
  sandbox: string;
  trustFile: string;
  /** Where `svc keys add-reviewer` puts reviewer keys: outside the workspace, as in real use. */
  reviewerKeysDir: string;
  /** The environment every child of this workspace runs with (SVC_REVIEWER_KEYS_DIR set). */
  env: NodeJS.ProcessEnv;
}

/** A temp dir holding svc.yml copied from svc.yml.example; `port` replaces proxy.port. */
export async function makeWorkspace(options: { port?: number; prefix?: string } = {}): Promise<Workspace> {
  const dir = await mkdtemp(join(tmpdir(), options.prefix ?? 'svc-e2e-'));
  const reviewerKeysDir = await mkdtemp(join(tmpdir(), 'svc-e2e-reviewer-'));
  const configFile = join(dir, 'svc.yml');
  let text = await readFile(EXAMPLE_CONFIG, 'utf8');
  if (options.port !== undefined) text = setProxyPort(text, options.port);
  await writeFile(configFile, text);
  return {
    dir,
    configFile,
    ledger: join(dir, '.svc/ledger.jsonl'),
    outbox: join(dir, '.svc/outbox'),
    sandbox: join(dir, '.svc/sandbox'),
    trustFile: join(dir, '.svc/trust.json'),
    reviewerKeysDir,
    env: { ...process.env, SVC_REVIEWER_KEYS_DIR: reviewerKeysDir },
  };
}

/** Deletes a workspace and its reviewer keys; suites call it last, so a failure leaves the evidence behind. */
export async function removeWorkspace(ws: Workspace): Promise<void> {
  await rm(ws.dir, { recursive: true, force: true });
  await rm(ws.reviewerKeysDir, { recursive: true, force: true });
}

export function setProxyPort(configText: string, port: number): string {
  const next = configText.replace(/^(\s+port:\s*)\d+\s*$/m, `$1${port}`);
  if (next === configText && !configText.includes(`port: ${port}`)) throw new Error('svc.yml.example has no proxy.port line to replace');
  return next;
}

/** Replaces a file the way an editor saves: a new file renamed over the old one. */
export async function replaceFile(file: string, text: string): Promise<void> {
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, text);
  await rename(temp, file);
}

/** A port nothing listens on right now (bound, then released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// The CLI, with a workspace's environment

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function svc(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd ?? process.cwd(), env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Runs `svc <args> --json` and parses stdout; throws with the whole output on a non-zero exit. */
export async function svcJson<T = Record<string, unknown>>(args: string[], options: { env?: NodeJS.ProcessEnv } = {}): Promise<T> {
  const run = await svc([...args, '--json'], options);
  if (run.code !== 0) throw new Error(`svc ${args.join(' ')} exited ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

// ---------------------------------------------------------------------------------------------
// The proxy process

export interface ProxyInfo {
  url: string;
  tenant: string;
  policyHash: string;
  ledger: string;
}

export interface ProxyProcess extends ProxyInfo {
  child: ChildProcess;
  port: number;
  /** Everything the proxy wrote to stderr so far. */
  stderr(): string;
  /** Everything after the first line of stdout so far. */
  stdout(): string;
  /** Sends `signal` (SIGTERM by default) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves when the process has exited, however it ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface StartProxyOptions {
  configFile: string;
  env?: NodeJS.ProcessEnv;
  /** Default 0: any free port. */
  port?: number;
  host?: string;
  /** RLIMIT_FSIZE of the proxy in KiB (bash `ulimit -f`): writes past it fail with EFBIG. */
  fileSizeLimitKiB?: number;
  /** Options for node before the CLI script, for example `--import <preload>`. */
  nodeArgs?: string[];
  /** How long to wait for the listening line. Default 30 s. */
  timeoutMs?: number;
}

/** A preload (test/children/ignore-sigxfsz.ts) that makes a write past RLIMIT_FSIZE fail with EFBIG instead of killing the proxy. */
export const IGNORE_SIGXFSZ = new URL('../../dist/test/children/ignore-sigxfsz.js', import.meta.url).href;

const running = new Set<ChildProcess>();

afterAll(async () => {
  await stopAllProxies();
});
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export async function stopAllProxies(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
  running.clear();
}

/**
 * Spawns `svc proxy --config <file> --port <port> --json` and resolves with the address it prints
 * once listening. Rejects (with its stderr) if the process exits first.
 */
export function startProxyProcess(options: StartProxyOptions): Promise<ProxyProcess> {
  const args = [...(options.nodeArgs ?? []), CLI, 'proxy', '--config', options.configFile, '--port', String(options.port ?? 0), '--json', ...(options.host !== undefined ? ['--host', options.host] : [])];
  const env = options.env ?? process.env;
  const child =
    options.fileSizeLimitKiB === undefined
      ? spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('bash', ['-c', `ulimit -f ${options.fileSizeLimitKiB} && exec "$0" "$@"`, process.execPath, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let stdout = '';
  let stderr = '';
  let firstLine: string | undefined;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
  });
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`svc proxy did not print its address within ${options.timeoutMs ?? 30_000} ms\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (firstLine !== undefined) return;
      const newline = stdout.indexOf('\n');
      if (newline === -1) return;
      firstLine = stdout.slice(0, newline);
      clearTimeout(timer);
      let info: ProxyInfo;
      try {
        info = JSON.parse(firstLine) as ProxyInfo;
      } catch {
        child.kill('SIGKILL');
        reject(new Error(`svc proxy printed a first line that is not JSON: ${firstLine}`));
        return;
      }
      resolve({
        ...info,
        port: Number(new URL(info.url).port),
        child,
        exited,
        stderr: () => stderr,
        stdout: () => stdout.slice((firstLine?.length ?? 0) + 1),
        async stop(signal: NodeJS.Signals = 'SIGTERM') {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return exited;
        },
      });
    });
    void exited.then(({ code, signal }) => {
      if (firstLine !== undefined) return;
      clearTimeout(timer);
      reject(Object.assign(new Error(`svc proxy exited (code ${code}, signal ${signal}) before listening\nstderr: ${stderr}\nstdout: ${stdout}`), { code, stderr, stdout }));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Actions

export interface ActionOverrides {
  actor?: Record<string, unknown>;
  intent?: Record<string, unknown>;
  capability?: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * A valid `svc.action.v0` body (a chat message to #eng, with a tenant the proxy must overwrite),
 * with each top-level section shallow-merged from `overrides`.
 */
export function action(overrides: ActionOverrides = {}): Record<string, unknown> {
  const { actor, intent, capability, ...rest } = overrides;
  return {
    schemaVersion: 'svc.action.v0',
    actor: { agentId: 'agent:deployer', humanOwner: 'user:dev@acme.example', runtime: 'test', tenant: 'org:evil', ...actor },
    intent: { taskId: 'task-1', declaredGoal: 'notify', ...intent },
    capability: { tool: 'chat.message.send', resource: 'channel:eng', payload: { channel: 'eng', text: 'deploy finished' }, ...capability },
    ...rest,
  };
}

export function chatAction(channel: string, text: string, overrides: Omit<ActionOverrides, 'capability'> = {}): Record<string, unknown> {
  return action({ ...overrides, capability: { tool: 'chat.message.send', resource: `channel:${channel}`, payload: { channel, text } } });
}

export function emailAction(to: string, subject: string, body: string, overrides: Omit<ActionOverrides, 'capability'> = {}): Record<string, unknown> {
  return action({ ...overrides, intent: { taskId: 'task-mail', declaredGoal: 'send the report' }, capability: { tool: 'email.message.send', resource: `mailbox:${to}`, payload: { to, subject, body } } });
}

// ---------------------------------------------------------------------------------------------
// HTTP

export interface HttpAnswer<T = any> {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body, or undefined when it is not JSON. */
  body: T;
  text: string;
}

/** The decision body of /actions and /authorize (DESIGN.md section 7), loosely typed for tests. */
export interface DecisionBody {
  status: string;
  decision: { decision: string; reasons: string[]; ruleId: string; policyHash: string };
  explanation: string;
  action: { actionId: string; actionHash: string; payloadHash: string };
  actionPass?: { token: string; claims: Record<string, any> };
  approval?: { approvalId: string; status: string };
  execution?: { outcome: string; approvedPayloadHash: string; executedPayloadHash?: string; reason?: string };
  ledger: { seq: number; hash: string; record: { type: string; payloadHash: string } };
}

export interface ErrorBody {
  error: { code: string; message: string; issues?: { path: string; message: string }[] };
}

/** POST `body` (JSON-encoded unless a string or Buffer) with content-type application/json unless overridden. */
export function post<T = any>(url: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<HttpAnswer<T>> {
  const payload = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  return request<T>(url, { method: 'POST', path, body: payload, headers: { 'content-type': 'application/json', ...headers } });
}

export function get<T = any>(url: string, path: string, headers: Record<string, string> = {}): Promise<HttpAnswer<T>> {
  return request<T>(url, { method: 'GET', path, headers });
}

export interface RawRequest {
  method: string;
  path: string;
  /** Sent as given: node:http lets a test set Host, unlike fetch. `host: undefined` sends no Host at all. */
  headers?: Record<string, string | undefined>;
  body?: string | Buffer;
  agent?: http.Agent;
}

/** One HTTP/1.1 request over loopback with node:http; a header set to undefined is not sent. */
export function request<T = any>(url: string, options: RawRequest): Promise<HttpAnswer<T>> {
  const target = new URL(url);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.headers ?? {})) if (value !== undefined) headers[name] = value;
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: target.hostname, port: Number(target.port), method: options.method, path: options.path, headers, agent: options.agent ?? false, setHost: !Object.keys(options.headers ?? {}).some((name) => name.toLowerCase() === 'host') },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: body as T, text });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Polls `check` every `everyMs` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function poll<T>(what: string, check: () => Promise<T | undefined>, options: { timeoutMs?: number; everyMs?: number } = {}): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, options.everyMs ?? 100));
  }
}

// ---------------------------------------------------------------------------------------------
// The ledger, read as bytes (the verifier's view, independent of the code under test)

export interface LedgerLine {
  seq: number;
  /** The line's bytes without its `\n`. */
  bytes: Buffer;
  /** RFC 6962 leaf hash: sha256(0x00 ‖ line bytes), as `sha256:<hex>`. */
  hash: string;
  record: { seq: number; type: string; stream: string; ts: string; prevHash: string; data: Record<string, any> };
}

export function sha256(bytes: Buffer | string): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

export function leafHash(line: Buffer): string {
  return `sha256:${createHash('sha256').update(Buffer.from([0])).update(line).digest('hex')}`;
}

/** Every `\n`-terminated line of the ledger, parsed; a torn unterminated tail is left out. */
export async function readLedgerLines(path: string): Promise<LedgerLine[]> {
  const bytes = await readFile(path);
  const lines: LedgerLine[] = [];
  let start = 0;
  for (let end = bytes.indexOf(0x0a, start); end !== -1; end = bytes.indexOf(0x0a, start)) {
    const line = bytes.subarray(start, end);
    const record = JSON.parse(line.toString('utf8')) as LedgerLine['record'];
    lines.push({ seq: lines.length, bytes: line, hash: leafHash(line), record });
    start = end + 1;
  }
  return lines;
}

export function recordsOfType(lines: readonly LedgerLine[], type: string): LedgerLine[] {
  return lines.filter((line) => line.record.type === type);
}

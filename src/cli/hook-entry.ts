import { readSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { SvcError } from '../errors.js';
import { findConfigUpward } from '../hooks/find-config.js';
import { plainCommandTree } from '../hooks/shell/plain-command-tree.js';
import type { HookOutput } from '../hooks/hook-event.js';
import { readWorkspaceAddress } from '../proxy/proxy-address.js';
import { DEFAULT_HOOK_TIMEOUT_MS, type HookCommandOptions } from './commands/hook.js';
import { hasWrittenOutput, writeStderr, writeStdout } from './output.js';
import { reportFailure } from './report-failure.js';

/**
 * One hook invocation: stdin in, the runtime's answer out, with the exit code it expects.
 *
 * A coding agent pays for this before every tool call, so the common case stays small: when a
 * proxy serves the workspace's svc.yml, the event is forwarded to its `/hooks/<runtime>` route
 * and nothing else is loaded. Otherwise the whole engine is loaded and decides on the ledger.
 */

/** Hook input is one JSON event; anything larger is refused before parsing. */
const MAX_STDIN_BYTES = 8 * 1024 * 1024;

interface Answer {
  output: HookOutput;
  mode?: 'proxy' | 'local';
  decision?: string;
  results?: unknown;
}

/**
 * `svc hook <runtime> …` as a process runs it, from argv: true when done (failures reported as
 * main.js reports them), false when the arguments are for commander (`--help`, an unknown flag).
 * `cliPath`: the `svc` executable, which a resident proxy (`hooks.residentProxy`) is started with.
 */
export async function runHookMain(argv: readonly string[], cliPath: string): Promise<boolean> {
  try {
    const parsed = parseHookArgs(argv.slice(3));
    if (parsed === undefined) return false;
    await runHookCommand(parsed.runtime, parsed.options, cliPath);
    // A call that printed nothing (no opinion, the usual answer) has nothing left to flush, so it
    // ends here, without Node's teardown of a heap it no longer needs (about 1.5 ms of every such
    // call). One that printed ends as Node ends, so that a pending write is not cut short.
    if (!hasWrittenOutput()) process.exit();
  } catch (error) {
    reportFailure(error, argv);
  }
  return true;
}

/** `cliPath` as for runHookMain; without it a resident proxy is not started. */
export async function runHookCommand(runtime: string, options: HookCommandOptions, cliPath?: string): Promise<void> {
  const stdin = await readStdin();
  const answer = (await forwardToProxy(runtime, stdin, options)) ?? (await decideHere(runtime, stdin, options, cliPath));
  if (options.json) {
    writeStdout(`${JSON.stringify({ mode: answer.mode ?? null, decision: answer.decision ?? null, results: answer.results ?? [], output: answer.output }, null, 2)}\n`);
    return;
  }
  if (answer.output.stderr !== '') writeStderr(answer.output.stderr);
  if (answer.output.stdout !== '') writeStdout(answer.output.stdout);
  process.exitCode = answer.output.exitCode;
}

async function decideHere(runtime: string, stdin: string, options: HookCommandOptions, cliPath: string | undefined): Promise<Answer> {
  // Imported here, so forwarding to a proxy loads none of the builtins the loader needs (vm, crypto).
  const { loadHookEngine } = await import('./hook-engine.js');
  const { runHook } = (await loadHookEngine(undefined, { precompileGrammar: mayNeedBashGrammar(stdin) })).engine;
  const run = await runHook({ runtime, stdin, timeoutMs: options.timeoutMs, ...(options.config !== undefined && { configFile: options.config }), ...(cliPath !== undefined && { cliPath }) });
  return { output: run.output, ...(run.mode && { mode: run.mode }), ...(run.evaluation && { decision: run.evaluation.decision, results: run.evaluation.results }) };
}

/**
 * Whether the event may carry a shell command that needs the bash grammar: one that is not a
 * plain command line (those are analyzed without it, src/hooks/run-hook.ts). The runtimes' shell
 * tools mostly name the command `command`, as a field or inside their tool arguments. Only a hint
 * for starting early on what the analysis will need: the engine reads the event itself, and a
 * wrong guess costs time, never a different verdict.
 */
function mayNeedBashGrammar(stdin: string): boolean {
  if (!stdin.includes('command')) return false;
  try {
    return holdsCommandNeedingGrammar(JSON.parse(stdin) as unknown, 0);
  } catch {
    return true;
  }
}

function holdsCommandNeedingGrammar(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  // Deeper than any runtime's event: not worth walking for a hint.
  if (depth > 8) return true;
  return Object.entries(value).some(([key, field]) => (key === 'command' ? typeof field !== 'string' || plainCommandTree(field) === undefined : holdsCommandNeedingGrammar(field, depth + 1)));
}

/**
 * The proxy's answer, or undefined when no proxy serves this workspace (or it cannot be reached),
 * in which case the caller decides locally. A proxy that answers with an error is not bypassed:
 * its refusal becomes a deny.
 */
async function forwardToProxy(runtime: string, stdin: string, options: HookCommandOptions): Promise<Answer | undefined> {
  const configFile = options.config !== undefined ? resolve(options.config) : findConfigUpward(cwdOf(stdin) ?? process.cwd());
  if (configFile === undefined) return undefined;
  const url = await readWorkspaceAddress(configFile);
  if (url === undefined) return undefined;
  const reply = await postText(`${url}/hooks/${encodeURIComponent(runtime)}`, stdin, options.timeoutMs).catch(() => undefined);
  if (reply === undefined) return undefined;
  if (reply.status === 200) {
    const body = JSON.parse(reply.body) as Omit<Answer, 'mode'>;
    return { ...body, mode: 'proxy' };
  }
  const { runtimeProtocol } = await import('../hooks/runtimes/index.js');
  const protocol = runtimeProtocol(runtime);
  const error = safeError(reply.body);
  const reason = `svc could not decide this call, so it is denied to be safe: the svc proxy answered ${reply.status}: ${error.message} [${error.code}]`;
  let event;
  try {
    event = protocol.parseInput(stdin);
  } catch {
    event = undefined;
  }
  return { output: protocol.formatVerdict({ decision: 'deny', reason }, event), mode: 'proxy' };
}

/** The event's working directory, read without validating the rest (the engine does that). */
function cwdOf(stdin: string): string | undefined {
  try {
    const cwd = (JSON.parse(stdin) as { cwd?: unknown }).cwd;
    return typeof cwd === 'string' && isAbsolute(cwd) ? cwd : undefined;
  } catch {
    return undefined;
  }
}

function safeError(body: string): { code: string; message: string } {
  try {
    const error = (JSON.parse(body) as { error?: { code?: unknown; message?: unknown } }).error;
    return { code: String(error?.code ?? 'proxy_error'), message: String(error?.message ?? 'no message') };
  } catch {
    return { code: 'proxy_error', message: 'an answer that is not JSON' };
  }
}

async function postText(url: string, body: string, timeoutMs: number): Promise<{ status: number; body: string }> {
  // Loaded only when a proxy serves the workspace: deciding locally never needs the HTTP client.
  const { request } = await import('node:http');
  return new Promise((resolvePost, reject) => {
    const outgoing = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }, timeout: timeoutMs }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => resolvePost({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    outgoing.on('timeout', () => outgoing.destroy(new SvcError('hook_timeout', `the proxy at ${url} did not answer within ${timeoutMs} ms`)));
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/**
 * Reads stdin synchronously while it gives data that way, as a runtime's pipe does: a hook process
 * has nothing else to do meanwhile, and a stream would cost it the first-call compiling of Node's
 * stream machinery. A stdin set non-blocking (EAGAIN) is read to its end as a stream instead.
 */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  const take = (chunk: Buffer): boolean => {
    size += chunk.length;
    chunks.push(chunk);
    return size <= MAX_STDIN_BYTES;
  };
  const buffer = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    let length: number;
    try {
      length = readSync(0, buffer, 0, buffer.length, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EOF') break;
      if (code !== 'EAGAIN') throw error;
      for await (const chunk of process.stdin as AsyncIterable<Buffer>) if (!take(chunk)) return '';
      break;
    }
    if (length === 0) break;
    // Over the cap the input is not parsed; the protocol turns the empty text into a deny.
    if (!take(Buffer.from(buffer.subarray(0, length)))) return '';
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** `svc hook <runtime> [--config <file>] [--timeout-ms <ms>] [--json]`, parsed without commander to keep start-up short. */
export function parseHookArgs(args: readonly string[]): { runtime: string; options: HookCommandOptions } | undefined {
  let runtime: string | undefined;
  const options: HookCommandOptions = { timeoutMs: DEFAULT_HOOK_TIMEOUT_MS };
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string => {
      const next = inline ?? args[(index += 1)];
      if (next === undefined) throw new SvcError('usage_invalid', `${flag} needs a value`);
      return next;
    };
    if (flag === '--config') options.config = value();
    else if (flag === '--timeout-ms') options.timeoutMs = Number(value());
    else if (flag === '--json') options.json = true;
    else if (!flag.startsWith('-') && runtime === undefined) runtime = flag;
    else return undefined; // anything else (--help, unknown flags): let commander explain
  }
  if (runtime === undefined || !Number.isInteger(options.timeoutMs) || options.timeoutMs < 1 || options.timeoutMs > 600_000) return undefined;
  return { runtime, options };
}

import { homedir } from 'node:os';
import { dirname, resolve } from 'node:path';
import { loadConfig, resolveFromConfig, type LoadedConfig } from '../config/load-config.js';
import { SvcError } from '../errors.js';
import { retryWhileLocked } from '../events/writer-lock.js';
import { compileProtectedPaths } from '../policy/protected-paths.js';
import { readProxyAddress } from '../proxy/proxy-address.js';
import type { DecisionBody } from '../proxy/responses.js';
import { evaluateHookEvent, type HookEvaluation } from './evaluate-hook.js';
import { findConfigUpward } from './find-config.js';
import type { PlanTools } from './hook-actions.js';
import { localAuthorizer, proxyAuthorizer, type HookAuthorizer } from './hook-authorizer.js';
import type { HookEvent, HookOutput, RuntimeProtocol } from './hook-event.js';
import { startResidentProxy } from './resident-proxy.js';
import { runtimeProtocol } from './runtimes/index.js';
import { analyzeWithoutGrammar, loadShellAnalyzer, resolveFilePath, type ShellAnalyzer } from './shell/index.js';
import { plainCommandTree } from './shell/plain-command-tree.js';
import { monotonicMs } from '../monotonic-clock.js';

/**
 * `svc hook <runtime>`: one tool call (or prompt) in, one verdict out in the runtime's own
 * protocol. Everything that goes wrong — input that cannot be read, no svc.yml, a ledger that
 * cannot be written, our own timeout — is a deny with a reason, never a silent allow.
 */
export interface RunHookOptions {
  runtime: string;
  stdin: string;
  /** `--config`; otherwise svc.yml is looked for from the event's cwd upward. */
  configFile?: string;
  timeoutMs: number;
  home?: string;
  /** The `svc` executable (dist/src/cli/svc.cjs), for starting a resident proxy (`hooks.residentProxy`). */
  cliPath?: string;
}

export interface HookRun {
  output: HookOutput;
  /** What was decided, for `--json` diagnostics and tests; absent when the input could not be read. */
  evaluation?: HookEvaluation;
  mode?: HookAuthorizer['mode'];
}

export async function runHook(options: RunHookOptions): Promise<HookRun> {
  const protocol = runtimeProtocol(options.runtime);
  return decideWithin(protocol, options.stdin, options.timeoutMs, async (event) => {
    if (needsBashGrammar(event)) loadShellAnalyzer().catch(() => undefined);
    const loaded = await loadConfig(options.configFile ?? requireConfig(event.cwd));
    const deadline = monotonicMs() + options.timeoutMs;
    // The ledger opens (a lock, reads, waits on the disk) while the call is planned: parsing and
    // path checks need no ledger, and the first authorize waits for it. An opening that fails
    // still fails the call below, whether or not anything was authorized.
    const opening = openAuthorizer(loaded, deadline);
    opening.catch(() => undefined);
    let decided: Omit<HookRun, 'mode'>;
    try {
      decided = await hookDecider(loaded, options.home).decide(event, protocol, async (action) => (await opening).authorize(action));
    } finally {
      await (await opening.catch(() => undefined))?.close();
    }
    const authorizer = await opening;
    const run: HookRun = { ...decided, mode: authorizer.mode };
    // After the ledger is closed, so the proxy can take its lock; a failure to start it is not this call's concern.
    if (authorizer.mode === 'local' && options.cliPath !== undefined) await startResidentProxy(loaded, options.cliPath).catch(() => false);
    return run;
  });
}

/**
 * Parses the event and decides it within `timeoutMs`, turning every failure into a deny in the
 * runtime's protocol. Shared by the hook process and the proxy's `/hooks/<runtime>` route.
 */
export async function decideWithin(protocol: RuntimeProtocol, stdin: string, timeoutMs: number, decide: (event: HookEvent) => Promise<HookRun>): Promise<HookRun> {
  let event: HookEvent;
  try {
    event = protocol.parseInput(stdin);
  } catch (error) {
    return { output: protocol.formatVerdict({ decision: 'deny', reason: failureReason(error) }, undefined) };
  }
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new SvcError('hook_timeout', `svc hook did not decide within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([decide(event), timedOut]);
  } catch (error) {
    return { output: protocol.formatVerdict({ decision: 'deny', reason: failureReason(error) }, event) };
  } finally {
    clearTimeout(timer);
  }
}

export interface HookDecider {
  decide(event: HookEvent, protocol: RuntimeProtocol, authorize: (action: unknown) => Promise<DecisionBody>): Promise<HookRun>;
}

/**
 * The hook path for one svc.yml: protected paths, path resolution and (loaded on first use) the shell analyzer.
 * `adapt` lets an embedder narrow the filesystem tools (the playground confines them to its sandbox).
 */
export function hookDecider(loaded: LoadedConfig, home: string = homedir(), adapt?: (tools: PlanTools) => PlanTools): HookDecider {
  const { config } = loaded;
  const configFile = resolve(loaded.file);
  const guard = compileProtectedPaths(config.protectedPaths, { root: dirname(configFile), home, configFile });
  let analyzer: ShellAnalyzer | undefined;
  const base: PlanTools = {
    analyze: (command, context) => {
      if (analyzer) return analyzer.analyze(command, context);
      // Planning is over before anything is authorized, so the call can be planned again with the grammar.
      const analysis = analyzeWithoutGrammar(command, context);
      if (analysis === undefined) throw new GrammarNeeded();
      return analysis;
    },
    resolvePath: resolveFilePath,
    protects: (path) => guard.protects(path, 'read'),
    home,
  };
  const tools = adapt ? adapt(base) : base;
  return {
    async decide(event, protocol, authorize) {
      if (needsBashGrammar(event)) analyzer ??= await loadShellAnalyzer();
      const stepUp = config.hooks.stepUp === 'ask' && protocol.supports.ask ? 'ask' : 'deny';
      let evaluation: HookEvaluation;
      try {
        evaluation = await evaluateHookEvent(event, { tools, authorize, stepUp });
      } catch (error) {
        // A plain line that runs a script only the grammar can read (`bash build.sh`).
        if (!(error instanceof GrammarNeeded)) throw error;
        analyzer = await loadShellAnalyzer();
        evaluation = await evaluateHookEvent(event, { tools, authorize, stepUp });
      }
      return { output: protocol.formatVerdict(evaluation.verdict, event), evaluation };
    },
  };
}

/** Thrown while planning by a process without the bash grammar when a command needs it. */
class GrammarNeeded extends Error {}

/**
 * Whether a shell command of the event is more than a plain command line, so that analyzing it
 * needs the bash grammar: loaded then as early as possible. A plain line is analyzed without it,
 * unless it runs a script that is not (GrammarNeeded).
 */
function needsBashGrammar(event: HookEvent): boolean {
  return event.event === 'tool' && [event.call, ...(event.additionalCalls ?? [])].some((call) => call.kind === 'shell' && call.dialect === undefined && plainCommandTree(call.command) === undefined);
}

/**
 * The proxy when one runs for this ledger (it holds the writer lock), else the ledger itself. A
 * concurrent hook holds the lock for a few milliseconds, so a locked ledger is retried until the
 * deadline, looking again each time for a proxy that may have taken the lock for good.
 */
async function openAuthorizer(loaded: LoadedConfig, deadline: number): Promise<HookAuthorizer> {
  const ledgerPath = resolveFromConfig(loaded, loaded.config.ledger.path);
  return retryWhileLocked(async () => {
    const url = await readProxyAddress(ledgerPath);
    return url !== undefined ? proxyAuthorizer(url, Math.max(1, deadline - monotonicMs())) : localAuthorizer(loaded);
  }, deadline);
}

function requireConfig(cwd: string): string {
  const found = findConfigUpward(cwd);
  if (found === undefined) throw new SvcError('config_missing', `no svc.yml in ${cwd} or any directory above it; run \`svc init\` in the workspace, or pass --config`);
  return found;
}

function failureReason(error: unknown): string {
  const code = error instanceof SvcError ? error.code : 'internal_error';
  const message = error instanceof Error ? error.message : String(error);
  return `svc could not decide this call, so it is denied to be safe: ${message} [${code}]`;
}

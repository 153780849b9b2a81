import type { FastifyInstance } from 'fastify';
import type { LoadedConfig } from '../config/load-config.js';
import { authorizeWith } from '../hooks/hook-authorizer.js';
import { decideWithin, hookDecider, type HookDecider } from '../hooks/run-hook.js';
import { runtimeProtocol } from '../hooks/runtimes/index.js';
import type { Enforcer } from './enforcer.js';

/** A hook event carries the tool input (a whole file for Write): larger than an action. */
const MAX_HOOK_BODY_BYTES = 4 * 1024 * 1024;
const HOOK_TIMEOUT_MS = 10_000;

/**
 * `POST /hooks/<runtime>`: the hook event exactly as the runtime wrote it, decided here with the
 * shell analyzer already loaded, answered as `{ output: { stdout, stderr, exitCode }, decision,
 * results }`. `svc hook` forwards to it when a proxy serves its svc.yml, so a tool call costs a
 * process start and one request instead of loading the whole engine each time.
 */
export function registerHookRoute(app: FastifyInstance, enforcer: Enforcer, currentConfig: () => LoadedConfig): void {
  let decider: { loaded: LoadedConfig; decider: HookDecider } | undefined;
  app.post<{ Params: { runtime: string } }>('/hooks/:runtime', { bodyLimit: MAX_HOOK_BODY_BYTES }, async (request) => {
    const protocol = runtimeProtocol(request.params.runtime);
    const loaded = currentConfig();
    if (decider?.loaded !== loaded) decider = { loaded, decider: hookDecider(loaded) };
    const current = decider.decider;
    const run = await decideWithin(protocol, JSON.stringify(request.body), HOOK_TIMEOUT_MS, (event) => current.decide(event, protocol, authorizeWith(enforcer)));
    return { output: run.output, ...(run.evaluation && { decision: run.evaluation.decision, results: run.evaluation.results }) };
  });
}

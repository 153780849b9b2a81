import type { ToolHandler } from '../adapters/tool-handler.js';
import { DEFAULT_CONFIG_FILE, loadConfig, type LoadedConfig } from '../config/load-config.js';
import { hashCanonical } from '../events/canonical.js';
import type { Receipt } from '../events/ledger-writer.js';
import { SvcError } from '../errors.js';
import { Enforcer, type Normalized } from '../proxy/enforcer.js';
import { decisionBody, type DecisionBody } from '../proxy/responses.js';
import type { ActionPassClaims } from './actionpass-token.js';

/**
 * The in-process SDK for a Node service that owns its tool call: five verbs over the same
 * decide functions, reducers and ledger as the proxy, so the evidence is the same.
 *
 *   const svc = await createSvc({ config: 'svc.yml' });
 *   const decision = await svc.authorize(action);               // allow / deny / step_up, recorded
 *   if (decision.actionPass) {
 *     const payload = buildWhatIWillSend();                      // the exact payload about to be sent
 *     const pass = svc.verify(decision.actionPass.token, payload); // again, right before the side effect
 *     const result = await callProvider(payload);
 *     await svc.record(pass, { outcome: 'succeeded', payload, result });
 *   }
 *
 * `execute` does the last three steps with a registered handler instead.
 */
export interface SvcClient {
  /** Validates an action as svc.action.v0 and computes its hashes; nothing is recorded. */
  normalize(input: unknown): Normalized;
  /** Decides and records; the answer is the proxy's `/authorize` body. */
  authorize(input: unknown, options?: { approval?: string }): Promise<DecisionBody>;
  /** Checks a pass against the payload about to be sent and uses it up; throws SvcError with the refusal reason. */
  verify(token: string, payload: unknown): ActionPassClaims;
  /** Decides, verifies and runs the registered handler; the answer is the proxy's `/actions` body. */
  execute(input: unknown, options?: { approval?: string }): Promise<DecisionBody>;
  /** Records the outcome of a side effect performed after `verify`: the equivalence pair. */
  record(claims: ActionPassClaims, outcome: { outcome: 'succeeded' | 'failed'; payload: unknown; result?: unknown }): Promise<Receipt>;
  close(): Promise<void>;
}

export interface CreateSvcOptions {
  /** svc.yml path (default ./svc.yml) or an already loaded config. */
  config?: string | LoadedConfig;
  handlers?: readonly ToolHandler[];
}

export async function createSvc(options: CreateSvcOptions = {}): Promise<SvcClient> {
  const loaded = typeof options.config === 'object' ? options.config : await loadConfig(options.config ?? DEFAULT_CONFIG_FILE);
  const enforcer = await Enforcer.open(loaded, { ...(options.handlers && { handlers: options.handlers }) });
  const requestOptions = (approval?: string) => ({ source: 'sdk' as const, ...(approval !== undefined && { presentedApproval: approval }) });
  return {
    normalize: (input) => enforcer.normalize(input),
    async authorize(input, authorizeOptions) {
      const result = await enforcer.authorize(input, requestOptions(authorizeOptions?.approval));
      if ('invalid' in result) throw invalidAction(result.invalid);
      return decisionBody(result);
    },
    verify(token, payload) {
      const check = enforcer.verifyPass(token, hashCanonical(payload));
      if (!check.ok) throw new SvcError(check.reason, check.message);
      return check.claims;
    },
    async execute(input, executeOptions) {
      const result = await enforcer.execute(input, requestOptions(executeOptions?.approval));
      if ('invalid' in result) throw invalidAction(result.invalid);
      return decisionBody(result);
    },
    record(claims, outcome) {
      return enforcer.recordExecution(claims, {
        outcome: outcome.outcome,
        executedPayloadHash: hashCanonical(outcome.payload),
        resultHash: hashCanonical(outcome.result ?? null),
      });
    },
    close: () => enforcer.close(),
  };
}

function invalidAction(issues: { path: string; message: string }[]): SvcError {
  const error = new SvcError('schema_invalid', `not a valid svc.action.v0 action: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`);
  return Object.assign(error, { issues });
}

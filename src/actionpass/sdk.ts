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
 *   const decision = await svc.authorize(action);                     // allow / deny / step_up, recorded
 *   if (decision.actionPass) {
 *     const payload = buildWhatIWillSend();                            // the exact payload about to be sent
 *     const pass = await svc.verify(decision.actionPass.token, payload); // again, right before the side effect
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
  /**
   * Checks a pass against the payload about to be sent and uses it up. A refusal rejects with
   * SvcError carrying the refusal code, once its `execution.blocked` record is durable (for a pass
   * svc signed and not yet spent; see docs/sdk.md), or with `ledger_unavailable` (and the refusal
   * code as `refusal`) when that record cannot be written. Either way the pass is spent.
   */
  verify(token: string, payload: unknown): Promise<ActionPassClaims>;
  /** Decides, verifies and runs the registered handler; the answer is the proxy's `/actions` body. */
  execute(input: unknown, options?: { approval?: string }): Promise<DecisionBody>;
  /**
   * Records the outcome of a side effect performed after a successful `verify`: the equivalence
   * pair. Takes the claims `verify` returned, once; anything else is refused (`actionpass_not_verified`).
   */
  record(claims: ActionPassClaims, outcome: { outcome: 'succeeded' | 'failed'; payload: unknown; result?: unknown }): Promise<Receipt>;
  close(): Promise<void>;
}

export interface CreateSvcOptions {
  /** svc.yml path (default ./svc.yml) or an already loaded config. */
  config?: string | LoadedConfig;
  handlers?: readonly ToolHandler[];
  /** The clock, in ms, that decisions and pass checks read (default `Date.now`); tests move it. */
  now?: () => number;
}

/** A verified pass whose outcome is not recorded an hour after it expired never will be: forgotten (as the ledger state forgets used passes). */
const FORGET_VERIFIED_AFTER_EXPIRY_MS = 3_600_000;

export async function createSvc(options: CreateSvcOptions = {}): Promise<SvcClient> {
  const loaded = typeof options.config === 'object' ? options.config : await loadConfig(options.config ?? DEFAULT_CONFIG_FILE);
  const now = options.now ?? Date.now;
  const enforcer = await Enforcer.open(loaded, { ...(options.handlers && { handlers: options.handlers }), now });
  const requestOptions = (approval?: string) => ({ source: 'sdk' as const, ...(approval !== undefined && { presentedApproval: approval }) });
  /** Passes this client verified whose outcome `record` has not written yet, by jti: the only claims `record` accepts. */
  const verified = new Map<string, ActionPassClaims>();
  const forgetStale = () => {
    const horizon = now() - FORGET_VERIFIED_AFTER_EXPIRY_MS;
    for (const [jti, claims] of verified) if (claims.exp * 1000 < horizon) verified.delete(jti);
  };
  return {
    normalize: (input) => enforcer.normalize(input),
    async authorize(input, authorizeOptions) {
      const result = await enforcer.authorize(input, requestOptions(authorizeOptions?.approval));
      if ('invalid' in result) throw invalidAction(result.invalid);
      return decisionBody(result);
    },
    async verify(token, payload) {
      // A side effect whose outcome cannot be recorded must not happen: fail closed, as the proxy answers 503.
      const poisoned = enforcer.health().ledger.poisoned;
      if (poisoned !== undefined) throw new SvcError('ledger_unavailable', `the ledger cannot be written, so no ActionPass is accepted: ${poisoned}`);
      const executedPayloadHash = hashCanonical(payload);
      const check = enforcer.verifyPass(token, executedPayloadHash);
      if (check.ok) {
        forgetStale();
        verified.set(check.claims.jti, check.claims);
        return check.claims;
      }
      const refusal = new SvcError(check.reason, check.message);
      // Only a pass svc signed names an action the ledger can trust; one already spent has its
      // ending recorded (or being recorded by whoever verified it): a second attempt adds none.
      // Nothing awaits between the check and the record, so of concurrent attempts one records.
      const claims = enforcer.trustedPassClaims(token);
      if (!claims || enforcer.state.isPassUsed(claims.jti)) throw refusal;
      try {
        await enforcer.recordBlocked(claims, check.reason, executedPayloadHash);
      } catch (error) {
        // Fail closed: still a refusal (the pass is spent), under the code that says the evidence is missing.
        const code = error instanceof SvcError ? error.code : 'ledger_unavailable';
        const failure = new SvcError(code, `ActionPass refused (${check.reason}: ${check.message}), and its execution.blocked record could not be written: ${(error as Error).message}`, { cause: error });
        throw Object.assign(failure, { refusal: check.reason });
      }
      throw refusal;
    },
    async execute(input, executeOptions) {
      const result = await enforcer.execute(input, requestOptions(executeOptions?.approval));
      if ('invalid' in result) throw invalidAction(result.invalid);
      return decisionBody(result);
    },
    async record(claims, outcome) {
      const jti = (claims as Partial<ActionPassClaims> | undefined)?.jti;
      const pass = jti === undefined ? undefined : verified.get(jti);
      if (!pass) {
        throw new SvcError(
          'actionpass_not_verified',
          `ActionPass ${jti ?? '(no jti)'} was not verified by this client, was refused, or its outcome is already recorded: record takes the claims a successful verify returned, once`,
        );
      }
      const result = { outcome: outcome.outcome, executedPayloadHash: hashCanonical(outcome.payload), resultHash: hashCanonical(outcome.result ?? null) };
      verified.delete(pass.jti);
      return enforcer.recordExecution(pass, result);
    },
    close: () => enforcer.close(),
  };
}

function invalidAction(issues: { path: string; message: string }[]): SvcError {
  const error = new SvcError('schema_invalid', `not a valid svc.action.v0 action: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`);
  return Object.assign(error, { issues });
}

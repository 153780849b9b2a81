import { normalizeAction, type ActionIssue, type NormalizedAction } from '../actionpass/action.js';
import { verifyActionPass, type ActionPassClaims } from '../actionpass/actionpass-token.js';
import { inThreadPassSigner, workerPassSigner, type PassSigner } from '../actionpass/pass-signer.js';
import { verifyApprovalArtifact } from '../actionpass/approval-artifact.js';
import { parseCompactJws, signedTokenJson } from '../actionpass/jws.js';
import { loadPassSigner } from '../actionpass/key-ring.js';
import { readTrustStore, TrustIndex } from '../actionpass/trust-store.js';
import { HandlerRegistry } from '../adapters/handler-registry.js';
import type { ExecutionResult, HandlerContext, ToolHandler } from '../adapters/tool-handler.js';
import { decideGrant, decideRejection } from '../commands/approve.js';
import { decideAuthorization, type AuthorizeOutcome, type PreVerdict } from '../commands/authorize.js';
import { executionBlocked, executionCompleted } from '../commands/record-execution.js';
import { serializedDecided, serializedPassIssued, serializedReceived } from '../commands/serialized-records.js';
import { recheckApprovalBeforeSideEffect } from '../commands/resolve-approval.js';
import type { LoadedConfig } from '../config/load-config.js';
import { resolveFromConfig } from '../config/load-config.js';
import type { SvcConfig } from '../config/schema.js';
import { canonicalJson, hashCanonical } from '../events/canonical.js';
import type { ActionSource, LedgerEvent } from '../events/catalogue.js';
import { openLedgerWithKey } from '../events/ledger-key.js';
import type { LedgerWriter, Receipt, SerializedEvent } from '../events/ledger-writer.js';
import { SvcError } from '../errors.js';
import { HOOK_TOOLS_DESCRIPTION, isHookTool } from '../hooks/hook-tools.js';
import type { CompiledPolicy, PolicyMode } from '../policy/compile-policy.js';
import { compileConfigPolicy } from '../policy/config-policy.js';
import { REASON_CODE_PATTERN } from '../policy/reason-codes.js';
import { RuntimeState, type OpenApproval } from '../projections/runtime-state.js';
import { newId } from './ids.js';

/**
 * The enforcement spine without HTTP: normalize, decide, append, issue, verify again, execute,
 * record. The proxy, the SDK and the approval commands all drive this one object, so a decision
 * taken over HTTP and one taken in-process are the same decision with the same evidence.
 *
 * Every decision is made and sealed into the ledger in one synchronous step, so the state the
 * next decision sees already holds it (a used approval, a budget); nothing is answered before the
 * records that justify it are durable, and a ledger that cannot be written fails every request.
 */
export interface EnforcerOptions {
  handlers?: readonly ToolHandler[];
  now?: () => number;
  /**
   * Where passes are signed: a worker thread holding the key (a long-running proxy), or this
   * thread (a short-lived hook process, where starting a worker costs more than it saves).
   */
  signer?: 'worker' | 'in-thread';
  /**
   * Reopen the ledger from its resume point, checking only the records written since (a hook
   * process, which opens the ledger before every tool call). Without it the whole ledger is
   * checked again, as a long-running proxy does once at start.
   */
  resume?: boolean;
}

export type Normalized = { ok: true; action: NormalizedAction; actionJson: string; actionHash: string; payloadHash: string } | { ok: false; issues: ActionIssue[] };

export interface Decided {
  outcome: AuthorizeOutcome;
  /**
   * The signed ActionPass, for an allow (or an approved step-up); `claimsJson`: the claims' JCS
   * text, as signed; `tokenJson`: the token as a JSON string (signedTokenJson).
   */
  pass?: { token: string; claims: ActionPassClaims; claimsJson?: string; tokenJson?: string | undefined };
  action: NormalizedAction;
  actionId: string;
  actionHash: string;
  payloadHash: string;
  receipts: Receipt[];
}

export interface Executed extends Decided {
  execution?: { status: 'executed' | 'failed' | 'blocked'; approvedPayloadHash: string; executedPayloadHash?: string; reason?: string; result?: ExecutionResult; receipt?: Receipt };
}

export interface RequestOptions {
  source: ActionSource;
  mode?: PolicyMode;
  presentedApproval?: string;
  /** A verdict reached before the policy (MCP definition pins); see `AuthorizeCommand.guard`. */
  guard?: PreVerdict;
}

export class Enforcer {
  private readonly handlers = new HandlerRegistry();
  private readonly now: () => number;
  private trust: TrustIndex;

  private constructor(
    private config: SvcConfig,
    private policy: CompiledPolicy,
    readonly writer: LedgerWriter,
    readonly state: RuntimeState,
    private signer: PassSigner,
    trust: TrustIndex,
    private readonly keyFiles: { keysDir: string; trustFile: string },
    options: EnforcerOptions,
  ) {
    this.trust = trust;
    this.now = options.now ?? Date.now;
    for (const handler of options.handlers ?? []) this.handlers.register(handler);
  }

  /**
   * Opens the ledger (recovering a torn tail), folds it into the runtime state, loads the
   * ActionPass key and trust store, and records the configuration in force as `config.loaded`.
   */
  static async open(loaded: LoadedConfig, options: EnforcerOptions = {}): Promise<Enforcer> {
    const { config } = loaded;
    const policy = compileConfigPolicy(loaded);
    // Folded while the writer checks the file, then fed each record as it is sealed.
    let state = new RuntimeState(policy.budgets);
    const ledgerPath = resolveFromConfig(loaded, config.ledger.path);
    const writer = await openLedgerWithKey(ledgerPath, {
      tenant: config.tenant,
      checkpointEveryRecords: config.ledger.checkpoint.everyRecords,
      checkpointEveryMs: config.ledger.checkpoint.everyMs,
      resume: options.resume === true,
      projection: {
        start(saved) {
          const restored = saved === undefined ? new RuntimeState(policy.budgets) : RuntimeState.restore(saved, policy.budgets);
          if (restored) state = restored;
          return restored !== undefined;
        },
        apply: (checked) => state.apply(checked.record),
        save: () => state.snapshot(),
      },
      onSealed: (checked) => state.apply(checked.record),
    });
    try {
      const keyFiles = { keysDir: resolveFromConfig(loaded, config.keys.dir), trustFile: resolveFromConfig(loaded, config.keys.trust) };
      const { key, trust } = await loadPassSigner({ ...keyFiles, tenant: config.tenant });
      const signer = options.signer === 'in-thread' ? inThreadPassSigner(key) : await workerPassSigner(key);
      const enforcer = new Enforcer(config, policy, writer, state, signer, trust, keyFiles, options);
      await enforcer.recordConfig();
      return enforcer;
    } catch (error) {
      await writer.close().catch(() => undefined);
      throw error;
    }
  }

  get tenant(): string {
    return this.config.tenant;
  }

  get policyHash(): string {
    return this.policy.policyHash;
  }

  normalize(input: unknown): Normalized {
    return normalizeAction(input, this.config.tenant);
  }

  /** Decides an action and appends its records; the pass, if any, is returned only once they are durable. */
  async authorize(input: unknown, options: RequestOptions): Promise<Decided | { invalid: ActionIssue[] }> {
    const normalized = this.normalize(input);
    if (!normalized.ok) return { invalid: normalized.issues };
    const issues = this.contractIssues(normalized.action, options.source);
    if (issues.length > 0) return { invalid: issues };
    return this.decide(normalized, options);
  }

  /**
   * A pass from `/authorize` is spent by the caller's own code, with the exact payload it binds,
   * so an action for a tool this process has a handler for must meet that handler's contract
   * here as on `/actions`: otherwise a payload no handler would accept (two recipients in one
   * `to`, an extra `bcc`) could still match a rule and get a pass. A hook's action is the agent's
   * own work and meets no adapter contract, but may only name the tools hooks plan.
   */
  private contractIssues(action: NormalizedAction, source: ActionSource): ActionIssue[] {
    const tool = action.capability.tool;
    if (source === 'hook') {
      return isHookTool(tool) ? [] : [{ path: 'capability.tool', message: `a hook's action names ${HOOK_TOOLS_DESCRIPTION}, not ${tool}` }];
    }
    return this.handlers.get(tool)?.validate(action) ?? [];
  }

  /** `/actions`: decides, and for a pass verifies it again and runs the registered handler. */
  async execute(input: unknown, options: RequestOptions): Promise<Executed | { invalid: ActionIssue[] }> {
    const normalized = this.normalize(input);
    if (!normalized.ok) return { invalid: normalized.issues };
    const handler = this.handlers.get(normalized.action.capability.tool);
    if (!handler) throw new SvcError('handler_missing', `no handler is registered for ${normalized.action.capability.tool}; registered: ${this.handlers.tools().join(', ') || '(none)'}. Use /authorize to decide without executing.`);
    const issues = handler.validate(normalized.action);
    if (issues && issues.length > 0) return { invalid: issues };
    const decided = await this.decide(normalized, options);
    const pass = decided.pass;
    if (!pass) return decided;
    return { ...decided, execution: await this.runHandler(handler, decided, pass) };
  }

  /** Verifies a pass against a payload about to be sent (the SDK's `verify`), and marks it used. */
  verifyPass(token: string, payloadHash: string): { ok: true; claims: ActionPassClaims } | { ok: false; reason: string; message: string } {
    const check = verifyActionPass(token, {
      trust: this.trust,
      nowMs: this.now(),
      audience: this.config.actionpass.audience,
      tenant: this.config.tenant,
      payloadHash,
      isPassUsed: (jti) => this.state.isPassUsed(jti),
    });
    if (!check.ok) return check;
    this.state.markPassUsed(check.claims.jti);
    return { ok: true, claims: check.claims };
  }

  /**
   * The check DESIGN.md 6 puts immediately before a side effect this process performs (a
   * handler, the MCP gate): the approval artifact of an approved step-up, when there is one,
   * then the ActionPass, against the hash of the bytes about to be sent. Marks the pass used.
   */
  verifyBeforeSideEffect(decided: Decided, token: string, executedPayloadHash: string): { ok: true; claims: ActionPassClaims } | { ok: false; reason: string; message: string } {
    const grant = decided.outcome.grant;
    const refusal = grant && recheckApprovalBeforeSideEffect(grant, executedPayloadHash, (artifact) => this.verifyArtifact(artifact));
    if (refusal) return { ok: false, reason: refusal.reason, message: refusal.message };
    return this.verifyPass(token, executedPayloadHash);
  }

  /**
   * The claims of a pass `verifyPass` refused, when the token is ours: its signature verifies
   * under an unrevoked ActionPass key of the trust store and its claims are of the pass schema, so
   * the actionId and payloadHash it names can be trusted, and recorded (`recordBlocked`), whatever
   * else is wrong with it (expired, used, another payload, audience or tenant). Undefined for a
   * token that is not ours (malformed, unknown or revoked kid, bad signature), which names nothing
   * trustworthy. The pass verifier itself decides, given the expectations the claims state for
   * themselves (a time inside their window, their audience, tenant and payload, an unused jti),
   * so only the form, key, signature or schema can fail it.
   */
  trustedPassClaims(token: string): ActionPassClaims | undefined {
    const claims = parseCompactJws(token)?.claims;
    if (!claims) return undefined;
    const check = verifyActionPass(token, {
      trust: this.trust,
      nowMs: Math.max(Number(claims.nbf), Number(claims.iat)) * 1000,
      audience: String(claims.aud),
      tenant: String(claims.tenant),
      payloadHash: String(claims.payloadHash),
      isPassUsed: () => false,
    });
    return check.ok ? check.claims : undefined;
  }

  /** Records the outcome of an execution the caller performed itself after `verifyPass`. */
  async recordExecution(claims: ActionPassClaims, result: { outcome: 'succeeded' | 'failed'; executedPayloadHash: string; resultHash: string }): Promise<Receipt> {
    return this.append([executionCompleted(claims.actionId, claims.jti, claims.payloadHash, result)]).then((receipts) => receipts[0] as Receipt);
  }

  /**
   * Records a refusal at the execution boundary after `verifyPass` failed: nothing was sent. The
   * pass is spent by the attempt, here at once (before the record is durable, and even if the
   * ledger fails) as by the record's fold after a restart, so it cannot be tried again.
   */
  async recordBlocked(claims: ActionPassClaims, reason: string, executedPayloadHash: string): Promise<Receipt> {
    this.state.markPassUsed(claims.jti);
    return this.append([executionBlocked(claims.actionId, reason, claims.payloadHash, executedPayloadHash)]).then((receipts) => receipts[0] as Receipt);
  }

  /** Records what became of an MCP server's tool definitions (pinned, changed): evidence beside the decisions. */
  async recordPins(events: readonly Extract<LedgerEvent, { type: 'mcp.tool.pinned' | 'mcp.tool.changed' }>[]): Promise<Receipt[]> {
    return events.length === 0 ? [] : this.append([...events]);
  }

  async grantApproval(approvalId: string, artifact: string): Promise<{ approval: OpenApproval; receipt: Receipt }> {
    await this.refreshTrust();
    const decision = decideGrant(this.state, {
      approvalId,
      artifact,
      nowMs: this.now(),
      approvalTtlMs: this.config.approvals.ttlSeconds * 1000,
      verifyArtifact: (token) => this.verifyArtifact(token),
    });
    if (!decision.ok) throw new SvcError(decision.code, decision.message);
    const [receipt] = await this.append(decision.events);
    return { approval: this.state.approval(approvalId) as OpenApproval, receipt: receipt as Receipt };
  }

  async rejectApproval(approvalId: string, rejectedBy: string, reason: string): Promise<Receipt> {
    const decision = decideRejection(this.state, { approvalId, rejectedBy, reason });
    if (!decision.ok) throw new SvcError(decision.code, decision.message);
    const [receipt] = await this.append(decision.events);
    return receipt as Receipt;
  }

  approval(approvalId: string): OpenApproval | undefined {
    return this.state.approval(approvalId);
  }

  openApprovals(): OpenApproval[] {
    return this.state.openApprovals();
  }

  /**
   * Swaps in a new policy (and pass and approval settings). The swap and its `config.loaded`
   * record happen in one step: every decision sealed after that record used the new policy.
   * Anything that needs a restart (tenant, ledger, keys, listen address) refuses the reload.
   */
  async reload(loaded: LoadedConfig): Promise<Receipt> {
    const next = loaded.config;
    for (const key of ['tenant', 'ledger', 'keys', 'proxy', 'adapters'] as const) {
      if (hashCanonical(next[key]) !== hashCanonical(this.config[key])) {
        throw new SvcError('config_reload_refused', `changing ${key} needs a restart of svc proxy; the running policy is unchanged`);
      }
    }
    const policy = compileConfigPolicy(loaded);
    // A longer budget window counts from now on what the old window still held: it never fails, and
    // it never counts more than happened.
    this.state.budgets.widenWindow(Math.max(0, ...policy.budgets.map((budget) => budget.windowMs)));
    const receipt = this.append([this.configEvent(next, policy)]);
    this.config = next;
    this.policy = policy;
    return (await receipt)[0] as Receipt;
  }

  health(): { ok: boolean; ledger: { size: number; poisoned?: string }; tenant: string; policyHash: string; tools: string[] } {
    const poisoned = this.writer.poisoned;
    return { ok: !poisoned, ledger: { size: this.writer.size, ...(poisoned && { poisoned: poisoned.message }) }, tenant: this.config.tenant, policyHash: this.policy.policyHash, tools: this.handlers.tools() };
  }

  async close(): Promise<void> {
    await this.signer.close();
    await this.writer.close();
  }

  /** Records the configuration in force, unless the ledger's last `config.loaded` already says the same. */
  private async recordConfig(): Promise<void> {
    const event = this.configEvent(this.config, this.policy);
    const last = this.state.lastConfig;
    if (last && last.configHash === event.data.configHash && last.policyHash === event.data.policyHash) return;
    await this.append([event]);
  }

  private configEvent(config: SvcConfig, policy: CompiledPolicy): Extract<LedgerEvent, { type: 'config.loaded' }> {
    return { type: 'config.loaded', stream: 'config', data: { configHash: hashCanonical(config), policyHash: policy.policyHash } };
  }

  private async decide(normalized: Extract<Normalized, { ok: true }>, options: RequestOptions): Promise<Decided> {
    if (options.presentedApproval !== undefined) await this.refreshTrust();
    const actionId = newId('act');
    // From here to the append nothing awaits: the decision and its records are one step.
    const outcome = decideAuthorization(
      this.state,
      {
        action: normalized.action,
        actionHash: normalized.actionHash,
        payloadHash: normalized.payloadHash,
        source: options.source,
        ids: { actionId, passId: newId('pass'), approvalId: newId('apr') },
        nowMs: this.now(),
        decisionSeq: this.writer.nextEventSeqs(2)[1] as number,
        mode: options.mode ?? (options.source === 'hook' ? 'hook' : 'enforce'),
        // Neither a hook nor an MCP client can carry an approval id into the agent's next attempt.
        findApprovalByPayload: options.source === 'hook' || options.source === 'mcp',
        ...(options.presentedApproval !== undefined && { presentedApproval: options.presentedApproval }),
        ...(options.guard !== undefined && { guard: options.guard }),
      },
      {
        policy: this.policy,
        pass: this.config.actionpass,
        approvalTtlMs: this.config.approvals.ttlSeconds * 1000,
        verifyArtifact: (token) => this.verifyArtifact(token),
      },
    );
    // The action's text was hashed for actionHash already: the ledger takes it as it is.
    const events = outcome.events.map((event) => (event.type === 'policy.decided' ? serializedDecided(event) : serializedReceived(event, normalized.action, normalized.actionJson)));
    if (outcome.pass && this.signer.signNow) {
      // Signed on this thread: the decision and its pass are sealed together and share one fdatasync.
      const claims = outcome.pass.claims;
      const claimsJson = canonicalJson(claims);
      const token = this.signer.signNow(claimsJson);
      const tokenJson = signedTokenJson(token);
      const receipts = await this.append([...events, serializedPassIssued(claims, claimsJson, token, tokenJson)]);
      return { outcome, pass: { token, claims, claimsJson, tokenJson }, action: normalized.action, actionId, actionHash: normalized.actionHash, payloadHash: normalized.payloadHash, receipts };
    }
    const sealed = this.append(events);
    // Sealed already (appends seal synchronously); its durability is awaited below, while the pass is signed.
    sealed.catch(() => undefined);
    const pass = outcome.pass ? await this.signAndAppend(outcome.pass.claims) : undefined;
    const receipts = [...(await sealed), ...(pass ? [await pass.receipt] : [])];
    return { outcome, pass: pass && { token: pass.token, claims: outcome.pass?.claims as ActionPassClaims, claimsJson: pass.claimsJson, tokenJson: pass.tokenJson }, action: normalized.action, actionId, actionHash: normalized.actionHash, payloadHash: normalized.payloadHash, receipts };
  }

  /**
   * Signs a pass off the main thread and appends its record. Until that record is sealed, the
   * approval it uses is reserved, so a concurrent request cannot use the same approval twice.
   */
  private async signAndAppend(claims: ActionPassClaims): Promise<{ token: string; claimsJson: string; tokenJson: string | undefined; receipt: Promise<Receipt> }> {
    const approvalId = claims.approvalId;
    if (approvalId !== undefined) this.state.reserveApproval(approvalId);
    try {
      const claimsJson = canonicalJson(claims);
      const token = await this.signer.sign(claimsJson);
      const tokenJson = signedTokenJson(token);
      const receipt = this.append([serializedPassIssued(claims, claimsJson, token, tokenJson)]).then((receipts) => receipts[0] as Receipt);
      receipt.catch(() => undefined);
      return { token, claimsJson, tokenJson, receipt };
    } finally {
      if (approvalId !== undefined) this.state.releaseApproval(approvalId);
    }
  }

  /**
   * Runs the handler with the check DESIGN.md 6 puts immediately before the side effect: the
   * approval artifact of a step-up (when there is one), then the ActionPass, against the hash of
   * the bytes the handler is about to send. Every way it ends is recorded (SPEC.md 4.2):
   * `execution.completed` once the pass was verified (the side effect may have happened, even if
   * it failed), `execution.blocked` when the handler stopped before it (nothing was sent).
   */
  private async runHandler(handler: ToolHandler, decided: Decided, pass: { token: string; claims: ActionPassClaims }): Promise<NonNullable<Executed['execution']>> {
    const approvedPayloadHash = pass.claims.payloadHash;
    let attemptedHash: string | undefined;
    let verified = false;
    const context: HandlerContext = {
      actionId: decided.actionId,
      verifyBeforeSideEffect: (executedPayloadHash) => {
        attemptedHash = executedPayloadHash;
        const check = this.verifyBeforeSideEffect(decided, pass.token, executedPayloadHash);
        if (!check.ok) throw new SvcError(check.reason, check.message);
        verified = true;
      },
    };
    let result: ExecutionResult;
    try {
      result = await handler.execute(decided.action, context);
    } catch (error) {
      // Appends are prechecked, so a code that is no ledger reason code (a custom handler's own)
      // must not reach the record: it is reported as adapter_failed.
      const code = error instanceof SvcError && REASON_CODE_PATTERN.test(error.code) ? error.code : 'adapter_failed';
      if (!verified) {
        // Nothing was sent. The pair is the hash the pass bound and the hash the handler was about
        // to send, or, when it stopped before preparing its bytes (an unsafe outbox), the hash of
        // the payload it was given. The pass was issued for this one execution and leaves the
        // process in the answer: spent here (and by the record's fold, after a restart too), so
        // no one can try it again elsewhere.
        const executedPayloadHash = attemptedHash ?? decided.payloadHash;
        this.state.markPassUsed(pass.claims.jti);
        const [receipt] = await this.append([executionBlocked(decided.actionId, code, approvedPayloadHash, executedPayloadHash)]);
        return { status: 'blocked', approvedPayloadHash, executedPayloadHash, reason: code, ...(receipt && { receipt }) };
      }
      result = { outcome: 'failed', executedPayloadHash: attemptedHash as `sha256:${string}`, resultHash: hashCanonical({ error: code }), result: { error: code }, error: { code, message: 'the handler failed after the pass was verified' } };
    }
    const [receipt] = await this.append([executionCompleted(decided.actionId, pass.claims.jti, approvedPayloadHash, result)]);
    return { status: result.outcome === 'succeeded' ? 'executed' : 'failed', approvedPayloadHash, executedPayloadHash: result.executedPayloadHash, result, ...(receipt && { receipt }) };
  }

  private verifyArtifact(token: string) {
    return verifyApprovalArtifact(token, { trust: this.trust, nowMs: this.now(), tenant: this.config.tenant });
  }

  /**
   * Re-reads the trust store (reviewers are added and keys revoked while the proxy runs). If the
   * ActionPass key was revoked, signing moves to the newest usable key, or a new one, before
   * anything else is issued. Returns what changed, for the operator.
   */
  async refreshTrust(): Promise<string> {
    this.trust = TrustIndex.of(await readTrustStore(this.keyFiles.trustFile));
    if (this.trust.resolve(this.signer.keyName, 'actionpass').ok) return `trust store reloaded; ActionPass key ${this.signer.keyName}`;
    const revoked = this.signer.keyName;
    const signer = await loadPassSigner({ ...this.keyFiles, tenant: this.config.tenant });
    const previous = this.signer;
    this.signer = await workerPassSigner(signer.key);
    this.trust = signer.trust;
    void previous.close();
    return `ActionPass key ${revoked} is no longer trusted; passes are now signed by ${signer.key.name}`;
  }

  private async append(events: readonly (LedgerEvent | SerializedEvent)[]): Promise<Receipt[]> {
    try {
      return await this.writer.appendBatch(events, { prechecked: true });
    } catch (error) {
      if (error instanceof SvcError && error.code === 'event_invalid') throw error;
      throw new SvcError('ledger_unavailable', `the ledger cannot be written, so nothing is allowed: ${(error as Error).message}`, { cause: error });
    }
  }
}

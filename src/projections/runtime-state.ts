import type { NormalizedAction } from '../actionpass/action.js';
import type { LedgerRecord } from '../events/catalogue.js';
import { recordTimeMs } from '../events/rfc3339.js';
import { BudgetCounter, type BudgetSnapshot } from './budgets.js';
import { ExpiryIndex } from './expiry-index.js';
import { evolve, initialState, restoreState, snapshotState, type ApprovalState, type LedgerState, type LedgerStateSnapshot } from './state.js';

/**
 * What the enforcement spine needs to decide the next command, folded from the ledger by the
 * same `evolve` every verifier uses, plus what only a live decider needs: budgets, which passes
 * were already used, and the exact action behind each open approval (a reviewer must see the
 * payload they approve). Fed every record in seq order, at start-up from the file and then as
 * each record is sealed, so a decision never misses an earlier one.
 */
export interface OpenApproval extends ApprovalState {
  /** The action that asked for approval, exactly as received. */
  action?: NormalizedAction;
  /** The granted artifact, to execute by approval id. */
  artifact?: string;
}

/** Settled approvals remembered for their refusal reason; older ones are refused as unknown. */
const MAX_SETTLED_APPROVALS = 100_000;

type McpToolRecord = { pinned?: string; changed?: { pinnedHash: string; presentedHash: string } };

/** A RuntimeState as JSON-safe data, for the ledger's resume point; maps are entry lists in their order. */
export interface RuntimeStateSnapshot {
  format: typeof SNAPSHOT_FORMAT;
  ledger: LedgerStateSnapshot;
  budgets: BudgetSnapshot;
  usedPasses: [string, number][];
  awaitingApproval: [string, NormalizedAction][];
  approvalActions: [string, NormalizedAction][];
  approvalArtifacts: [string, string][];
  passExpiry: [string, number][];
  settledApprovals: [string, 'used' | 'rejected'][];
  lastSweep: number;
  mcpTools: [string, McpToolRecord][];
  lastConfig?: { configHash: string; policyHash: string };
}

const SNAPSHOT_FORMAT = 'svc.runtime-state.v1';

export class RuntimeState {
  ledger: LedgerState = initialState();
  budgets: BudgetCounter;
  /** jti → exp (seconds): passes already executed or blocked, kept until they expire anyway. */
  private usedPasses = new Map<string, number>();
  /** usedPasses' and passExpiry's jtis by expiry, for the sweep. Derived: in neither the snapshot nor the state's own properties. */
  #usedPassesByExpiry = new ExpiryIndex<string>();
  #passExpiryByExpiry = new ExpiryIndex<string>();
  /** Step-up actions between their receipt and their approval request. */
  private awaitingApproval = new Map<string, NormalizedAction>();
  private approvalActions = new Map<string, NormalizedAction>();
  private approvalArtifacts = new Map<string, string>();
  /** Passes by jti until executed, so an execution can release their jti. */
  private passExpiry = new Map<string, number>();
  /** How approvals that left the open set ended, so a reuse is refused as used, not as unknown. */
  private settledApprovals = new Map<string, 'used' | 'rejected'>();
  private readonly reservedApprovals = new Set<string>();
  private lastSweep = 0;
  /** `<server>\0<tool>` → the definition hashes the ledger last recorded as pinned and as presented instead. */
  private mcpTools = new Map<string, McpToolRecord>();
  /** The configuration the last `config.loaded` record named. */
  lastConfig: { configHash: string; policyHash: string } | undefined;

  /** `budgets`: the policy's budgets (or their longest window), so counts reach back far enough. */
  constructor(budgets: ConstructorParameters<typeof BudgetCounter>[0]) {
    this.budgets = new BudgetCounter(budgets);
  }

  /** Everything the fold has built, as data: folding on from `restore(snapshot())` equals folding on from here. */
  snapshot(): RuntimeStateSnapshot {
    return {
      format: SNAPSHOT_FORMAT,
      ledger: snapshotState(this.ledger),
      budgets: this.budgets.snapshot(),
      usedPasses: [...this.usedPasses],
      awaitingApproval: [...this.awaitingApproval],
      approvalActions: [...this.approvalActions],
      approvalArtifacts: [...this.approvalArtifacts],
      passExpiry: [...this.passExpiry],
      settledApprovals: [...this.settledApprovals],
      lastSweep: this.lastSweep,
      mcpTools: [...this.mcpTools],
      ...(this.lastConfig && { lastConfig: this.lastConfig }),
    };
  }

  /**
   * The state a snapshot describes, or undefined when it is not one of this version or its budget
   * counter kept a shorter window than `budgets` needs (then the ledger must be folded again).
   */
  static restore(saved: unknown, budgets: ConstructorParameters<typeof BudgetCounter>[0]): RuntimeState | undefined {
    const snapshot = saved as Partial<RuntimeStateSnapshot> | undefined;
    if (snapshot?.format !== SNAPSHOT_FORMAT) return undefined;
    const full = snapshot as RuntimeStateSnapshot;
    try {
      const counter = BudgetCounter.restore(full.budgets, budgets);
      if (!counter) return undefined;
      const state = new RuntimeState(budgets);
      state.ledger = restoreState(full.ledger);
      state.budgets = counter;
      state.usedPasses = new Map(full.usedPasses);
      for (const [jti, exp] of state.usedPasses) state.#usedPassesByExpiry.add(jti, exp);
      state.awaitingApproval = new Map(full.awaitingApproval);
      state.approvalActions = new Map(full.approvalActions);
      state.approvalArtifacts = new Map(full.approvalArtifacts);
      state.passExpiry = new Map(full.passExpiry);
      for (const [jti, exp] of state.passExpiry) state.#passExpiryByExpiry.add(jti, exp);
      state.settledApprovals = new Map(full.settledApprovals);
      state.lastSweep = full.lastSweep;
      state.mcpTools = new Map(full.mcpTools);
      if (full.lastConfig) state.lastConfig = full.lastConfig;
      return state;
    } catch {
      // Not the shape this version writes: fold the ledger instead.
      return undefined;
    }
  }

  get size(): number {
    return this.ledger.size;
  }

  /** Folds one record; records already folded (seq below the size) are ignored. */
  apply(record: LedgerRecord): void {
    if (record.seq < this.ledger.size) return;
    this.budgets.apply(record);
    switch (record.type) {
      case 'action.received':
        this.awaitingApproval.set(record.data.actionId, record.data.action as NormalizedAction);
        break;
      case 'policy.decided':
        if (record.data.decision !== 'step_up') this.awaitingApproval.delete(record.data.actionId);
        break;
      case 'approval.requested': {
        const action = this.awaitingApproval.get(record.data.actionId);
        this.awaitingApproval.delete(record.data.actionId);
        if (action) this.approvalActions.set(record.data.approvalId, action);
        break;
      }
      case 'approval.granted':
        this.approvalArtifacts.set(record.data.approvalId, record.data.artifact);
        break;
      case 'actionpass.issued': {
        this.awaitingApproval.delete(record.data.actionId);
        const { passId } = record.data;
        this.passExpiry.set(passId, record.data.claims.exp);
        this.#passExpiryByExpiry.add(passId, record.data.claims.exp);
        break;
      }
      case 'execution.completed':
        this.markPassUsed(record.data.passId);
        break;
      case 'execution.blocked': {
        this.awaitingApproval.delete(record.data.actionId);
        // A pass is spent by the attempt, executed or blocked: one blocked at the execution
        // boundary cannot be tried again, after a restart either. (A step-up blocked at its
        // decision has no pass.)
        const pass = this.ledger.actions.get(record.data.actionId)?.pass;
        if (pass) this.markPassUsed(pass.passId);
        break;
      }
      case 'config.loaded':
        this.lastConfig = { configHash: record.data.configHash, policyHash: record.data.policyHash };
        break;
      case 'mcp.tool.pinned':
        this.mcpTools.set(`${record.data.server}\0${record.data.tool}`, { pinned: record.data.definitionHash });
        break;
      case 'mcp.tool.changed': {
        const key = `${record.data.server}\0${record.data.tool}`;
        this.mcpTools.set(key, { ...this.mcpTools.get(key), changed: { pinnedHash: record.data.pinnedHash, presentedHash: record.data.presentedHash } });
        break;
      }
      default:
        break;
    }
    evolve(this.ledger, record);
    for (const settled of this.ledger.settled) {
      this.approvalActions.delete(settled.approvalId);
      this.approvalArtifacts.delete(settled.approvalId);
      this.settledApprovals.set(settled.approvalId, settled.status === 'rejected' ? 'rejected' : 'used');
      if (this.settledApprovals.size > MAX_SETTLED_APPROVALS) this.settledApprovals.delete(this.settledApprovals.keys().next().value as string);
    }
    this.sweep(recordTimeMs(record.ts));
  }

  /** What the ledger last recorded about an MCP tool's definition, so a pin or a change is recorded once, not every session. */
  mcpTool(server: string, tool: string): { pinned?: string; changed?: { pinnedHash: string; presentedHash: string } } | undefined {
    return this.mcpTools.get(`${server}\0${tool}`);
  }

  /**
   * Marks a pass used the moment it is verified for execution, before its outcome is recorded.
   * Marking it again (its outcome record folded in) keeps the expiry of the first mark, so the
   * sweep still forgets it.
   */
  markPassUsed(jti: string): void {
    if (this.usedPasses.has(jti)) return;
    const exp = this.passExpiry.get(jti) ?? Number.MAX_SAFE_INTEGER;
    this.usedPasses.set(jti, exp);
    this.#usedPassesByExpiry.add(jti, exp);
    this.passExpiry.delete(jti);
  }

  isPassUsed(jti: string): boolean {
    return this.usedPasses.has(jti);
  }

  approval(approvalId: string): OpenApproval | undefined {
    const approval = this.ledger.approvals.get(approvalId);
    if (!approval) return undefined;
    const action = this.approvalActions.get(approvalId);
    const artifact = this.approvalArtifacts.get(approvalId);
    return { ...approval, ...(action && { action }), ...(artifact !== undefined && { artifact }) };
  }

  /** An approval whose pass is being signed: taken, though its record is not sealed yet. */
  reserveApproval(approvalId: string): void {
    this.reservedApprovals.add(approvalId);
  }

  releaseApproval(approvalId: string): void {
    this.reservedApprovals.delete(approvalId);
  }

  isApprovalReserved(approvalId: string): boolean {
    return this.reservedApprovals.has(approvalId);
  }

  settledApproval(approvalId: string): 'used' | 'rejected' | undefined {
    return this.settledApprovals.get(approvalId);
  }

  /** Open approvals (pending or granted, not used) asked for this exact payload on this tool and resource. */
  approvalsForPayload(payloadHash: string, tool: string, resource: string): OpenApproval[] {
    const found: OpenApproval[] = [];
    for (const approval of this.ledger.approvals.values()) {
      if (approval.payloadHash !== payloadHash) continue;
      const action = this.approvalActions.get(approval.approvalId);
      if (action && action.capability.tool === tool && action.capability.resource === resource) found.push(this.approval(approval.approvalId) as OpenApproval);
    }
    return found.sort((a, b) => a.requestedSeq - b.requestedSeq);
  }

  openApprovals(): OpenApproval[] {
    return [...this.ledger.approvals.keys()].map((id) => this.approval(id) as OpenApproval).sort((a, b) => a.requestedSeq - b.requestedSeq);
  }

  /** Forgets used passes once expired (they fail the time check anyway) and stale step-ups. */
  private sweep(nowMs: number): void {
    if (nowMs - this.lastSweep < 60_000) return;
    this.lastSweep = nowMs;
    const isPast = (exp: number): boolean => exp + 3600 < nowMs / 1000;
    this.#usedPassesByExpiry.sweep(isPast, (jti) => this.usedPasses.get(jti), (jti) => this.usedPasses.delete(jti));
    this.#passExpiryByExpiry.sweep(isPast, (jti) => this.passExpiry.get(jti), (jti) => this.passExpiry.delete(jti));
  }
}

import type { LedgerRecord } from '../events/catalogue.js';
import { ExpiryIndex } from './expiry-index.js';

/**
 * The state every consumer folds from the ledger: the running proxy, `svc replay`,
 * `svc export`, `svc verify-export` and `svc prove-equivalence` all call this one `evolve`.
 *
 * `evolve` is deterministic and does no I/O. It updates the state in place rather than copying
 * it, because a verifier folds millions of records; the state belongs to whoever runs the fold.
 *
 * Memory follows what is still open, not the length of the ledger: an action's `received`
 * summary lives only until its decision (the views that need it run before `evolve`), a pass
 * until its execution or an hour past its expiry, and an approval until it is used or rejected.
 */
export interface ReceivedAction {
  seq: number;
  source: string;
  agentId: string;
  tenant: string;
  tool: string;
  resource: string;
  actionHash: string;
  payloadHash: string;
}

export interface IssuedPass {
  seq: number;
  passId: string;
  payloadHash: string;
  /** Seconds since the epoch, from the claims. */
  exp: number;
  approvalId?: string;
}

export interface ActionState {
  received?: ReceivedAction;
  pass?: IssuedPass;
  /** The approval this action's pass used up, kept for the equivalence judgment of its execution. */
  usedApproval?: ApprovalState;
}

export interface ApprovalState {
  approvalId: string;
  actionId: string;
  actionHash: string;
  payloadHash: string;
  hosted: boolean;
  status: 'pending' | 'granted' | 'rejected';
  requestedSeq: number;
  requestedAt: string;
  resolvedSeq?: number;
  resolvedAt?: string;
  approvedBy?: string;
  approvedPayloadHash?: string;
  rejectedBy?: string;
  reason?: string;
  /** The action whose execution consumed this approval: an approval is used once. */
  usedByActionId?: string;
  usedSeq?: number;
}

export interface LedgerState {
  size: number;
  origin?: string;
  actions: Map<string, ActionState>;
  approvals: Map<string, ApprovalState>;
  /** Approvals that were used or rejected by the last record folded in (for the approvals view). */
  settled: ApprovalState[];
}

export function initialState(): LedgerState {
  return { size: 0, actions: new Map(), approvals: new Map(), settled: [] };
}

/** The state as JSON-safe data (maps as entry lists, in their order), for a resume point. */
export interface LedgerStateSnapshot {
  size: number;
  origin?: string;
  actions: [string, ActionState][];
  approvals: [string, ApprovalState][];
  settled: ApprovalState[];
}

export function snapshotState(state: LedgerState): LedgerStateSnapshot {
  return { size: state.size, ...(state.origin !== undefined && { origin: state.origin }), actions: [...state.actions], approvals: [...state.approvals], settled: state.settled };
}

export function restoreState(saved: LedgerStateSnapshot): LedgerState {
  return { size: saved.size, ...(saved.origin !== undefined && { origin: saved.origin }), actions: new Map(saved.actions), approvals: new Map(saved.approvals), settled: [...saved.settled] };
}

/** How often, in records, passes that expired long ago are swept, and how long after expiry. */
const SWEEP_EVERY = 4096;
const SWEEP_AFTER_EXPIRY_MS = 3_600_000;

export function evolve(state: LedgerState, record: LedgerRecord): void {
  state.size = record.seq + 1;
  if (state.settled.length > 0) state.settled = [];
  if (record.seq % SWEEP_EVERY === 0) sweepExpiredPasses(state, Date.parse(record.ts));
  switch (record.type) {
    case 'ledger.genesis':
      state.origin = record.data.origin;
      return;
    case 'action.received': {
      const { action } = record.data;
      state.actions.set(record.data.actionId, {
        received: {
          seq: record.seq,
          source: record.data.source,
          agentId: action.actor.agentId,
          tenant: action.actor.tenant,
          tool: action.capability.tool,
          resource: action.capability.resource,
          actionHash: record.data.actionHash,
          payloadHash: record.data.payloadHash,
        },
      });
      return;
    }
    case 'policy.decided':
      // Nothing after the decision needs what was received; a pass, if any, comes next.
      state.actions.delete(record.data.actionId);
      return;
    case 'actionpass.issued': {
      const { claims } = record.data;
      const pass: IssuedPass = { seq: record.seq, passId: record.data.passId, payloadHash: claims.payloadHash, exp: claims.exp };
      if (claims.approvalId !== undefined) {
        pass.approvalId = claims.approvalId;
        const approval = state.approvals.get(claims.approvalId);
        // An approval is used once: the first pass that names it settles it.
        if (approval?.status === 'granted' && approval.usedByActionId === undefined) {
          approval.usedByActionId = record.data.actionId;
          approval.usedSeq = record.seq;
          settle(state, approval);
        }
      }
      const usedApproval = pass.approvalId === undefined ? undefined : state.settled.find((approval) => approval.approvalId === pass.approvalId);
      // The index first: one built now, from the actions, must not file this pass twice.
      const index = expiryIndexOf(state);
      state.actions.set(record.data.actionId, usedApproval ? { pass, usedApproval } : { pass });
      index.add(record.data.actionId, pass.exp);
      return;
    }
    case 'approval.requested':
      state.approvals.set(record.data.approvalId, {
        approvalId: record.data.approvalId,
        actionId: record.data.actionId,
        actionHash: record.data.actionHash,
        payloadHash: record.data.payloadHash,
        hosted: record.data.hosted,
        status: 'pending',
        requestedSeq: record.seq,
        requestedAt: record.ts,
      });
      return;
    case 'approval.granted': {
      const approval = state.approvals.get(record.data.approvalId);
      if (!approval) return;
      Object.assign(approval, { status: 'granted', resolvedSeq: record.seq, resolvedAt: record.ts, approvedBy: record.data.approvedBy, approvedPayloadHash: record.data.approvedPayloadHash });
      return;
    }
    case 'approval.rejected': {
      const approval = state.approvals.get(record.data.approvalId);
      if (!approval) return;
      Object.assign(approval, { status: 'rejected', resolvedSeq: record.seq, resolvedAt: record.ts, rejectedBy: record.data.rejectedBy, reason: record.data.reason });
      settle(state, approval);
      return;
    }
    case 'execution.completed':
      state.actions.delete(record.data.actionId);
      return;
    default:
      return;
  }
}

function settle(state: LedgerState, approval: ApprovalState): void {
  state.approvals.delete(approval.approvalId);
  state.settled.push(approval);
}

/** A pass an hour past its expiry can no longer be executed legitimately; forgetting it keeps memory flat. */
function sweepExpiredPasses(state: LedgerState, now: number): void {
  expiryIndexOf(state).sweep(
    (exp) => exp * 1000 + SWEEP_AFTER_EXPIRY_MS < now,
    (actionId) => state.actions.get(actionId)?.pass?.exp,
    (actionId) => state.actions.delete(actionId),
  );
}

/** Each state's passes by expiry, beside it rather than in it: LedgerState stays plain data (snapshots, equality). */
const expiryIndexes = new WeakMap<LedgerState, ExpiryIndex<string>>();

/** The state's index, built from its actions the first time (a restored state, or one made by hand). */
function expiryIndexOf(state: LedgerState): ExpiryIndex<string> {
  let index = expiryIndexes.get(state);
  if (index === undefined) {
    index = new ExpiryIndex();
    for (const [actionId, action] of state.actions) if (action.pass) index.add(actionId, action.pass.exp);
    expiryIndexes.set(state, index);
  }
  return index;
}

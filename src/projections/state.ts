import type { LedgerRecord } from '../events/catalogue.js';

/**
 * The state every consumer folds from the ledger: the running proxy, `svc replay`,
 * `svc export`, `svc verify-export` and `svc prove-equivalence` all call this one `evolve`.
 *
 * `evolve` is deterministic and does no I/O. It updates the state in place rather than copying
 * it, because a verifier folds millions of records; the state belongs to whoever runs the fold.
 * Per-action entries are dropped once an action can no longer change (denied, rejected,
 * executed), so memory follows the number of open actions, not the length of the ledger.
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
  approvalId?: string;
}

export interface ActionState {
  received?: ReceivedAction;
  decision?: 'allow' | 'deny' | 'step_up' | 'no_opinion';
  pass?: IssuedPass;
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
}

export function initialState(): LedgerState {
  return { size: 0, actions: new Map(), approvals: new Map() };
}

export function evolve(state: LedgerState, record: LedgerRecord): void {
  state.size = record.seq + 1;
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
    case 'policy.decided': {
      const action = actionOf(state, record.data.actionId);
      action.decision = record.data.decision;
      if (record.data.decision === 'deny' || record.data.decision === 'no_opinion') state.actions.delete(record.data.actionId);
      return;
    }
    case 'actionpass.issued': {
      const { claims } = record.data;
      const pass: IssuedPass = { seq: record.seq, passId: record.data.passId, payloadHash: claims.payloadHash };
      if (claims.approvalId !== undefined) {
        pass.approvalId = claims.approvalId;
        const approval = state.approvals.get(claims.approvalId);
        if (approval && approval.usedByActionId === undefined) {
          approval.usedByActionId = record.data.actionId;
          approval.usedSeq = record.seq;
        }
      }
      actionOf(state, record.data.actionId).pass = pass;
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
      return;
    }
    case 'execution.completed':
      state.actions.delete(record.data.actionId);
      return;
    default:
      return;
  }
}

function actionOf(state: LedgerState, actionId: string): ActionState {
  let action = state.actions.get(actionId);
  if (!action) {
    action = {};
    state.actions.set(actionId, action);
  }
  return action;
}

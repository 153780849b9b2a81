import type { Decided, Executed } from './enforcer.js';

/**
 * The decision body of `/actions` and `/authorize` (DESIGN.md section 7). Deny and step_up are
 * decisions, answered with 200 like an allow; callers read `decision.decision`, not the status.
 */
export interface DecisionBody {
  status: 'decided' | 'executed' | 'blocked' | 'failed' | 'pending_approval';
  decision: { decision: string; reasons: string[]; ruleId: string; policyHash: string };
  explanation: string;
  action: { actionId: string; actionHash: string; payloadHash: string };
  actionPass?: { token: string; claims: object };
  approval?: { approvalId: string; status: string };
  execution?: { outcome: string; approvedPayloadHash: string; executedPayloadHash?: string; reason?: string; result?: unknown };
  ledger: { seq: number; hash: string; record: { type: string; payloadHash: string } };
}

export function decisionBody(decided: Decided | Executed): DecisionBody {
  const { outcome } = decided;
  const decisionReceipt = decided.receipts[outcome.decidedIndex];
  const body: DecisionBody = {
    status: outcome.status,
    decision: { decision: outcome.decision.decision, reasons: outcome.decision.reasons, ruleId: outcome.decision.ruleId, policyHash: outcome.decision.policyHash },
    explanation: outcome.explanation,
    action: { actionId: decided.actionId, actionHash: decided.actionHash, payloadHash: decided.payloadHash },
    ledger: { seq: decisionReceipt?.seq ?? -1, hash: decisionReceipt?.hash ?? '', record: { type: 'policy.decided', payloadHash: decided.payloadHash } },
  };
  if (decided.pass) body.actionPass = { token: decided.pass.token, claims: decided.pass.claims };
  if (outcome.approval) body.approval = outcome.approval;
  if (outcome.blocked) body.execution = { outcome: 'blocked', ...outcome.blocked };
  const execution = 'execution' in decided ? decided.execution : undefined;
  if (execution) {
    body.status = execution.status;
    body.execution = {
      outcome: execution.status === 'executed' ? 'succeeded' : execution.status,
      approvedPayloadHash: execution.approvedPayloadHash,
      ...(execution.executedPayloadHash !== undefined && { executedPayloadHash: execution.executedPayloadHash }),
      ...(execution.reason !== undefined && { reason: execution.reason }),
      ...(execution.result && { result: execution.result.result }),
    };
    body.explanation = executionExplanation(body.explanation, execution);
  }
  return body;
}

function executionExplanation(decisionText: string, execution: NonNullable<Executed['execution']>): string {
  switch (execution.status) {
    case 'executed':
      return `${decisionText}; executed with payload ${execution.executedPayloadHash ?? ''}, the hash the ActionPass bound`;
    case 'blocked':
      return `${decisionText}; blocked before the side effect: ${execution.reason ?? 'verification failed'} (authorized ${execution.approvedPayloadHash}, about to send ${execution.executedPayloadHash ?? '?'})`;
    default:
      return `${decisionText}; the handler failed (${execution.reason ?? execution.result?.error?.code ?? 'adapter_failed'}); the outcome is recorded`;
  }
}

import type { DecisionBody } from '../proxy/responses.js';
import { planHookActions, type PlanTools } from './hook-actions.js';
import type { HookEvent, HookVerdict } from './hook-event.js';
import { hookVerdict, type ActionResult, type HookDecision } from './hook-verdict.js';

/**
 * The runtime-neutral hook path, shared by `svc hook <runtime>` and the playground: plan the
 * actions of one event, decide each through `authorize` (proxy or local Enforcer, which record
 * them), and fold the decisions into one verdict.
 */
export interface HookEvaluation {
  decision: HookDecision;
  verdict: HookVerdict;
  results: ActionResult[];
}

export interface EvaluateHookOptions {
  tools: PlanTools;
  authorize(action: unknown): Promise<DecisionBody>;
  stepUp: 'deny' | 'ask';
}

export async function evaluateHookEvent(event: HookEvent, options: EvaluateHookOptions): Promise<HookEvaluation> {
  const planned = planHookActions(event, options.tools);
  // Sent together, decided in order: the Enforcer decides each synchronously as it is called and
  // the proxy client queues them on one connection, so a later action still sees the earlier ones
  // (budgets, approvals) while their records share the ledger's group commit.
  const bodies = await Promise.all(planned.map((action) => options.authorize(action.input)));
  const results = planned.map((action, index) => resultOf(action.label, bodies[index] as DecisionBody));
  const { decision, verdict } = hookVerdict(results, { stepUp: options.stepUp, subject: subjectOf(event) });
  return { decision, verdict, results };
}

function resultOf(label: string, body: DecisionBody): ActionResult {
  return {
    label,
    decision: body.decision.decision as ActionResult['decision'],
    status: body.status,
    reasons: body.decision.reasons,
    explanation: body.explanation,
    ...(body.approval && { approval: body.approval }),
    passIssued: body.actionPass !== undefined,
    actionId: body.action.actionId,
    payloadHash: body.action.payloadHash,
    ledger: { seq: body.ledger.seq, hash: body.ledger.hash },
  };
}

function subjectOf(event: HookEvent): string {
  if (event.event === 'prompt') return 'this prompt';
  return event.call.kind === 'shell' ? 'this command' : `this ${event.toolName} call`;
}

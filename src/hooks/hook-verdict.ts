import type { HookVerdict } from './hook-event.js';

/**
 * One verdict for a tool call from the decisions on its actions: deny beats step_up beats allow,
 * and the call is allowed only when every action was (an action no rule spoke for leaves the
 * runtime's own permission flow in charge). The reason is written for the model: what was
 * decided, why, and what to do next.
 */
export interface ActionResult {
  label: string;
  /** The policy's decision. */
  decision: 'allow' | 'deny' | 'step_up' | 'no_opinion';
  /** `pending_approval`, `blocked` (an approval that could not be used), or `decided`. */
  status: string;
  reasons: string[];
  explanation: string;
  approval?: { approvalId: string; status: string };
  /** An ActionPass was issued: an allow, or a step_up whose approval of this exact payload was used. */
  passIssued: boolean;
  actionId: string;
  payloadHash: string;
  /** The `policy.decided` record. */
  ledger: { seq: number; hash: string };
}

export type HookDecision = 'allow' | 'deny' | 'step_up' | 'no_opinion';

/** What an action's outcome means for the call. */
export function effectiveDecision(result: ActionResult): HookDecision {
  if (result.decision === 'deny' || result.status === 'blocked') return 'deny';
  if (result.passIssued) return 'allow';
  if (result.decision === 'step_up') return 'step_up';
  return result.decision === 'allow' ? 'deny' : 'no_opinion'; // an allow without a pass is not an allow
}

export function combineDecisions(results: readonly ActionResult[]): HookDecision {
  const decisions = results.map(effectiveDecision);
  if (decisions.includes('deny')) return 'deny';
  if (decisions.includes('step_up')) return 'step_up';
  if (decisions.length > 0 && decisions.every((decision) => decision === 'allow')) return 'allow';
  return 'no_opinion';
}

export interface VerdictOptions {
  /** svc.yml `hooks.stepUp`, already downgraded to `deny` for a runtime that cannot ask. */
  stepUp: 'deny' | 'ask';
  /** How the call is named to the model: "this Bash command", "this Read". */
  subject: string;
}

export function hookVerdict(results: readonly ActionResult[], options: VerdictOptions): { decision: HookDecision; verdict: HookVerdict } {
  const decision = combineDecisions(results);
  const matching = results.filter((result) => effectiveDecision(result) === decision);
  const first = matching[0];
  if (decision === 'no_opinion' || first === undefined) return { decision: 'no_opinion', verdict: { decision: 'no_opinion' } };
  const evidence = `svc ledger seq ${matching.map((result) => result.ledger.seq).join(', ')}`;
  if (decision === 'allow') {
    return { decision, verdict: { decision: 'allow', reason: `svc allowed ${options.subject}: ${first.explanation} (${evidence})` } };
  }
  if (decision === 'deny') {
    const why = matching.map((result) => `${result.label}: ${result.explanation} [${result.reasons.join(', ')}]`).join('; ');
    return {
      decision,
      verdict: { decision: 'deny', reason: `svc denied ${options.subject}. ${why}. Do not try another way to reach the same data; if the task really needs it, ask the user. (${evidence})` },
    };
  }
  const approvals = [...new Set(matching.flatMap((result) => (result.approval ? [result.approval.approvalId] : [])))];
  const why = matching.map((result) => `${result.label}: ${result.explanation.split('; approval')[0]} [${result.reasons.join(', ')}]`).join('; ');
  if (options.stepUp === 'ask') {
    return { decision, verdict: { decision: 'ask', reason: `svc wants a person to confirm ${options.subject}: ${why}. (${evidence})` } };
  }
  const approve = approvals.map((id) => `svc approvals approve ${id}`).join(' && ');
  return {
    decision,
    verdict: {
      decision: 'deny',
      reason:
        `svc needs a person to approve ${options.subject} first: ${why}. ` +
        `Ask the user to review and run \`${approve}\` in their own terminal, then run the identical command again; it will pass once. ` +
        `A changed command is a different payload and needs its own approval. (${evidence})`,
    },
  };
}

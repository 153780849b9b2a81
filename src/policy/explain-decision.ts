import type { NormalizedAction } from '../actionpass/action.js';
import type { BudgetRule, PolicyMode } from './compile-policy.js';
import type { CompiledRule, RuleOutcome } from './compile-rule.js';
import { formatValue } from './value-format.js';
import { formatWindow } from './window.js';

/**
 * The one-sentence `explanation` of a decision (DESIGN.md section 7): what decided, on which
 * value, with the reason codes, and for refusals what would change the answer. It is written for
 * a person reading a log and for an agent deciding what to do next, so it quotes the value that
 * decided (cut short: explanations travel back to the agent and into logs) and never the payload.
 */

const VERB = { allow: 'allowed', deny: 'denied', step_up: 'approval required' } as const;

export function explainRuleDecision(rule: CompiledRule, outcome: RuleOutcome, action: NormalizedAction, reasons: readonly string[]): string {
  const why = ruleClauses(rule, outcome, action);
  const codes = `(${reasons.join(', ')})`;
  const sentence = `${VERB[rule.decision]} by rule ${rule.id}: ${why} ${codes}`;
  return rule.decision === 'step_up' ? `${sentence}; it runs once a reviewer approves this exact payload` : sentence;
}

function ruleClauses(rule: CompiledRule, outcome: RuleOutcome, action: NormalizedAction): string {
  if (outcome.undetermined) {
    const condition = rule.conditions[outcome.conditionIndex];
    const clause = condition ? condition.describe(action) : 'a condition could not be checked';
    return `${clause}, and a ${rule.decision} rule applies when a value it checks is missing or not comparable`;
  }
  if (rule.conditions.length === 0) return 'it applies to every action';
  const specific = rule.conditions.filter((condition) => condition.specific);
  return (specific.length > 0 ? specific : rule.conditions).map((condition) => condition.describe(action)).join(' and ');
}

export function explainUnmatched(mode: PolicyMode, action: NormalizedAction): string {
  const target = `tool ${action.capability.tool} on resource ${formatValue(action.capability.resource)}`;
  return mode === 'hook'
    ? `no opinion: no rule matches ${target} (no_matching_rule); the runtime's own permission settings decide`
    : `denied: no rule allows ${target}, and svc denies what no rule allows (default_deny); a policy owner can add a rule for it`;
}

export function explainBudgetExceeded(budget: BudgetRule, count: number, action: NormalizedAction): string {
  return (
    `denied by budget ${budget.id}: ${action.actor.agentId} already has ${count} allowed ${action.capability.tool} actions in the last ${formatWindow(budget.windowMs)}, ` +
    `and the budget allows ${budget.max} (budget_exceeded); retry once older actions leave the window`
  );
}

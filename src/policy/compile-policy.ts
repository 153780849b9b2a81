import type { NormalizedAction } from '../actionpass/action.js';
import { hashCanonical, type Sha256 } from '../events/canonical.js';
import { SvcError } from '../errors.js';
import { compileRule, type CompiledRule, type RuleOutcome } from './compile-rule.js';
import { explainBudgetExceeded, explainRuleDecision, explainUnmatched } from './explain-decision.js';
import { compileGlob, type TextMatcher } from './glob.js';
import { DEFAULT_RULE_ID, policySchema, type PolicyConfig, type RuleDecision } from './policy-schema.js';
import type { PathGuard } from './protected-paths.js';
import { formatWindow, parseWindow } from './window.js';

/**
 * The policy engine: `compilePolicy` turns the `policy:` section of svc.yml into a
 * `CompiledPolicy` whose `evaluate` decides one normalized action. Deterministic and pure: the
 * same policy, action and budget counts give the same decision, explanation and trace, and
 * nothing here reads a clock, a file or the ledger (budget counts come from the context).
 *
 * Semantics (docs/policy.md): every rule is evaluated in file order; among the rules that match,
 * deny beats step_up beats allow; the decision's reasons are the union, in first-seen order, of
 * the reasons of the matching rules with that decision, and its ruleId the first of them. When
 * no rule matches, `enforce` denies (default_deny) and `hook` has no opinion (no_matching_rule).
 * An allow then meets the budgets: the first budget that applies to the agent and tool and has
 * no room left turns it into a deny (budget_exceeded) named after the budget.
 *
 * A path guard (protected paths) is consulted before the rules: its deny stands whatever the
 * rules say, and its step_up (a path known only at run time) yields only to a rule's deny. The
 * policyHash then covers the guard's configuration too.
 */

export type PolicyMode = 'enforce' | 'hook';

export interface BudgetRule {
  id: string;
  /** Glob over the tool. */
  tool: string;
  /** Glob over the agentId. */
  agent: string;
  /** Allowed actions per agent and tool within the window; the next one is denied. */
  max: number;
  windowMs: number;
}

export interface PolicyContext {
  now: number;
  /** Allowed actions of agentId on exactly this tool within [now - budget.windowMs, now]. */
  countAllowed(budget: BudgetRule, agentId: string, tool: string): number;
}

export interface RuleTrace {
  /** A rule id, or a budget id for the budgets an allow met. */
  ruleId: string;
  /** For a rule, whether it matched; for a budget, whether it was exhausted. */
  matched: boolean;
  /** The first condition that failed (for an allow rule, also the first undetermined one). */
  failed?: string;
  /** A deny or step_up rule that matched because a condition could not be checked: which one. */
  undetermined?: string;
  /** For a budget: the count it saw, its maximum and its window. */
  budget?: { count: number; max: number; window: string };
}

export interface PolicyDecision {
  decision: 'allow' | 'deny' | 'step_up' | 'no_opinion';
  reasons: string[];
  ruleId: string;
  policyHash: Sha256;
  explanation: string;
  trace: RuleTrace[];
}

export interface CompiledPolicy {
  readonly policyHash: Sha256;
  readonly budgets: readonly BudgetRule[];
  evaluate(action: NormalizedAction, context: PolicyContext, mode?: PolicyMode): PolicyDecision;
}

const RANK: Readonly<Record<RuleDecision, number>> = { allow: 1, step_up: 2, deny: 3 };

interface CompiledBudget {
  rule: BudgetRule;
  window: string;
  appliesToTool: TextMatcher;
  appliesToAgent: TextMatcher;
}

/**
 * Validates and compiles a policy. The config is parsed again even when it came through
 * svc.yml's schema, so a policy built in code gets the same checks (duplicate ids, unsafe
 * regexes, malformed windows) and the same normalized form the policyHash is computed over.
 */
export function compilePolicy(config: PolicyConfig, guard?: PathGuard): CompiledPolicy {
  const parsed = policySchema.safeParse(config);
  if (!parsed.success) {
    const messages = parsed.error.issues.map((issue) => `policy.${issue.path.map(String).join('.')}: ${issue.message}`.replace(/\.: /, ': '));
    throw new SvcError('policy_invalid', `the policy is invalid:\n${messages.join('\n')}`);
  }
  const policy = parsed.data;
  const policyHash = guard ? hashCanonical({ policy, protectedPaths: guard.config }) : hashCanonical(policy);
  let rules: CompiledRule[];
  try {
    rules = policy.rules.map(compileRule);
  } catch (error) {
    throw new SvcError('policy_invalid', `the policy is invalid: ${(error as Error).message}`, { cause: error });
  }
  const budgets: CompiledBudget[] = policy.budgets.map((budget) => {
    const windowMs = parseWindow(budget.window);
    if (windowMs === undefined) throw new SvcError('policy_invalid', `the policy is invalid: budget ${budget.id}: window ${budget.window} is not a duration such as 1h`);
    const rule: BudgetRule = Object.freeze({ id: budget.id, tool: budget.tool, agent: budget.agent, max: budget.max, windowMs });
    return { rule, window: formatWindow(windowMs), appliesToTool: compileGlob(budget.tool), appliesToAgent: compileGlob(budget.agent) };
  });
  return {
    policyHash,
    budgets: Object.freeze(budgets.map((budget) => budget.rule)),
    evaluate: (action, context, mode = 'enforce') => {
      const decision = evaluate(rules, budgets, policyHash, action, context, mode);
      const verdict = guard?.check(action);
      return verdict ? applyPreVerdict(decision, { ...verdict, reasons: [verdict.reason] }) : decision;
    },
  };
}

/**
 * A verdict reached outside the rules (a protected path, an MCP tool whose definition no longer
 * matches its pin) combined with the rules' decision: its deny stands whatever the rules say, and
 * its step_up yields only to a rule's deny.
 */
export interface PreVerdict {
  decision: 'deny' | 'step_up';
  reasons: string[];
  ruleId: string;
  explanation: string;
}

export function applyPreVerdict(evaluated: PolicyDecision, verdict: PreVerdict): PolicyDecision {
  if (verdict.decision === 'step_up' && evaluated.decision === 'deny') return evaluated;
  return { ...evaluated, decision: verdict.decision, reasons: verdict.reasons, ruleId: verdict.ruleId, explanation: verdict.explanation };
}

function evaluate(rules: readonly CompiledRule[], budgets: readonly CompiledBudget[], policyHash: Sha256, action: NormalizedAction, context: PolicyContext, mode: PolicyMode): PolicyDecision {
  const trace: RuleTrace[] = [];
  let winner: CompiledRule | undefined;
  let winnerOutcome: RuleOutcome | undefined;
  let winnerIndex = -1;
  for (let index = 0; index < rules.length; index += 1) {
    const rule = rules[index] as CompiledRule;
    const outcome = rule.evaluate(action);
    trace.push(outcome.trace);
    if (outcome.matched && (winner === undefined || RANK[rule.decision] > RANK[winner.decision])) {
      winner = rule;
      winnerOutcome = outcome;
      winnerIndex = index;
    }
  }

  if (winner === undefined || winnerOutcome === undefined) {
    // Anything but an explicit 'hook' is enforcement: a caller's typo must not yield no_opinion.
    const hook = mode === 'hook';
    return { decision: hook ? 'no_opinion' : 'deny', reasons: [hook ? 'no_matching_rule' : 'default_deny'], ruleId: DEFAULT_RULE_ID, policyHash, explanation: explainUnmatched(hook ? 'hook' : 'enforce', action), trace };
  }

  const reasons = [...winner.reasons];
  for (let index = winnerIndex + 1; index < rules.length; index += 1) {
    const rule = rules[index] as CompiledRule;
    if (rule.decision !== winner.decision || !(trace[index] as RuleTrace).matched) continue;
    for (const reason of rule.reasons) if (!reasons.includes(reason)) reasons.push(reason);
  }

  if (winner.decision === 'allow' && budgets.length > 0) {
    const exhausted = checkBudgets(budgets, action, context, trace);
    if (exhausted) {
      return { decision: 'deny', reasons: ['budget_exceeded'], ruleId: exhausted.budget.id, policyHash, explanation: explainBudgetExceeded(exhausted.budget, exhausted.count, action), trace };
    }
  }

  return { decision: winner.decision, reasons, ruleId: winner.id, policyHash, explanation: explainRuleDecision(winner, winnerOutcome, action, reasons), trace };
}

/** Consults every budget that applies, adds each to the trace, and returns the first exhausted one. */
function checkBudgets(budgets: readonly CompiledBudget[], action: NormalizedAction, context: PolicyContext, trace: RuleTrace[]): { budget: BudgetRule; count: number } | undefined {
  const { agentId } = action.actor;
  const { tool } = action.capability;
  let exhausted: { budget: BudgetRule; count: number } | undefined;
  for (const budget of budgets) {
    if (!budget.appliesToTool(tool) || !budget.appliesToAgent(agentId)) continue;
    const count = context.countAllowed(budget.rule, agentId, tool);
    // Written so that a count that is not a number (a broken counter) exhausts the budget: fail closed.
    const full = !(count < budget.rule.max);
    const entry: RuleTrace = { ruleId: budget.rule.id, matched: full, budget: { count, max: budget.rule.max, window: budget.window } };
    if (!full) entry.failed = `${count} allowed in the last ${budget.window}, below the maximum of ${budget.rule.max}`;
    trace.push(entry);
    if (full && exhausted === undefined) exhausted = { budget: budget.rule, count };
  }
  return exhausted;
}

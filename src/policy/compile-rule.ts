import type { NormalizedAction } from '../actionpass/action.js';
import type { RuleTrace } from './compile-policy.js';
import { compileFieldPath, MISSING } from './field-path.js';
import { compileGlobList } from './glob.js';
import type { PolicyRule, RuleDecision } from './policy-schema.js';
import { compilePredicate, type Verdict } from './predicates.js';
import { formatScalarList, formatOperand } from './value-format.js';

/**
 * A rule compiled into conditions over an action: tool, resource, actor fields, payload fields,
 * in that order (the order in which "the first failed condition" is reported). A rule matches
 * when none of its conditions fails and, for an allow rule, every one of them holds: a condition
 * left undetermined (a value of the wrong kind, a missing field under not_in or not_glob) keeps an allow rule from
 * matching and makes a deny or step_up rule match. Doubt never widens what is allowed, and
 * always lets a restriction apply.
 */
export interface Condition {
  /** `payload.channel not_in [eng, ops]`, as the trace shows it. */
  readonly label: string;
  /** Actor and payload conditions say why a rule applied; tool and resource only say where. */
  readonly specific: boolean;
  test(action: NormalizedAction): Verdict;
  /** A clause of an explanation for this action, with its value. */
  describe(action: NormalizedAction): string;
}

/** The result of one rule on one action, with the trace entry to report it. */
export interface RuleOutcome {
  readonly matched: boolean;
  /** The condition that decided: the first failing one, or the first undetermined one; -1 when all hold. */
  readonly conditionIndex: number;
  readonly undetermined: boolean;
  readonly trace: RuleTrace;
}

export interface CompiledRule {
  readonly id: string;
  readonly decision: RuleDecision;
  readonly reasons: readonly string[];
  readonly conditions: readonly Condition[];
  evaluate(action: NormalizedAction): RuleOutcome;
}

const ACTOR_FIELDS = ['agentId', 'humanOwner', 'runtime'] as const;

export function compileRule(rule: PolicyRule): CompiledRule {
  const conditions = compileConditions(rule);
  const restricting = rule.decision !== 'allow';
  // Every outcome a rule can have is known at compile time, so evaluation allocates nothing.
  const matched: RuleOutcome = freezeOutcome({ matched: true, conditionIndex: -1, undetermined: false, trace: { ruleId: rule.id, matched: true } });
  const failedAt = conditions.map((condition, index) => freezeOutcome({ matched: false, conditionIndex: index, undetermined: false, trace: { ruleId: rule.id, matched: false, failed: condition.label } }));
  const undeterminedAt = conditions.map((condition, index) =>
    freezeOutcome(
      restricting
        ? { matched: true, conditionIndex: index, undetermined: true, trace: { ruleId: rule.id, matched: true, undetermined: `${condition.label} (missing or not comparable)` } }
        : { matched: false, conditionIndex: index, undetermined: true, trace: { ruleId: rule.id, matched: false, failed: `${condition.label} (missing or not comparable)` } },
    ),
  );
  return {
    id: rule.id,
    decision: rule.decision,
    reasons: Object.freeze([...rule.reasons]),
    conditions,
    evaluate(action) {
      let firstUndetermined = -1;
      for (let index = 0; index < conditions.length; index += 1) {
        const verdict = (conditions[index] as Condition).test(action);
        if (verdict === 'fails') return failedAt[index] as RuleOutcome;
        if (verdict === 'undetermined' && firstUndetermined < 0) firstUndetermined = index;
      }
      return firstUndetermined < 0 ? matched : (undeterminedAt[firstUndetermined] as RuleOutcome);
    },
  };
}

function freezeOutcome(outcome: RuleOutcome): RuleOutcome {
  Object.freeze(outcome.trace);
  return Object.freeze(outcome);
}

function compileConditions(rule: PolicyRule): Condition[] {
  const conditions: Condition[] = [];
  const { when } = rule;
  if (when.tool) conditions.push(globCondition('tool', when.tool, (action) => action.capability.tool));
  if (when.resource) conditions.push(globCondition('resource', when.resource, (action) => action.capability.resource));
  for (const field of ACTOR_FIELDS) {
    const predicate = when.actor?.[field];
    if (predicate === undefined) continue;
    const compiled = compilePredicate(predicate);
    const name = `actor.${field}`;
    const read = (action: NormalizedAction): unknown => action.actor[field] ?? MISSING;
    conditions.push({
      label: `${name} ${compiled.label}`,
      specific: true,
      test: (action) => compiled.test(read(action)),
      describe: (action) => compiled.describe(name, read(action)),
    });
  }
  for (const [path, predicate] of Object.entries(when.payload ?? {})) {
    const compiled = compilePredicate(predicate);
    const resolve = compileFieldPath(path);
    const read = (action: NormalizedAction): unknown => resolve(action.capability.payload);
    conditions.push({
      label: `payload.${path} ${compiled.label}`,
      specific: true,
      // Explanations name payload fields bare (`channel "random" is not in ...`): it reads as the agent wrote it.
      test: (action) => compiled.test(read(action)),
      describe: (action) => compiled.describe(path, read(action)),
    });
  }
  return conditions;
}

function globCondition(field: 'tool' | 'resource', globs: readonly string[], read: (action: NormalizedAction) => string): Condition {
  const matches = compileGlobList(globs);
  const shown = globs.length === 1 ? formatOperand(globs[0]) : `one of ${formatScalarList(globs)}`;
  return {
    label: `${field} matches ${shown}`,
    specific: false,
    test: (action) => (matches(read(action)) ? 'holds' : 'fails'),
    describe: (action) => `${field} ${read(action)} matches ${shown}`,
  };
}

import * as z from 'zod';
import { REASON_CODE_PATTERN } from './reason-codes.js';
import { parseWindow, WINDOW_PATTERN } from './window.js';
import { regexProblem } from './safe-regex.js';

/**
 * The `policy:` section of svc.yml (reference: docs/policy.md). Validation is strict and every
 * message says what to write instead: a policy that loads is a policy that means what it says.
 *
 * The parsed form is also the normalized form the policyHash is computed over, so the schema
 * settles every "two ways to write the same thing" here: a bare scalar predicate becomes
 * `{ equals: <scalar> }`, a single glob becomes a one-element list, and a rule without `reasons`
 * gets its decision's default reason. Parsing the parsed form again gives it back unchanged.
 */

export const RULE_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;
/** The ruleId of a decision no rule made (default_deny, no_matching_rule). */
export const DEFAULT_RULE_ID = 'default';

export const PREDICATE_OPERATORS = ['equals', 'in', 'not_in', 'glob', 'not_glob', 'regex', 'lt', 'lte', 'gt', 'gte', 'exists'] as const;
export type PredicateOperator = (typeof PREDICATE_OPERATORS)[number];

export const RULE_DECISIONS = ['allow', 'deny', 'step_up'] as const;
export type RuleDecision = (typeof RULE_DECISIONS)[number];

export const DEFAULT_REASONS: Readonly<Record<RuleDecision, string>> = { allow: 'rule_allow', deny: 'rule_deny', step_up: 'rule_step_up' };

const MAX_PATTERN_LENGTH = 1024;
const MAX_LIST_LENGTH = 1000;
/** Payload keys a path may not name: they reach the prototype, never the caller's data. */
const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype']);

const scalarSchema = z.union([z.string().max(MAX_PATTERN_LENGTH), z.number(), z.boolean(), z.null()], {
  error: 'expected a string, number, boolean or null',
});
export type PredicateScalar = z.infer<typeof scalarSchema>;

const scalarListSchema = z.array(scalarSchema, { error: 'expected a list of strings, numbers, booleans or nulls' }).min(1, 'the list is empty').max(MAX_LIST_LENGTH);
const globSchema = z.string({ error: 'expected a glob (text where * is any run of characters and ? one character)' }).min(1, 'a glob cannot be empty').max(MAX_PATTERN_LENGTH);
const finiteNumber = z.number({ error: 'expected a number' }).refine(Number.isFinite, 'expected a finite number');

const operatorFields = z.looseObject({
  equals: scalarSchema.optional(),
  in: scalarListSchema.optional(),
  not_in: scalarListSchema.optional(),
  glob: globSchema.optional(),
  not_glob: globSchema.optional(),
  regex: z
    .string({ error: 'expected a regular expression as text' })
    .min(1, 'a regex cannot be empty')
    .max(MAX_PATTERN_LENGTH)
    .superRefine((pattern, context) => {
      const problem = regexProblem(pattern);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
  lt: finiteNumber.optional(),
  lte: finiteNumber.optional(),
  gt: finiteNumber.optional(),
  gte: finiteNumber.optional(),
  exists: z.boolean({ error: 'exists takes true or false' }).optional(),
});

const OPERATOR_LIST = PREDICATE_OPERATORS.join(', ');

/**
 * One operator object. Unknown keys are reported here, not by zod's strict object, so the message
 * can name the operators instead of pointing at the configuration reference.
 */
const operatorObjectSchema = operatorFields.superRefine((value, context) => {
  const keys = Object.keys(value).filter((key) => value[key] !== undefined);
  const unknown = keys.filter((key) => !(PREDICATE_OPERATORS as readonly string[]).includes(key));
  if (unknown.length > 0) {
    context.addIssue({ code: 'custom', message: `unknown operator ${unknown.map((key) => `"${key}"`).join(', ')}; a predicate is one of: ${OPERATOR_LIST}` });
    return;
  }
  if (keys.length === 0) context.addIssue({ code: 'custom', message: `a predicate needs one operator: ${OPERATOR_LIST}` });
  if (keys.length > 1) {
    const example = keys.map((key) => `{ ${key}: ... }`).join(', ');
    context.addIssue({ code: 'custom', message: `a predicate object takes exactly one operator, found ${keys.join(' and ')}; to require all of them write a list: [${example}]` });
  }
});

/** A bare scalar means `equals`; normalizing it here keeps `channel: eng` and `channel: { equals: eng }` one policy. */
function scalarAsEquals(value: unknown): unknown {
  return value === null || typeof value !== 'object' ? { equals: value } : value;
}

const operatorListSchema = z.array(operatorObjectSchema).min(1, 'a list of predicates cannot be empty').max(16, 'at most 16 predicates per field');

/**
 * A predicate: an operator object (or a bare scalar), or a list of them that must all hold.
 * Dispatched by hand rather than with z.union, whose failure message would hide the real one
 * ("two operators", "unknown operator") behind "invalid input".
 */
const predicateSchema = z.unknown().transform((value, context): OperatorObject | OperatorObject[] => {
  const result = Array.isArray(value) ? operatorListSchema.safeParse(value.map(scalarAsEquals)) : operatorObjectSchema.safeParse(scalarAsEquals(value));
  if (result.success) return result.data;
  for (const issue of result.error.issues) context.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  return z.NEVER;
});
export type OperatorObject = z.infer<typeof operatorObjectSchema>;
export type Predicate = z.infer<typeof predicateSchema>;

/** A glob or a list of globs, normalized to a list. */
const globListSchema = z.preprocess(
  (value) => (typeof value === 'string' ? [value] : value),
  z.array(globSchema, { error: 'expected a glob or a list of globs' }).min(1, 'the list of globs is empty').max(256),
);

/** Why a dotted path into capability.payload is refused, or undefined; numeric segments index arrays. */
function payloadPathProblem(path: string): string | undefined {
  const segments = path.split('.');
  if (path.length > 256) return `payload path "${path.slice(0, 40)}..." is longer than 256 characters`;
  if (segments.some((segment) => segment === '')) return `payload path "${path}" has an empty segment; write dotted keys such as message.channel`;
  if (segments.length > 32) return `payload path "${path}" is deeper than 32 levels`;
  const forbidden = segments.find((segment) => FORBIDDEN_SEGMENTS.has(segment));
  if (forbidden !== undefined) return `payload path "${path}" names "${forbidden}", which never holds payload data`;
  return undefined;
}

// Keys are checked here rather than by the record's key schema, whose failure zod reports only as
// "Invalid key in record". A `__proto__` key is caught before zod copies the record, because the
// copy drops it silently, and a condition that vanishes would widen its rule.
const payloadConditionsSchema = z.preprocess(
  (value, context) => {
    if (typeof value === 'object' && value !== null && Object.hasOwn(value, '__proto__')) {
      context.addIssue({ code: 'custom', path: ['__proto__'], message: 'payload path "__proto__" never holds payload data', input: value });
    }
    return value;
  },
  z.record(z.string(), predicateSchema).superRefine((conditions, context) => {
    for (const path of Object.keys(conditions)) {
      const problem = payloadPathProblem(path);
      if (problem) context.addIssue({ code: 'custom', path: [path], message: problem });
    }
  }),
);

const whenSchema = z.strictObject(
  {
    tool: globListSchema.optional(),
    resource: globListSchema.optional(),
    actor: z
      .strictObject({
        agentId: predicateSchema.optional(),
        humanOwner: predicateSchema.optional(),
        runtime: predicateSchema.optional(),
      })
      .optional(),
    payload: payloadConditionsSchema.optional(),
  },
  {
    error: (issue) =>
      issue.input === undefined ? 'every rule needs a "when" with its conditions; write when: {} for a rule that matches every action' : 'when is a map of conditions: tool, resource, actor, payload',
  },
);

const reasonSchema = z.string().regex(REASON_CODE_PATTERN, 'a reason code is snake_case: a lowercase letter, then lowercase letters, digits or "_" (at most 64)');

const ruleSchema = z
  .strictObject({
    id: z.string({ error: 'every rule needs an id' }).regex(RULE_ID_PATTERN, 'a rule id is lowercase letters, digits, ".", "_" or "-", starting with a letter or digit (at most 64)'),
    description: z.string().max(1000).optional(),
    // Required, so that "matches everything" is always written down (`when: {}`), never an omission.
    when: whenSchema,
    decision: z.enum(RULE_DECISIONS, { error: 'decision is allow, deny or step_up' }),
    reasons: z.array(reasonSchema).min(1, 'reasons cannot be empty; leave the key out for the default reason').max(16).optional(),
  })
  .transform((rule) => ({ ...rule, reasons: rule.reasons ?? [DEFAULT_REASONS[rule.decision]] }));
export type PolicyRule = z.infer<typeof ruleSchema>;

/** A duration in one unit (src/policy/window.ts): `30s`, `15m`, `1h`, `7d`, at most 31 days. */
export function durationSchema(name: string) {
  const message = `${name} is a duration such as 30s, 15m, 1h or 7d`;
  return z
    .string({ error: message })
    .regex(WINDOW_PATTERN, message)
    .refine((window) => !WINDOW_PATTERN.test(window) || parseWindow(window) !== undefined, `${name} is at most 31d`);
}

/** Built on first use: most policies have no budgets, and a hook process builds what it parses. */
const budgetSchema = () =>
  z.strictObject({
    id: z.string({ error: 'every budget needs an id' }).regex(RULE_ID_PATTERN, 'a budget id is lowercase letters, digits, ".", "_" or "-", starting with a letter or digit (at most 64)'),
    description: z.string().max(1000).optional(),
    tool: globSchema,
    agent: globSchema.default('*'),
    max: z.number({ error: 'max is a whole number of allowed actions' }).int('max is a whole number of allowed actions').min(1, 'max must be at least 1; to forbid a tool, write a deny rule').max(10_000_000),
    window: durationSchema('window'),
  });
export type BudgetConfig = z.infer<ReturnType<typeof budgetSchema>>;

export const policySchema = z
  .strictObject({
    rules: z.array(ruleSchema).max(10_000).default([]),
    budgets: z.array(z.lazy(budgetSchema)).max(1000).default([]),
  })
  .superRefine((policy, context) => {
    // Rules and budgets share one namespace: a decision's ruleId names either.
    const seen = new Map<string, string>();
    const check = (id: string, path: (string | number)[]) => {
      const where = path.join('.');
      if (id === DEFAULT_RULE_ID) context.addIssue({ code: 'custom', path, message: `the id "${DEFAULT_RULE_ID}" is reserved for decisions no rule made; choose another` });
      const first = seen.get(id);
      if (first !== undefined) context.addIssue({ code: 'custom', path, message: `duplicate id "${id}" (first used at ${first}); every rule and budget needs its own id` });
      else seen.set(id, where);
    };
    policy.rules.forEach((rule, index) => check(rule.id, ['rules', index, 'id']));
    policy.budgets.forEach((budget, index) => check(budget.id, ['budgets', index, 'id']));
  });

export type PolicyConfig = z.infer<typeof policySchema>;

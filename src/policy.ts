/** `svc/policy`: the policy schema, compiler and evaluator, and the reserved reason codes. */
export { compilePolicy, type CompiledPolicy, type PolicyDecision, type PolicyContext, type PolicyMode, type BudgetRule, type RuleTrace } from './policy/compile-policy.js';
export { policySchema, type PolicyConfig } from './policy/policy-schema.js';
export { RESERVED_REASON_CODES, REASON_CODE_PATTERN, type ReservedReasonCode } from './policy/reason-codes.js';
export { BudgetCounter } from './projections/budgets.js';

import { parse } from 'yaml';
import { expect } from 'vitest';
import { normalizeAction, type NormalizedAction } from '../../src/actionpass/action.js';
import { compilePolicy, type CompiledPolicy, type PolicyContext, type PolicyDecision, type PolicyMode } from '../../src/policy/compile-policy.js';
import { policySchema, type PolicyConfig } from '../../src/policy/policy-schema.js';

/**
 * Given/when/then for the policy engine, in the spirit of Emmett's decider specifications:
 * given a policy (and the budget counts the ledger would supply), when an action is evaluated,
 * then the decision is the expected one.
 */

export const TENANT = 'org:acme';

/** The `policy:` section as it would appear in svc.yml, parsed and normalized by the schema. */
export function policyConfig(yaml: string): PolicyConfig {
  return policySchema.parse(parse(yaml) ?? {});
}

export interface ActionShape {
  tool?: string;
  resource?: string;
  payload?: Record<string, unknown>;
  actor?: { agentId?: string; humanOwner?: string; runtime?: string };
}

export function action(shape: ActionShape = {}): NormalizedAction {
  const result = normalizeAction(
    {
      schemaVersion: 'svc.action.v0',
      actor: { agentId: 'agent:deployer', ...shape.actor },
      intent: { taskId: 'task-1' },
      capability: { tool: shape.tool ?? 'chat.message.send', resource: shape.resource ?? 'channel:eng', payload: shape.payload ?? {} },
    },
    TENANT,
  );
  if (!result.ok) throw new Error(`test action is invalid: ${JSON.stringify(result.issues)}`);
  return result.action;
}

/** Budget counts by `<budget id>` (or `<budget id>/<agentId>/<tool>`); anything else counts 0. */
export type BudgetCounts = Record<string, number>;

export function contextWith(counts: BudgetCounts = {}, now = 1_790_000_000_000): PolicyContext {
  return {
    now,
    countAllowed: (budget, agentId, tool) => counts[`${budget.id}/${agentId}/${tool}`] ?? counts[budget.id] ?? 0,
  };
}

export function givenPolicy(yaml: string, counts: BudgetCounts = {}) {
  const policy: CompiledPolicy = compilePolicy(policyConfig(yaml));
  return {
    policy,
    whenEvaluating(shape: ActionShape, mode?: PolicyMode) {
      const decision = policy.evaluate(action(shape), contextWith(counts), mode);
      return {
        decision,
        then(expected: Partial<PolicyDecision>): PolicyDecision {
          expect(decision).toMatchObject(expected);
          return decision;
        },
      };
    },
  };
}

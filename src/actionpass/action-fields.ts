/**
 * The rules of `normalizedActionSchema` (action.ts) written out by hand, for the request path:
 * zod's safeParse costs more per request than the rest of normalizing an action, because it
 * copies every level and runs as generic code that the server's other work keeps cold. This only
 * ever reads the fields of an action zod accepts, returning what zod's copy would hold; anything
 * else is undefined and goes on to zod, which then decides and words the issues. A test holds the
 * two to the same verdicts and the same fields.
 */

export interface ActionFields {
  schemaVersion: string;
  actor: { agentId: string; humanOwner?: string; runtime?: string; tenant?: string };
  intent: { taskId: string; declaredGoal?: string };
  capability: { tool: string; resource: string; payload: Record<string, unknown> };
}

/** Limits and patterns action.ts passes to zod, so both read from one place. */
export interface ActionRules {
  schemaVersion: string;
  maxStringLength: number;
  agentId: RegExp;
  humanOwner: RegExp;
  runtime: RegExp;
  taskId: RegExp;
  tenant: RegExp;
  tool: RegExp;
  resource: RegExp;
}

type Fields = Record<string, unknown>;

/** zod's object test: an object that is not an array. */
function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether every own enumerable key of `value` is one of `allowed` (z.strictObject), with nothing inherited to confuse `for…in`. */
function hasOnlyKeys(value: Fields, allowed: readonly string[]): boolean {
  for (const key in value) if (!Object.hasOwn(value, key) || !allowed.includes(key)) return false;
  return true;
}

function matches(value: unknown, pattern: RegExp): value is string {
  return typeof value === 'string' && pattern.test(value);
}

const ACTION_KEYS = ['schemaVersion', 'actor', 'intent', 'capability'] as const;
const ACTOR_KEYS = ['agentId', 'humanOwner', 'runtime', 'tenant'] as const;
const INTENT_KEYS = ['taskId', 'declaredGoal'] as const;
const CAPABILITY_KEYS = ['tool', 'resource', 'payload'] as const;

/**
 * The fields of `input` when it is an action zod would accept, else undefined. The payload is
 * copied one level deep as zod's record copies it (own enumerable string keys), so the action
 * never aliases the caller's object.
 */
export function readActionFields(input: unknown, rules: ActionRules): ActionFields | undefined {
  if (!isObject(input) || !hasOnlyKeys(input, ACTION_KEYS) || input.schemaVersion !== rules.schemaVersion) return undefined;
  const { actor, intent, capability } = input;
  if (!isObject(actor) || !hasOnlyKeys(actor, ACTOR_KEYS)) return undefined;
  if (!isObject(intent) || !hasOnlyKeys(intent, INTENT_KEYS)) return undefined;
  if (!isObject(capability) || !hasOnlyKeys(capability, CAPABILITY_KEYS)) return undefined;
  const { agentId, humanOwner, runtime, tenant } = actor;
  if (!matches(agentId, rules.agentId)) return undefined;
  if (humanOwner !== undefined && !matches(humanOwner, rules.humanOwner)) return undefined;
  if (runtime !== undefined && !matches(runtime, rules.runtime)) return undefined;
  if (tenant !== undefined && !matches(tenant, rules.tenant)) return undefined;
  const { taskId, declaredGoal } = intent;
  if (!matches(taskId, rules.taskId)) return undefined;
  if (declaredGoal !== undefined && !(typeof declaredGoal === 'string' && declaredGoal.length <= rules.maxStringLength)) return undefined;
  const { tool, resource, payload } = capability;
  if (!matches(tool, rules.tool) || !matches(resource, rules.resource)) return undefined;
  const copy = copyPlainRecord(payload);
  if (copy === undefined) return undefined;
  return {
    schemaVersion: rules.schemaVersion,
    actor: { agentId, ...(humanOwner !== undefined && { humanOwner }), ...(runtime !== undefined && { runtime }), ...(tenant !== undefined && { tenant }) },
    intent: { taskId, ...(declaredGoal !== undefined && { declaredGoal: declaredGoal as string }) },
    capability: { tool, resource, payload: copy },
  };
}

/**
 * z.record(z.string(), z.unknown()) on a plain object: a new object with the same own
 * enumerable string keys and values. Narrower than zod where zod's rules get subtle (symbol or
 * non-enumerable keys, a `__proto__` key, prototypes other than Object's or null): undefined.
 */
function copyPlainRecord(value: unknown): Fields | undefined {
  if (!isObject(value)) return undefined;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return undefined;
  const keys = Object.keys(value);
  if (Reflect.ownKeys(value).length !== keys.length) return undefined;
  const copy: Fields = {};
  for (const key of keys) {
    if (key === '__proto__') return undefined;
    copy[key] = value[key];
  }
  return copy;
}

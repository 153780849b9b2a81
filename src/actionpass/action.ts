import * as z from 'zod';
import { hash } from 'node:crypto';
import { canonicalJson, type Sha256 } from '../events/canonical.js';
import { readActionFields, type ActionFields, type ActionRules } from './action-fields.js';

/**
 * The normalized action `svc.action.v0` (SPEC.md 2.1, DESIGN.md section 3), validated strictly:
 * unknown keys, wrong types and malformed identifiers are rejected, never guessed at. The limits
 * keep a hostile payload from costing more than a well-formed one: nesting depth 32, strings of
 * 16 KiB, numbers finite and within ±2^53, and no `__proto__`, `constructor` or `prototype` keys.
 */

export const ACTION_SCHEMA_VERSION = 'svc.action.v0';
export const MAX_PAYLOAD_DEPTH = 32;
export const MAX_STRING_LENGTH = 16 * 1024;
const MAX_NUMBER = 2 ** 53;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type Payload = { [key: string]: JsonValue };

export const TENANT_PATTERN = /^org:[a-z0-9][a-z0-9._-]{0,62}$/;
const AGENT_ID = /^agent:[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/;
const HUMAN_OWNER = /^user:[^\s@<>"]{1,128}@[^\s@<>"]{1,253}$/;
const RUNTIME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const TASK_ID = /^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,199}$/;
/** `<area>.<resource>.<verb>`, with more segments allowed for namespaced tools (MCP servers). */
export const TOOL_PATTERN = /^[a-z][a-z0-9_-]{0,63}(\.[A-Za-z0-9_-]{1,64}){2,5}$/;
/** `<kind>:<name>`; the name is free text without control characters. */
export const RESOURCE_PATTERN = /^[a-z][a-z0-9_-]{0,31}:[^\p{Cc}]{1,1024}$/u;

const limitedText = z.string().max(MAX_STRING_LENGTH, `at most ${MAX_STRING_LENGTH} characters`);

export const normalizedActionSchema = z.strictObject({
  schemaVersion: z.literal(ACTION_SCHEMA_VERSION, { error: `schemaVersion must be "${ACTION_SCHEMA_VERSION}"` }),
  actor: z.strictObject({
    agentId: z.string().regex(AGENT_ID, 'expected agent:<name> (letters, digits, ".", "_", "@", "-"; at most 128)'),
    humanOwner: z.string().regex(HUMAN_OWNER, 'expected user:<email>').optional(),
    runtime: z.string().regex(RUNTIME, 'expected a runtime name of letters, digits, ".", "_" or "-"').optional(),
    // Overwritten with the configured tenant; checked only so a malformed one is reported, not hidden.
    tenant: z.string().regex(TENANT_PATTERN, 'expected org:<name>').optional(),
  }),
  intent: z.strictObject({
    taskId: z.string().regex(TASK_ID, 'expected a task id of 1-200 safe characters'),
    declaredGoal: limitedText.optional(),
  }),
  capability: z.strictObject({
    tool: z.string().regex(TOOL_PATTERN, 'expected a dotted tool name <area>.<resource>.<verb>, for example chat.message.send'),
    resource: z.string().regex(RESOURCE_PATTERN, 'expected <kind>:<name>, for example channel:eng'),
    payload: z.record(z.string(), z.unknown(), { error: 'payload must be a JSON object' }),
  }),
});

/** The schema's rules for the hand-written reading of action-fields.ts, from the same constants. */
export const ACTION_RULES: ActionRules = {
  schemaVersion: ACTION_SCHEMA_VERSION,
  maxStringLength: MAX_STRING_LENGTH,
  agentId: AGENT_ID,
  humanOwner: HUMAN_OWNER,
  runtime: RUNTIME,
  taskId: TASK_ID,
  tenant: TENANT_PATTERN,
  tool: TOOL_PATTERN,
  resource: RESOURCE_PATTERN,
};

export type NormalizedAction = Omit<z.infer<typeof normalizedActionSchema>, 'actor' | 'capability'> & {
  actor: Omit<z.infer<typeof normalizedActionSchema>['actor'], 'tenant'> & { tenant: string };
  capability: { tool: string; resource: string; payload: Payload };
};

export interface ActionIssue {
  /** Dotted path of the offending field, for example `capability.payload.to`. */
  path: string;
  message: string;
}

export type NormalizedResult =
  | {
      ok: true;
      action: NormalizedAction;
      /** JCS(action), the text `actionHash` covers and the `action` of its `action.received` record. */
      actionJson: string;
      actionHash: Sha256;
      payloadHash: Sha256;
    }
  | { ok: false; issues: ActionIssue[] };

/**
 * Validates `input` as `svc.action.v0`, stamps `tenant` over whatever the caller claimed, and
 * computes `payloadHash = sha256(JCS(payload))` and `actionHash = sha256(JCS(action))`.
 */
export function normalizeAction(input: unknown, tenant: string): NormalizedResult {
  // A lone surrogate is not Unicode and has no JCS form: refused wherever it hides, keys included.
  // Both checks walk the input first without naming paths (no string per key), and name the path
  // only for an input that fails, which is rare.
  if (hasLoneSurrogate(input, 0)) {
    const lone = loneSurrogateAt(input, '', 0) ?? '(body)';
    return { ok: false, issues: [{ path: lone, message: 'contains a lone UTF-16 surrogate, which is not valid Unicode' }] };
  }
  // The payload is checked as the caller sent it: zod copies records into new objects, and a
  // `__proto__` key would not survive the copy to be reported.
  const rawPayload = rawPayloadOf(input);
  if (!isWithinJsonLimits(rawPayload, 1)) {
    const payloadIssues: ActionIssue[] = [];
    checkJsonValue(rawPayload, 'capability.payload', 1, payloadIssues);
    return { ok: false, issues: payloadIssues };
  }
  // The hand-written reading first: it takes exactly what zod takes, or defers to zod.
  const fields = readActionFields(input, ACTION_RULES) ?? parseActionFields(input);
  if ('issues' in fields) return { ok: false, issues: fields.issues };
  const { actor, intent, capability } = fields;
  // Keys in JCS order at every level the schema owns, so hashing and the ledger line take
  // canonicalJson's fast path (JSON.stringify of an already sorted tree).
  const action: NormalizedAction = {
    actor: {
      agentId: actor.agentId,
      ...(actor.humanOwner !== undefined && { humanOwner: actor.humanOwner }),
      ...(actor.runtime !== undefined && { runtime: actor.runtime }),
      tenant,
    },
    capability: { payload: capability.payload as Payload, resource: capability.resource, tool: capability.tool },
    intent: { ...(intent.declaredGoal !== undefined && { declaredGoal: intent.declaredGoal }), taskId: intent.taskId },
    schemaVersion: ACTION_SCHEMA_VERSION,
  };
  // JCS(action) around JCS(payload), which payloadHash covers too: the payload, most of an action,
  // is serialized once. The action's own keys and its capability's are the ones written just
  // above, in the order written here; every value goes through canonicalJson.
  const payloadJson = canonicalJson(action.capability.payload);
  const actionJson =
    `{"actor":${canonicalJson(action.actor)},"capability":{"payload":${payloadJson},"resource":${canonicalJson(action.capability.resource)},` +
    `"tool":${canonicalJson(action.capability.tool)}},"intent":${canonicalJson(action.intent)},"schemaVersion":${canonicalJson(action.schemaVersion)}}`;
  return { ok: true, action, actionJson, actionHash: sha256Text(actionJson), payloadHash: sha256Text(payloadJson) };
}

/** `sha256:` and the hex digest of a JCS text's UTF-8 bytes: hashCanonical for a text already serialized. */
function sha256Text(jcs: string): Sha256 {
  return `sha256:${hash('sha256', jcs, 'hex')}`;
}

/** The reference reading: zod's verdict, its copy of the fields, or its issues worded for the caller. */
export function parseActionFields(input: unknown): ActionFields | { issues: ActionIssue[] } {
  const parsed = normalizedActionSchema.safeParse(input);
  if (!parsed.success) return { issues: parsed.error.issues.slice(0, 20).map((issue) => ({ path: issue.path.map(String).join('.') || '(body)', message: issue.message })) };
  return parsed.data;
}

const LONE_SURROGATE = /\p{Cs}/u;

/** Whether `loneSurrogateAt` finds a lone surrogate, walked without building its path. */
export function hasLoneSurrogate(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return LONE_SURROGATE.test(value);
  if (typeof value !== 'object' || value === null || depth > MAX_PAYLOAD_DEPTH + 3) return false;
  for (const key of Object.keys(value)) {
    if (LONE_SURROGATE.test(key) || hasLoneSurrogate((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

export function loneSurrogateAt(value: unknown, path: string, depth: number): string | undefined {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? path || '(body)' : undefined;
  // Deeper than any valid action: the payload check reports the depth.
  if (typeof value !== 'object' || value === null || depth > MAX_PAYLOAD_DEPTH + 3) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (LONE_SURROGATE.test(key)) return at;
    const found = loneSurrogateAt(item, at, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

function rawPayloadOf(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || !Object.hasOwn(input, 'capability')) return {};
  const capability = (input as { capability: unknown }).capability;
  if (typeof capability !== 'object' || capability === null || !Object.hasOwn(capability, 'payload')) return {};
  return (capability as { payload: unknown }).payload;
}

/** Whether `checkJsonValue` finds no issue, walked without building paths. */
export function isWithinJsonLimits(value: unknown, depth: number): boolean {
  if (depth > MAX_PAYLOAD_DEPTH) return false;
  switch (typeof value) {
    case 'string':
      return value.length <= MAX_STRING_LENGTH;
    case 'number':
      return Number.isFinite(value) && Math.abs(value) <= MAX_NUMBER;
    case 'boolean':
      return true;
    case 'object': {
      if (value === null) return true;
      // every() skips holes as checkJsonValue's forEach does.
      if (Array.isArray(value)) return value.every((item) => isWithinJsonLimits(item, depth + 1));
      if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return false;
      for (const key of Object.keys(value)) {
        if (FORBIDDEN_KEYS.has(key) || key.length > MAX_STRING_LENGTH || !isWithinJsonLimits((value as Record<string, unknown>)[key], depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

/** Holds a payload to the JSON limits; collects at most a handful of issues. */
export function checkJsonValue(value: unknown, path: string, depth: number, issues: ActionIssue[]): void {
  if (issues.length >= 20) return;
  if (depth > MAX_PAYLOAD_DEPTH) {
    issues.push({ path, message: `nested deeper than ${MAX_PAYLOAD_DEPTH} levels` });
    return;
  }
  switch (typeof value) {
    case 'string':
      if (value.length > MAX_STRING_LENGTH) issues.push({ path, message: `string longer than ${MAX_STRING_LENGTH} characters` });
      return;
    case 'number':
      if (!Number.isFinite(value) || Math.abs(value) > MAX_NUMBER) issues.push({ path, message: 'numbers must be finite and within ±2^53' });
      return;
    case 'boolean':
      return;
    case 'object': {
      if (value === null) return;
      if (Array.isArray(value)) {
        value.forEach((item, index) => checkJsonValue(item, `${path}.${index}`, depth + 1, issues));
        return;
      }
      if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) {
        issues.push({ path, message: 'expected a plain JSON object' });
        return;
      }
      for (const [key, item] of Object.entries(value)) {
        if (FORBIDDEN_KEYS.has(key)) issues.push({ path: `${path}.${key}`, message: `the key "${key}" is not allowed` });
        else if (key.length > MAX_STRING_LENGTH) issues.push({ path, message: `a key longer than ${MAX_STRING_LENGTH} characters` });
        else checkJsonValue(item, `${path}.${key}`, depth + 1, issues);
      }
      return;
    }
    default:
      issues.push({ path, message: `a ${typeof value} is not a JSON value` });
  }
}

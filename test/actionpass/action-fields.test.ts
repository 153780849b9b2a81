import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ACTION_RULES, normalizeAction, parseActionFields } from '../../src/actionpass/action.js';
import { readActionFields } from '../../src/actionpass/action-fields.js';

/**
 * normalizeAction reads an action by hand and goes to zod only for what it does not accept; zod
 * stays the reference. The hand-written reading must never accept what zod refuses, and must
 * read the same fields as zod's copy, so a decision never depends on which path was taken.
 */

const valid = {
  schemaVersion: 'svc.action.v0',
  actor: { agentId: 'agent:bench', humanOwner: 'user:dev@acme.example', runtime: 'bench', tenant: 'org:other' },
  intent: { taskId: 'bench-1', declaredGoal: 'post the deploy note' },
  capability: { tool: 'chat.message.send', resource: 'channel:eng', payload: { channel: 'eng', text: 'deploy finished', n: 1, nested: { a: [1, 'x', null] } } },
};

/** Paths to every value inside an action, so a mutation can reach any field, nested payloads included. */
function paths(value: unknown, prefix: string[] = []): string[][] {
  if (typeof value !== 'object' || value === null) return [prefix];
  return [prefix, ...Object.entries(value).flatMap(([key, inner]) => paths(inner, [...prefix, key]))];
}

function setAt(target: Record<string, unknown>, path: string[], value: unknown, remove: boolean): void {
  let node: Record<string, unknown> = target;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
  const last = path.at(-1);
  if (last === undefined) return;
  if (value === undefined && remove) delete node[last];
  else node[last] = value;
}

const oddValues = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.constantFrom(0, 1, -1, 1.5, true, false, [], {}, ['agent:bench']),
  fc.string({ maxLength: 4 }),
  fc.constantFrom(
    'svc.action.v0',
    'svc.action.v1',
    'agent:bench',
    'agent:',
    'agent:a b',
    'user:dev@acme.example',
    'user:dev',
    'org:acme',
    'org:ACME',
    'chat.message.send',
    'chat.send',
    'channel:eng',
    'channel:',
    'channel:a\u0007b',
    'Channel:eng',
    'x'.repeat(16_384),
    'x'.repeat(16_385),
    'bench-1',
    '-bench',
  ),
  fc.object({ maxDepth: 1 }),
  fc.constant(Object.create(null) as object),
  fc.constant(new Map()),
);

const extraKey = fc.constantFrom('extra', 'tenant', 'declaredGoal', 'payload', 'schemaVersion');

describe('readActionFields', () => {
  it('reads a valid action as zod does, and copies the payload instead of aliasing it', () => {
    const fields = readActionFields(valid, ACTION_RULES);
    expect(fields).toEqual(parseActionFields(valid));
    expect(fields?.capability.payload).not.toBe(valid.capability.payload);
  });

  it('gives zod’s verdict and fields on 3,000 actions mutated anywhere', () => {
    fc.assert(
      fc.property(fc.nat(), oddValues, fc.boolean(), fc.option(fc.tuple(fc.nat(), extraKey)), (pathIndex, value, remove, extra) => {
        const input = structuredClone(valid) as Record<string, unknown>;
        const all = paths(input);
        const path = all[pathIndex % all.length] as string[];
        if (path.length === 0) return;
        setAt(input, path, value, remove);
        if (extra) {
          const objects = paths(input).filter((at) => at.length === 0 || typeof at.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], input) === 'object');
          const at = objects[extra[0] % objects.length] as string[];
          const target = at.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], input);
          if (typeof target === 'object' && target !== null && !Array.isArray(target)) (target as Record<string, unknown>)[extra[1]] = 'org:acme';
        }
        const fast = readActionFields(input, ACTION_RULES);
        const reference = parseActionFields(input);
        if (fast !== undefined) {
          expect('issues' in reference).toBe(false);
          expect(fast).toEqual(reference);
        }
      }),
      { numRuns: 3_000, seed: 7 },
    );
  });

  it('takes the hand-written path for the actions callers send, so zod stays off the request path', () => {
    const minimal = { schemaVersion: 'svc.action.v0', actor: { agentId: 'agent:a' }, intent: { taskId: 't' }, capability: { tool: 'fs.file.write', resource: 'file:/tmp/ü', payload: {} } };
    for (const action of [valid, minimal]) expect(readActionFields(action, ACTION_RULES)).toBeDefined();
  });

  it('leaves a refused action to zod, whose issues normalizeAction reports', () => {
    const input = { ...valid, actor: { ...valid.actor, agentId: 'bench' } };
    expect(readActionFields(input, ACTION_RULES)).toBeUndefined();
    const result = normalizeAction(input, 'org:acme');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues[0]?.path).toBe('actor.agentId');
  });

  it('refuses what zod’s record copy treats specially: symbol keys, non-enumerable keys, other prototypes', () => {
    const withSymbol = structuredClone(valid);
    Object.assign(withSymbol.capability.payload, { [Symbol('s')]: 1 });
    const hidden = structuredClone(valid);
    Object.defineProperty(hidden.capability.payload, 'secret', { value: 1, enumerable: false });
    const classy = structuredClone(valid) as { capability: { payload: unknown } };
    classy.capability.payload = new (class Payload {
      channel = 'eng';
    })();
    for (const input of [withSymbol, hidden, classy]) expect(readActionFields(input, ACTION_RULES)).toBeUndefined();
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeAction } from '../../src/actionpass/action.js';
import type { ActionPassClaims } from '../../src/actionpass/actionpass-token.js';
import { signedTokenJson } from '../../src/actionpass/jws.js';
import { serializedDecided, serializedPassIssued, serializedReceived } from '../../src/commands/serialized-records.js';
import { canonicalJson, hashCanonical } from '../../src/events/canonical.js';
import type { LedgerEvent } from '../../src/events/catalogue.js';

/** The enforcer's tokenJson for a token it signed (three base64url parts); other generated tokens get none. */
function tokenJsonOf(token: string): string | undefined {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token) ? signedTokenJson(token) : undefined;
}

/**
 * The enforcer hands the writer these texts instead of the events' data, so each must be exactly
 * what the writer would have written: canonicalJson of the data, for any action and any claims.
 */

const text = fc.string({ unit: 'grapheme', maxLength: 40 });
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(text.filter((key) => !['__proto__', 'constructor', 'prototype'].includes(key)), tie('value'), { maxKeys: 5 }),
})).value;

const actionInput = fc.record(
  {
    schemaVersion: fc.constant('svc.action.v0'),
    actor: fc.record({ agentId: fc.constantFrom('agent:bench', 'agent:a.b@c-d'), humanOwner: fc.constant('user:dev@acme.example'), runtime: fc.constantFrom('bench', 'claude-code') }, { requiredKeys: ['agentId'] }),
    intent: fc.record({ taskId: fc.constantFrom('bench-1', 't'), declaredGoal: text }, { requiredKeys: ['taskId'] }),
    capability: fc.record({ tool: fc.constantFrom('chat.message.send', 'fs.file.write'), resource: fc.string({ minLength: 1, maxLength: 30 }).map((name) => `channel:${name.replace(/\p{Cc}/gu, '_')}`), payload: fc.dictionary(text, json, { maxKeys: 6 }) }),
  },
  { requiredKeys: ['schemaVersion', 'actor', 'intent', 'capability'] },
);

/** A token as the signer writes it (three base64url parts), or something else that still has a JCS form. */
const base64url = fc.stringMatching(/^[A-Za-z0-9_-]{1,120}$/);
const token = fc.oneof(
  fc.tuple(base64url, base64url, base64url).map((parts) => parts.join('.')),
  text.filter((value) => !/\p{Cs}/u.test(value)),
  fc.constantFrom('aGVhZGVy.Y2xhaW1z.c2ln', 'a.b', 'a..c', 'a.b.c.d', 'a.b.c\n', 'a"b.c.d', 'a\\b.c.d'),
);

function receivedOf(action: unknown, actionHash: string, payloadHash: string, source: string): LedgerEvent {
  return { type: 'action.received', stream: 'action:act_x', data: { action, actionHash, actionId: 'act_AbC-_09', payloadHash, source } } as LedgerEvent;
}

describe('serialized records', () => {
  it('action.received: the text around the action JSON is canonicalJson of the data', () => {
    fc.assert(
      fc.property(actionInput, fc.constantFrom('proxy', 'hook', 'sdk', 'mcp'), (input, source) => {
        const normalized = normalizeAction(input, 'org:acme');
        if (!normalized.ok) return;
        expect(normalized.actionJson).toBe(canonicalJson(normalized.action));
        expect(normalized.actionHash).toBe(hashCanonical(normalized.action));
        expect(normalized.payloadHash).toBe(hashCanonical(normalized.action.capability.payload));
        const event = receivedOf(normalized.action, normalized.actionHash, normalized.payloadHash, source);
        const serialized = serializedReceived(event, normalized.action, normalized.actionJson);
        expect('dataJson' in serialized && serialized.dataJson).toBe(canonicalJson(event.data));
      }),
      { numRuns: 300 },
    );
  });

  it('action.received: data of another shape, or naming another action, is left for the writer to serialize', () => {
    const normalized = normalizeAction({ schemaVersion: 'svc.action.v0', actor: { agentId: 'agent:a' }, intent: { taskId: 't' }, capability: { tool: 'chat.message.send', resource: 'channel:eng', payload: {} } }, 'org:acme');
    if (!normalized.ok) throw new Error('invalid');
    const event = receivedOf(normalized.action, normalized.actionHash, normalized.payloadHash, 'proxy');
    const grown = { ...event, data: { ...event.data, extra: 1 } } as LedgerEvent;
    const other = receivedOf({ ...normalized.action }, normalized.actionHash, normalized.payloadHash, 'proxy');
    const decided: LedgerEvent = { type: 'policy.decided', stream: 'action:act_x', data: { actionId: 'act_x', decision: 'allow', policyHash: normalized.actionHash, reasons: ['rule_allow'], ruleId: 'r' } };
    for (const unchanged of [grown, other, decided]) expect(serializedReceived(unchanged, normalized.action, normalized.actionJson)).toBe(unchanged);
  });

  it('policy.decided: the text is canonicalJson of the data; data of another shape, or that JCS cannot write, is left for the writer', () => {
    const anyText = fc.oneof(text, fc.string({ unit: 'binary' }), fc.constantFrom('', '\ud800', '"quoted"', 'back\\slash', 'line\nbreak'));
    const data = fc.record({ actionId: anyText, decision: fc.oneof(fc.constantFrom('allow', 'deny', 'step_up', 'no_opinion'), anyText), policyHash: anyText, reasons: fc.array(anyText, { maxLength: 4 }), ruleId: anyText });
    const reshaped = (fields: Record<string, unknown>) =>
      fc.constantFrom<Record<string, unknown>>(
        fields,
        Object.fromEntries(Object.entries(fields).reverse()),
        { ...fields, extra: 1 },
        Object.fromEntries(Object.entries(fields).slice(1)),
      );
    fc.assert(
      fc.property(data.chain(reshaped), (fields) => {
        const event = { type: 'policy.decided', stream: 'action:act_x', data: fields } as unknown as LedgerEvent;
        const serialized = serializedDecided(event);
        let expected: string | undefined;
        try {
          expected = canonicalJson(fields);
        } catch {
          expected = undefined;
        }
        const inOrder = Object.keys(fields).join() === 'actionId,decision,policyHash,reasons,ruleId';
        if (inOrder && expected !== undefined) expect('dataJson' in serialized && serialized.dataJson).toBe(expected);
        else expect(serialized).toBe(event);
      }),
      { numRuns: 1000 },
    );
    const received = receivedOf({}, 'sha256:x', 'sha256:y', 'proxy');
    expect(serializedDecided(received)).toBe(received);
  });

  it('actionpass.issued: the text around the claims JSON is canonicalJson of the data', () => {
    fc.assert(
      fc.property(text, fc.option(fc.constantFrom('apr_1', 'apr_x-Y'), { nil: undefined }), fc.nat(), token, (resource, approvalId, decisionSeq, passToken) => {
        const claims: ActionPassClaims = {
          actionHash: `sha256:${'a'.repeat(64)}`,
          actionId: 'act_AbC-_09',
          ...(approvalId !== undefined && { approvalId }),
          aud: 'svc.adapters',
          decisionSeq,
          exp: 1_795_000_300,
          iat: 1_795_000_000,
          iss: 'svc.local',
          jti: 'pass_AbC-_09',
          nbf: 1_795_000_000,
          payloadHash: `sha256:${'b'.repeat(64)}`,
          policyHash: `sha256:${'c'.repeat(64)}`,
          resource,
          sub: 'agent:bench',
          tenant: 'org:acme',
          tool: 'chat.message.send',
        };
        // The token's text as the enforcer passes it (when it is a compact JWS), and without it.
        for (const tokenJson of [tokenJsonOf(passToken), undefined]) {
          const serialized = serializedPassIssued(claims, canonicalJson(claims), passToken, tokenJson);
          expect(serialized.dataJson).toBe(canonicalJson(serialized.event.data));
        }
      }),
      { numRuns: 200 },
    );
  });
});

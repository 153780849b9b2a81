import { describe, expect, it } from 'vitest';
import { MISSING } from '../../src/policy/field-path.js';
import { compilePredicate, type Verdict } from '../../src/policy/predicates.js';
import { givenPolicy, policyConfig } from './policy-spec.js';

/** The predicate written for field `f` of a one-rule policy, as the schema normalizes it. */
function predicate(yaml: string) {
  const config = policyConfig(`rules: [{ id: r, when: { payload: { f: ${yaml} } }, decision: allow }]`);
  const written = config.rules[0]?.when.payload?.f;
  if (written === undefined) throw new Error('no predicate');
  return compilePredicate(written);
}

type Case = [value: unknown, verdict: Verdict];

const OPERATORS: Record<string, { yaml: string; label: string; cases: Case[] }> = {
  'a bare scalar (equals)': { yaml: 'eng', label: 'equals eng', cases: [['eng', 'holds'], ['ops', 'fails'], [5, 'fails'], [null, 'fails'], [['eng'], 'undetermined'], [{ eng: 1 }, 'undetermined'], [MISSING, 'fails']] },
  equals: { yaml: '{ equals: 5 }', label: 'equals 5', cases: [[5, 'holds'], ['5', 'fails'], [6, 'fails'], [MISSING, 'fails']] },
  'equals null': { yaml: '{ equals: null }', label: 'equals null', cases: [[null, 'holds'], ['null', 'fails'], [MISSING, 'fails']] },
  'equals false': { yaml: '{ equals: false }', label: 'equals false', cases: [[false, 'holds'], [0, 'fails'], ['', 'fails']] },
  in: { yaml: '{ in: [eng, ops, 7] }', label: 'in [eng, ops, 7]', cases: [['eng', 'holds'], [7, 'holds'], ['7', 'fails'], ['random', 'fails'], [['eng'], 'undetermined'], [MISSING, 'fails']] },
  not_in: { yaml: '{ not_in: [eng, ops] }', label: 'not_in [eng, ops]', cases: [['random', 'holds'], [3, 'holds'], ['eng', 'fails'], [['random'], 'undetermined'], [MISSING, 'undetermined']] },
  glob: { yaml: '{ glob: "*@acme.example" }', label: 'glob *@acme.example', cases: [['ana@acme.example', 'holds'], ['ana@acme.example.evil', 'fails'], [42, 'undetermined'], [MISSING, 'fails']] },
  not_glob: { yaml: '{ not_glob: "*@acme.example" }', label: 'not_glob *@acme.example', cases: [['bob@gmail.com', 'holds'], ['ana@acme.example', 'fails'], [['bob@gmail.com'], 'undetermined'], [MISSING, 'undetermined']] },
  regex: { yaml: '{ regex: "(?i)select\\\\b.*" }', label: 'regex "(?i)select\\\\b.*"', cases: [['SELECT * FROM t', 'holds'], ['select 1\nfrom t', 'holds'], ['with x as (select 1) delete', 'fails'], [1, 'undetermined'], [MISSING, 'fails']] },
  lt: { yaml: '{ lt: 100 }', label: 'lt 100', cases: [[99.5, 'holds'], [100, 'fails'], [101, 'fails'], ['5', 'undetermined'], [MISSING, 'fails']] },
  lte: { yaml: '{ lte: 100 }', label: 'lte 100', cases: [[100, 'holds'], [-3, 'holds'], [100.01, 'fails'], [true, 'undetermined']] },
  gt: { yaml: '{ gt: 1000 }', label: 'gt 1000', cases: [[1001, 'holds'], [1000, 'fails'], ['5000', 'undetermined'], [null, 'undetermined']] },
  gte: { yaml: '{ gte: 0 }', label: 'gte 0', cases: [[0, 'holds'], [-1, 'fails'], [[1], 'undetermined']] },
  'exists: true': { yaml: '{ exists: true }', label: 'exists true', cases: [['x', 'holds'], [null, 'holds'], [[], 'holds'], [MISSING, 'fails']] },
  'exists: false': { yaml: '{ exists: false }', label: 'exists false', cases: [[MISSING, 'holds'], [null, 'fails'], ['', 'fails']] },
  'a list (all must hold)': { yaml: '[{ gte: 10 }, { lt: 100 }]', label: 'gte 10 and lt 100', cases: [[10, 'holds'], [99, 'holds'], [9, 'fails'], [100, 'fails'], ['50', 'undetermined'], [MISSING, 'fails']] },
  'a list where one part fails outright': { yaml: '[{ exists: true }, { in: [a] }]', label: 'exists true and in [a]', cases: [[MISSING, 'fails'], [['a'], 'undetermined'], ['a', 'holds']] },
};

describe('predicates: three-valued; a missing field fails, except under not_in / not_glob (undetermined) and exists', () => {
  for (const [name, { yaml, label, cases }] of Object.entries(OPERATORS)) {
    it(`${name}: ${cases.map(([value, verdict]) => `${value === MISSING ? 'missing' : JSON.stringify(value)} ${verdict}`).join(', ')}`, () => {
      const compiled = predicate(yaml);
      expect(compiled.label).toBe(label);
      expect(cases.map(([value]) => compiled.test(value))).toEqual(cases.map(([, verdict]) => verdict));
    });
  }

  it('describes the value that decided, cut short, and says what a doubtful value is', () => {
    expect(predicate('{ not_in: [eng, ops] }').describe('channel', 'random')).toBe('channel "random" is not in [eng, ops]');
    expect(predicate('{ lt: 100 }').describe('amount', 5)).toBe('amount 5 is less than 100');
    expect(predicate('{ gt: 100 }').describe('amount', '5000')).toBe('amount is "5000", not a number');
    expect(predicate('{ glob: "a*" }').describe('to', ['a'])).toBe('to is a list, not a string');
    expect(predicate('{ in: [a] }').describe('to', MISSING)).toBe('to is missing');
    expect(predicate('{ not_glob: "x" }').describe('text', 'y'.repeat(500))).toBe(`text "${'y'.repeat(60)}…" does not match x`);
  });
});

describe('what doubt means to a rule (fail closed)', () => {
  const CHAT = `
rules:
  - id: chat-allowlisted-channels
    when: { tool: chat.message.send, payload: { channel: { in: [eng, ops, deploys] } } }
    decision: allow
  - id: chat-other-channels
    when: { tool: chat.message.send, payload: { channel: { not_in: [eng, ops, deploys] } } }
    decision: deny
    reasons: [channel_not_allowlisted]
`;

  it('given an allowlist and its complement, a missing channel is denied by the complement, never allowed', () => {
    const decision = givenPolicy(CHAT)
      .whenEvaluating({ payload: { text: 'hi' } })
      .then({ decision: 'deny', ruleId: 'chat-other-channels', reasons: ['channel_not_allowlisted'] });
    expect(decision.explanation).toBe('denied by rule chat-other-channels: channel is missing, and a deny rule applies when a value it checks is missing or not comparable (channel_not_allowlisted)');
    expect(decision.trace).toEqual([
      { ruleId: 'chat-allowlisted-channels', matched: false, failed: 'payload.channel in [eng, ops, deploys]' },
      { ruleId: 'chat-other-channels', matched: true, undetermined: 'payload.channel not_in [eng, ops, deploys] (missing or not comparable)' },
    ]);
  });

  it('given a broad allow guarded by a deny, a channel sent as a list cannot slip past the guard', () => {
    givenPolicy(`
rules:
  - { id: chat, when: { tool: chat.message.send }, decision: allow }
  - { id: guard, when: { payload: { channel: { not_in: [eng] } } }, decision: deny, reasons: [channel_not_allowlisted] }
`)
      .whenEvaluating({ payload: { channel: ['eng', 'random'] } })
      .then({ decision: 'deny', ruleId: 'guard' });
  });

  it('given a deny on large amounts, an amount sent as text is denied rather than compared as text', () => {
    givenPolicy(`
rules:
  - { id: pay, when: { tool: bank.transfer.create }, decision: allow }
  - { id: large, when: { tool: bank.transfer.create, payload: { amount: { gt: 1000 } } }, decision: deny }
`)
      .whenEvaluating({ tool: 'bank.transfer.create', resource: 'account:ops', payload: { amount: '5000' } })
      .then({ decision: 'deny', ruleId: 'large', reasons: ['rule_deny'] });
  });

  it('given a step_up for external recipients, a missing recipient asks for approval', () => {
    givenPolicy(`
rules:
  - { id: mail, when: { tool: email.message.send }, decision: allow }
  - { id: external, when: { tool: email.message.send, payload: { to: { not_glob: "*@acme.example" } } }, decision: step_up, reasons: [external_recipient] }
`)
      .whenEvaluating({ tool: 'email.message.send', resource: 'mailbox:ana', payload: {} })
      .then({ decision: 'step_up', ruleId: 'external', reasons: ['external_recipient'] });
  });

  it('a definite failure beats doubt: a rule whose tool does not match stays out, whatever its payload conditions', () => {
    givenPolicy(`
rules:
  - { id: other-tool, when: { tool: sql.query.run, payload: { statement: { regex: "select.*" } } }, decision: deny }
  - { id: chat, when: { tool: chat.message.send }, decision: allow }
`)
      .whenEvaluating({ payload: {} })
      .then({ decision: 'allow', ruleId: 'chat', trace: [{ ruleId: 'other-tool', matched: false, failed: 'tool matches sql.query.run' }, { ruleId: 'chat', matched: true }] });
  });

  it('given a deny on a field some actions leave out, an action without the field is not denied by it', () => {
    givenPolicy(`
rules:
  - { id: chat, when: { tool: chat.message.send }, decision: allow }
  - { id: secrets, when: { payload: { attachment: { regex: ".*[.]pem" } } }, decision: deny }
`)
      .whenEvaluating({ payload: { text: 'hi' } })
      .then({ decision: 'allow', trace: [{ ruleId: 'chat', matched: true }, { ruleId: 'secrets', matched: false, failed: 'payload.attachment regex ".*[.]pem"' }] });
  });

  it('exists: false is the one way to match a missing field on purpose', () => {
    givenPolicy(`
rules:
  - { id: no-attachments, when: { payload: { attachments: { exists: false } } }, decision: allow }
`)
      .whenEvaluating({ payload: { text: 'hi' } })
      .then({ decision: 'allow', ruleId: 'no-attachments', explanation: 'allowed by rule no-attachments: attachments is absent (rule_allow)' });
  });
});

describe('fields', () => {
  it('dotted paths reach nested objects and array elements, never inherited properties', () => {
    const policy = givenPolicy(`
rules:
  - { id: first-to-internal, when: { payload: { "message.to.0": { glob: "*@acme.example" } } }, decision: allow }
  - { id: has-constructor, when: { payload: { "message.toString": { exists: true } } }, decision: allow }
`);
    policy.whenEvaluating({ payload: { message: { to: ['ana@acme.example', 'bob@gmail.com'] } } }).then({ decision: 'allow', ruleId: 'first-to-internal' });
    policy.whenEvaluating({ payload: { message: { to: ['bob@gmail.com'] } } }).then({ decision: 'deny', ruleId: 'default' });
    policy.whenEvaluating({ payload: { message: { to: [] } } }).then({ decision: 'deny', ruleId: 'default' });
    policy.whenEvaluating({ payload: { message: 'text' } }).then({ decision: 'deny', ruleId: 'default' });
  });

  it('actor fields: agentId is always there, humanOwner and runtime may be missing', () => {
    const policy = givenPolicy(`
rules:
  - id: owned-deployers
    when: { actor: { agentId: { glob: "agent:deploy*" }, humanOwner: { glob: "user:*@acme.example" } } }
    decision: allow
`);
    policy.whenEvaluating({ actor: { agentId: 'agent:deployer', humanOwner: 'user:ana@acme.example' } }).then({ decision: 'allow' });
    policy.whenEvaluating({ actor: { agentId: 'agent:deployer' } }).then({ decision: 'deny', trace: [{ ruleId: 'owned-deployers', matched: false, failed: 'actor.humanOwner glob user:*@acme.example' }] });
    policy.whenEvaluating({ actor: { agentId: 'agent:intern', humanOwner: 'user:ana@acme.example' } }).then({ decision: 'deny', trace: [{ ruleId: 'owned-deployers', matched: false, failed: 'actor.agentId glob agent:deploy*' }] });
  });
});

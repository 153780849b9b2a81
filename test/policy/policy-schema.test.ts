import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load-config.js';
import { compilePolicy } from '../../src/policy/compile-policy.js';
import { policySchema } from '../../src/policy/policy-schema.js';
import { policyConfig } from './policy-spec.js';

/** The message svc prints for an svc.yml whose policy section is `policy` (indented under `policy:`). */
function configError(policy: string): string {
  const text = `tenant: org:acme\npolicy:\n${policy.replace(/^\n/, '').replace(/^/gm, '  ')}`;
  try {
    parseConfig(text, 'svc.yml');
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the config to be refused');
}

function hashOf(yaml: string): string {
  return compilePolicy(policyConfig(yaml)).policyHash;
}

describe('the policy section of svc.yml', () => {
  it('defaults to an empty policy when absent', () => {
    const config = parseConfig('tenant: org:acme\n', 'svc.yml');
    expect(config.policy).toEqual({ rules: [], budgets: [] });
  });

  it('normalizes what can be written two ways: bare scalars, single globs, default reasons, default agent', () => {
    const policy = policyConfig(`
rules:
  - id: r
    when: { tool: chat.message.send, payload: { channel: eng, n: 3 } }
    decision: deny
budgets:
  - { id: b, tool: "chat.*", max: 5, window: 1h }
`);
    expect(policy).toEqual({
      rules: [{ id: 'r', when: { tool: ['chat.message.send'], payload: { channel: { equals: 'eng' }, n: { equals: 3 } } }, decision: 'deny', reasons: ['rule_deny'] }],
      budgets: [{ id: 'b', tool: 'chat.*', agent: '*', max: 5, window: '1h' }],
    });
    // The normalized form parses to itself, so compilePolicy can check a parsed policy again.
    expect(policySchema.parse(policy)).toEqual(policy);
  });
});

describe('refused policies, with messages that say where and what to write instead', () => {
  it('an unknown key in a rule', () => {
    expect(configError(`
rules:
  - id: a
    whne: { tool: chat.message.send }
    decision: allow
`).split('\n')).toEqual([
      'svc.yml:4:7: policy.rules.0.when: every rule needs a "when" with its conditions; write when: {} for a rule that matches every action',
      'svc.yml:5:7: policy.rules.0.whne: unknown key whne; see docs/configuration.md for the keys svc.yml accepts',
    ]);
  });

  it('an unknown condition in when', () => {
    expect(configError(`
rules:
  - { id: a, when: { agent: "agent:*" }, decision: allow }
`)).toMatch(/^svc\.yml:4:24: policy\.rules\.0\.when\.agent: unknown key agent/);
  });

  it('two operators in one predicate object', () => {
    expect(configError(`
rules:
  - id: a
    when: { payload: { amount: { gte: 10, lt: 100 } } }
    decision: allow
`)).toBe('svc.yml:5:34: policy.rules.0.when.payload.amount: a predicate object takes exactly one operator, found lt and gte; to require all of them write a list: [{ lt: ... }, { gte: ... }]');
  });

  it('an unknown operator, and an empty predicate', () => {
    expect(configError(`
rules:
  - { id: a, when: { payload: { to: { contains: "@" } } }, decision: allow }
  - { id: b, when: { payload: { to: {} } }, decision: allow }
`)).toBe(
      'svc.yml:4:39: policy.rules.0.when.payload.to: unknown operator "contains"; a predicate is one of: equals, in, not_in, glob, not_glob, regex, lt, lte, gt, gte, exists\n' +
        'svc.yml:5:39: policy.rules.1.when.payload.to: a predicate needs one operator: equals, in, not_in, glob, not_glob, regex, lt, lte, gt, gte, exists',
    );
  });

  it('operands of the wrong kind', () => {
    expect(configError(`
rules:
  - { id: a, when: { payload: { n: { lt: "10" }, m: { in: [] }, o: { exists: yes }, p: { equals: [1] } } }, decision: allow }
`).split('\n')).toEqual([
      'svc.yml:4:44: policy.rules.0.when.payload.n.lt: expected a number',
      'svc.yml:4:61: policy.rules.0.when.payload.m.in: the list is empty',
      'svc.yml:4:80: policy.rules.0.when.payload.o.exists: exists takes true or false',
      'svc.yml:4:100: policy.rules.0.when.payload.p.equals: expected a string, number, boolean or null',
    ]);
  });

  it('an invalid regex and a catastrophic one', () => {
    expect(configError(`
rules:
  - id: a
    when:
      payload:
        statement: { regex: "select (" }
        text: { regex: "(\\\\w+\\\\s?)*!" }
    decision: deny
`).split('\n')).toEqual([
      'svc.yml:7:31: policy.rules.0.when.payload.statement.regex: not a valid regular expression: Unterminated group',
      'svc.yml:8:26: policy.rules.0.when.payload.text.regex: nested quantifier near "(\\w+\\s?)*": a repeated group that itself repeats can take exponential time; rewrite it without the inner or the outer repetition',
    ]);
  });

  it('duplicate ids, across rules and budgets, and the reserved id default', () => {
    expect(configError(`
rules:
  - { id: chat, when: {}, decision: allow }
  - { id: chat, when: {}, decision: deny }
  - { id: default, when: {}, decision: deny }
budgets:
  - { id: chat, tool: "chat.*", max: 10, window: 1h }
`).split('\n')).toEqual([
      'svc.yml:5:13: policy.rules.1.id: duplicate id "chat" (first used at rules.0.id); every rule and budget needs its own id',
      'svc.yml:6:13: policy.rules.2.id: the id "default" is reserved for decisions no rule made; choose another',
      'svc.yml:8:13: policy.budgets.0.id: duplicate id "chat" (first used at rules.0.id); every rule and budget needs its own id',
    ]);
  });

  it('malformed ids, decisions, reasons and payload paths', () => {
    expect(configError(`
rules:
  - { id: Chat Rule, when: {}, decision: permit, reasons: [Bad-Code] }
  - { id: b, when: { payload: { "message..to": x, "__proto__.x": y } }, decision: allow }
`).split('\n')).toEqual([
      'svc.yml:4:13: policy.rules.0.id: a rule id is lowercase letters, digits, ".", "_" or "-", starting with a letter or digit (at most 64)',
      'svc.yml:4:44: policy.rules.0.decision: decision is allow, deny or step_up',
      'svc.yml:4:62: policy.rules.0.reasons.0: a reason code is snake_case: a lowercase letter, then lowercase letters, digits or "_" (at most 64)',
      'svc.yml:5:50: policy.rules.1.when.payload.message..to: payload path "message..to" has an empty segment; write dotted keys such as message.channel',
      'svc.yml:5:68: policy.rules.1.when.payload.__proto__.x: payload path "__proto__.x" names "__proto__", which never holds payload data',
    ]);
  });

  it('budgets with a bad window or max', () => {
    expect(configError(`
budgets:
  - { id: a, tool: "chat.*", max: 0, window: 1h }
  - { id: b, tool: "chat.*", max: 10, window: 2w }
  - { id: c, tool: "chat.*", max: 10, window: 32d }
  - { id: d, tool: "chat.*", max: 1.5, window: 1h30m }
`).split('\n')).toEqual([
      'svc.yml:4:37: policy.budgets.0.max: max must be at least 1; to forbid a tool, write a deny rule',
      'svc.yml:5:49: policy.budgets.1.window: window is a duration such as 30s, 15m, 1h or 7d',
      'svc.yml:6:49: policy.budgets.2.window: window is at most 31d',
      'svc.yml:7:37: policy.budgets.3.max: max is a whole number of allowed actions',
      'svc.yml:7:50: policy.budgets.3.window: window is a duration such as 30s, 15m, 1h or 7d',
    ]);
  });
});

describe('policyHash', () => {
  const BASE = `
rules:
  - id: chat
    when: { tool: chat.message.send, payload: { channel: { in: [eng, ops] } } }
    decision: allow
budgets:
  - { id: per-agent, tool: chat.message.send, max: 100, window: 1h }
`;

  it('does not change when keys are reordered, or when a value is written another way with the same meaning', () => {
    const reordered = `
budgets:
  - { window: 1h, max: 100, tool: chat.message.send, id: per-agent, agent: "*" }
rules:
  - decision: allow
    reasons: [rule_allow]
    when:
      payload:
        channel:
          in: [eng, ops]
      tool: [chat.message.send]
    id: chat
`;
    expect(hashOf(reordered)).toBe(hashOf(BASE));
    expect(hashOf('rules: [{ id: a, when: { payload: { c: eng } }, decision: allow }]')).toBe(hashOf('rules: [{ id: a, when: { payload: { c: { equals: eng } } }, decision: allow }]'));
  });

  it('changes when a rule, its order, a budget or a description changes', () => {
    const base = hashOf(BASE);
    const variants = [
      BASE.replace('[eng, ops]', '[eng, ops, deploys]'),
      BASE.replace('[eng, ops]', '[ops, eng]'),
      BASE.replace('decision: allow', 'decision: step_up'),
      BASE.replace('max: 100', 'max: 101'),
      BASE.replace('window: 1h', 'window: 60m'),
      BASE.replace('- id: chat', '- id: chat\n    description: team channels'),
      `${BASE.split('budgets:')[0]}  - { id: other, when: {}, decision: deny }\nbudgets:${BASE.split('budgets:')[1]}`,
    ];
    const hashes = variants.map(hashOf);
    expect(new Set([base, ...hashes]).size).toBe(variants.length + 1);
  });

  it('of the empty policy is the hash of its normalized form', () => {
    expect(hashOf('')).toBe(compilePolicy(policySchema.parse({})).policyHash);
  });
});

describe('conditions never vanish', () => {
  it('a payload condition on the key __proto__ is refused, not dropped (dropping it would widen the rule)', () => {
    expect(configError(`
rules:
  - { id: a, when: { payload: { __proto__: { equals: 1 } } }, decision: allow }
`)).toMatch(/policy\.rules\.0\.when\.payload\.__proto__: payload path "__proto__" never holds payload data/);
  });
});

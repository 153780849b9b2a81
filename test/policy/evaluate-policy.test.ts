import { describe, expect, it } from 'vitest';
import { SvcError } from '../../src/errors.js';
import { compilePolicy } from '../../src/policy/compile-policy.js';
import { action, contextWith, givenPolicy, policyConfig } from './policy-spec.js';

const LAYERED = `
rules:
  - id: chat-any
    when: { tool: "chat.*" }
    decision: allow
  - id: chat-eng
    when: { tool: chat.message.send, payload: { channel: eng } }
    decision: allow
    reasons: [team_channel]
  - id: chat-external-review
    when: { tool: chat.message.send, payload: { audience: external } }
    decision: step_up
    reasons: [external_recipient]
  - id: chat-secrets
    when: { tool: chat.message.send, payload: { text: { regex: "(?i).*password.*" } } }
    decision: deny
    reasons: [secret_in_message]
  - id: chat-review-again
    when: { tool: chat.message.send, payload: { audience: external } }
    decision: step_up
    reasons: [approval_required, external_recipient]
  - id: chat-secrets-again
    when: { tool: chat.message.send, payload: { text: { regex: "(?i).*password.*" } } }
    decision: deny
`;

describe('precedence: deny beats step_up beats allow', () => {
  const policy = givenPolicy(LAYERED);

  it('given only allow rules match, the first of them decides and the reasons are the union in file order', () => {
    policy.whenEvaluating({ payload: { channel: 'eng', audience: 'team', text: 'deploy done' } }).then({
      decision: 'allow',
      ruleId: 'chat-any',
      reasons: ['rule_allow', 'team_channel'],
      explanation: 'allowed by rule chat-any: tool chat.message.send matches chat.* (rule_allow, team_channel)',
    });
  });

  it('given a step_up matches as well, step_up wins over the earlier allow', () => {
    policy.whenEvaluating({ payload: { channel: 'eng', audience: 'external', text: 'hello' } }).then({
      decision: 'step_up',
      ruleId: 'chat-external-review',
      reasons: ['external_recipient', 'approval_required'],
      explanation: 'approval required by rule chat-external-review: audience is "external" (external_recipient, approval_required); it runs once a reviewer approves this exact payload',
    });
  });

  it('given a deny matches as well, deny wins over step_up and allow; only deny rules contribute reasons', () => {
    const decision = policy.whenEvaluating({ payload: { channel: 'eng', audience: 'external', text: 'the Password is hunter2' } }).then({
      decision: 'deny',
      ruleId: 'chat-secrets',
      reasons: ['secret_in_message', 'rule_deny'],
    });
    expect(decision.explanation).toBe('denied by rule chat-secrets: text "the Password is hunter2" matches the regex "(?i).*password.*" (secret_in_message, rule_deny)');
    expect(decision.trace.map((entry) => [entry.ruleId, entry.matched])).toEqual([
      ['chat-any', true],
      ['chat-eng', true],
      ['chat-external-review', true],
      ['chat-secrets', true],
      ['chat-review-again', true],
      ['chat-secrets-again', true],
    ]);
  });

  it('the order of the rules changes which rule is named first, never the decision', () => {
    const reversed = `rules:\n${LAYERED.split('\n  - ').slice(1).reverse().map((rule) => `  - ${rule.trimEnd()}`).join('\n')}\n`;
    const action = { payload: { channel: 'eng', audience: 'external', text: 'password' } };
    expect(givenPolicy(reversed).whenEvaluating(action).decision).toMatchObject({ decision: 'deny', ruleId: 'chat-secrets-again', reasons: ['rule_deny', 'secret_in_message'] });
  });
});

describe('when no rule matches', () => {
  const policy = givenPolicy(`
rules:
  - { id: chat, when: { tool: chat.message.send }, decision: allow }
`);

  it('enforcement (proxy, SDK, MCP) denies by default', () => {
    policy.whenEvaluating({ tool: 'sql.query.run', resource: 'db:main' }).then({
      decision: 'deny',
      reasons: ['default_deny'],
      ruleId: 'default',
      explanation: 'denied: no rule allows tool sql.query.run on resource "db:main", and svc denies what no rule allows (default_deny); a policy owner can add a rule for it',
      trace: [{ ruleId: 'chat', matched: false, failed: 'tool matches chat.message.send' }],
    });
  });

  it('the same action is denied when no mode is given: enforcement is the default', () => {
    policy.whenEvaluating({ tool: 'sql.query.run', resource: 'db:main' }, 'enforce').then({ decision: 'deny', reasons: ['default_deny'] });
    expect(policy.policy.evaluate(action({ tool: 'sql.query.run' }), contextWith()).decision).toBe('deny');
  });

  it('a coding-agent hook has no opinion, and leaves the decision to the runtime', () => {
    policy.whenEvaluating({ tool: 'sql.query.run', resource: 'db:main' }, 'hook').then({
      decision: 'no_opinion',
      reasons: ['no_matching_rule'],
      ruleId: 'default',
      explanation: `no opinion: no rule matches tool sql.query.run on resource "db:main" (no_matching_rule); the runtime's own permission settings decide`,
    });
  });

  it('a mode that is neither enforce nor hook (a JavaScript caller\'s typo) enforces', () => {
    const decision = policy.policy.evaluate(action({ tool: 'sql.query.run' }), contextWith(), 'hooks' as never);
    expect(decision.decision).toBe('deny');
  });

  it('an empty policy denies everything it enforces', () => {
    const empty = compilePolicy(policyConfig(''));
    expect(empty.evaluate(action(), contextWith())).toMatchObject({ decision: 'deny', reasons: ['default_deny'], ruleId: 'default', trace: [] });
    expect(empty.budgets).toEqual([]);
  });

  it('a rule with when: {} matches every action', () => {
    givenPolicy('rules: [{ id: everything, when: {}, decision: step_up }]').whenEvaluating({ tool: 'fs.file.write' }).then({
      decision: 'step_up',
      reasons: ['rule_step_up'],
      explanation: 'approval required by rule everything: it applies to every action (rule_step_up); it runs once a reviewer approves this exact payload',
    });
  });
});

describe('tool and resource conditions', () => {
  it('take a glob or a list of globs', () => {
    const policy = givenPolicy(`
rules:
  - id: messaging
    when: { tool: [chat.message.send, "email.*.send"], resource: ["channel:*", "mailbox:team-*"] }
    decision: allow
`);
    policy.whenEvaluating({ tool: 'email.message.send', resource: 'mailbox:team-eng' }).then({ decision: 'allow', explanation: 'allowed by rule messaging: tool email.message.send matches one of [chat.message.send, email.*.send] and resource mailbox:team-eng matches one of [channel:*, mailbox:team-*] (rule_allow)' });
    policy.whenEvaluating({ tool: 'email.message.send', resource: 'mailbox:ceo' }).then({ decision: 'deny', trace: [{ ruleId: 'messaging', matched: false, failed: 'resource matches one of [channel:*, mailbox:team-*]' }] });
  });
});

describe('decisions carry what the proxy records', () => {
  it('the policyHash of the compiled policy, on every decision', () => {
    const policy = givenPolicy('rules: [{ id: a, when: {}, decision: allow }]');
    const decision = policy.whenEvaluating({}).decision;
    expect(decision.policyHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(decision.policyHash).toBe(policy.policy.policyHash);
  });

  it('traces are shared, frozen objects: evaluating allocates little, and no caller can edit the next decision', () => {
    const policy = givenPolicy('rules: [{ id: a, when: { tool: "chat.*" }, decision: allow }]');
    const first = policy.whenEvaluating({}).decision;
    const second = policy.whenEvaluating({}).decision;
    expect(first.trace[0]).toBe(second.trace[0]);
    expect(Object.isFrozen(first.trace[0])).toBe(true);
    first.reasons.push('edited');
    expect(policy.whenEvaluating({}).decision.reasons).toEqual(['rule_allow']);
  });

  it('decides the same way every time (deterministic)', () => {
    const policy = givenPolicy(LAYERED);
    const shape = { payload: { channel: 'eng', audience: 'external', text: 'x' } };
    expect(policy.whenEvaluating(shape).decision).toEqual(policy.whenEvaluating(shape).decision);
  });
});

describe('compilePolicy refuses what the schema refuses, for policies built in code', () => {
  it('duplicate ids, with the code policy_invalid', () => {
    const config = policyConfig('rules: [{ id: a, when: {}, decision: allow }]');
    const duplicated = { ...config, rules: [...config.rules, ...config.rules] };
    expect(() => compilePolicy(duplicated)).toThrow(SvcError);
    expect(() => compilePolicy(duplicated)).toThrow('policy.rules.1.id: duplicate id "a" (first used at rules.0.id); every rule and budget needs its own id');
    try {
      compilePolicy(duplicated);
    } catch (error) {
      expect((error as SvcError).code).toBe('policy_invalid');
    }
  });

  it('an unsafe regex slipped in by hand', () => {
    const config = policyConfig('rules: [{ id: a, when: { payload: { x: { regex: "a" } } }, decision: allow }]');
    const rule = config.rules[0] as (typeof config.rules)[number];
    const unsafe = { ...config, rules: [{ ...rule, when: { payload: { x: { regex: '(a+)+$' } } } }] };
    expect(() => compilePolicy(unsafe)).toThrow(/policy\.rules\.0\.when\.payload\.x\.regex: nested quantifier/);
  });
});

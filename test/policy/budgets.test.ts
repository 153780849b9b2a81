import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashCanonical } from '../../src/events/canonical.js';
import type { LedgerEvent, LedgerRecord } from '../../src/events/catalogue.js';
import { runLedgerPass } from '../../src/evidence/ledger-pass.js';
import { compilePolicy, type PolicyDecision } from '../../src/policy/compile-policy.js';
import { BudgetCounter } from '../../src/projections/budgets.js';
import { openLedger, tempDir } from '../support/ledger.js';
import { action, givenPolicy, policyConfig, TENANT } from './policy-spec.js';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-21T10:00:00.000Z');

const CHAT_BUDGET = `
rules:
  - { id: chat, when: { tool: "chat.*" }, decision: allow }
  - { id: chat-external, when: { tool: chat.message.send, payload: { audience: external } }, decision: step_up }
  - { id: chat-secrets, when: { tool: chat.message.send, payload: { text: { regex: ".*password.*" } } }, decision: deny }
  - { id: sql, when: { tool: sql.query.run }, decision: allow }
budgets:
  - { id: chat-per-agent, tool: chat.message.send, max: 3, window: 1h }
  - { id: deployer-chat, tool: "chat.*", agent: "agent:deploy*", max: 2, window: 10m }
`;

describe('budgets in the engine', () => {
  it('given max 3 and 2 allowed in the window, the next action is still allowed, and the trace shows the count', () => {
    givenPolicy(CHAT_BUDGET, { 'chat-per-agent': 2 })
      .whenEvaluating({ actor: { agentId: 'agent:writer' } })
      .then({
        decision: 'allow',
        ruleId: 'chat',
        trace: [
          { ruleId: 'chat', matched: true },
          { ruleId: 'chat-external', matched: false },
          { ruleId: 'chat-secrets', matched: false },
          { ruleId: 'sql', matched: false },
          { ruleId: 'chat-per-agent', matched: false, failed: '2 allowed in the last 1h, below the maximum of 3', budget: { count: 2, max: 3, window: '1h' } },
        ],
      });
  });

  it('given exactly max allowed in the window, the next allow becomes a deny named after the budget', () => {
    givenPolicy(CHAT_BUDGET, { 'chat-per-agent': 3 })
      .whenEvaluating({ actor: { agentId: 'agent:writer' } })
      .then({
        decision: 'deny',
        reasons: ['budget_exceeded'],
        ruleId: 'chat-per-agent',
        explanation: 'denied by budget chat-per-agent: agent:writer already has 3 allowed chat.message.send actions in the last 1h, and the budget allows 3 (budget_exceeded); retry once older actions leave the window',
      });
  });

  it('the first exhausted budget in file order decides; every budget that applies is traced', () => {
    const decision = givenPolicy(CHAT_BUDGET, { 'chat-per-agent': 5, 'deployer-chat': 2 })
      .whenEvaluating({ actor: { agentId: 'agent:deployer' } })
      .then({ decision: 'deny', ruleId: 'chat-per-agent' });
    expect(decision.trace.slice(-2)).toEqual([
      { ruleId: 'chat-per-agent', matched: true, budget: { count: 5, max: 3, window: '1h' } },
      { ruleId: 'deployer-chat', matched: true, budget: { count: 2, max: 2, window: '10m' } },
    ]);
    givenPolicy(CHAT_BUDGET, { 'deployer-chat': 2 }).whenEvaluating({ actor: { agentId: 'agent:deployer' }, tool: 'chat.reaction.add' }).then({ decision: 'deny', ruleId: 'deployer-chat' });
  });

  it('budgets apply to their tools and agents only', () => {
    givenPolicy(CHAT_BUDGET, { 'deployer-chat': 9 }).whenEvaluating({ actor: { agentId: 'agent:writer' } }).then({ decision: 'allow' });
    givenPolicy(CHAT_BUDGET, { 'chat-per-agent': 9 }).whenEvaluating({ tool: 'sql.query.run', resource: 'db:main' }).then({ decision: 'allow', ruleId: 'sql' });
  });

  it('only an allow meets the budgets: a deny keeps its reasons and a step_up still asks for approval', () => {
    givenPolicy(CHAT_BUDGET, { 'chat-per-agent': 9 }).whenEvaluating({ payload: { text: 'my password' } }).then({ decision: 'deny', ruleId: 'chat-secrets', reasons: ['rule_deny'] });
    givenPolicy(CHAT_BUDGET, { 'chat-per-agent': 9 }).whenEvaluating({ payload: { audience: 'external' } }).then({ decision: 'step_up', ruleId: 'chat-external' });
  });

  it('a counter that answers something other than a number exhausts the budget (fail closed)', () => {
    const policy = compilePolicy(policyConfig(CHAT_BUDGET));
    const decision = policy.evaluate(action(), { now: T0, countAllowed: () => Number.NaN });
    expect(decision).toMatchObject({ decision: 'deny', reasons: ['budget_exceeded'] });
  });

  it('the compiled policy exposes its budgets with windows in milliseconds', () => {
    expect(compilePolicy(policyConfig(CHAT_BUDGET)).budgets).toEqual([
      { id: 'chat-per-agent', tool: 'chat.message.send', agent: '*', max: 3, windowMs: HOUR },
      { id: 'deployer-chat', tool: 'chat.*', agent: 'agent:deploy*', max: 2, windowMs: 600_000 },
    ]);
  });
});

/** Ledger records as the proxy appends them: received, then decided, with their timestamps. */
class RecordMaker {
  private seq = 0;
  private actions = 0;

  action(agentId: string, tool: string, decision: 'allow' | 'deny' | 'step_up' | 'no_opinion', ts: number): LedgerRecord[] {
    const actionId = `act_${(this.actions += 1)}`;
    return [this.received(actionId, agentId, tool, ts), this.decided(actionId, decision, ts)];
  }

  /** The same two records as events for a real writer, which seals them with its own seq, ts and chain. */
  events(agentId: string, tool: string, decision: 'allow' | 'deny' | 'step_up' | 'no_opinion'): LedgerEvent[] {
    return this.action(agentId, tool, decision, 0).map(({ type, stream, data }) => ({ type, stream, data }) as LedgerEvent);
  }

  received(actionId: string, agentId: string, tool: string, ts: number): LedgerRecord {
    const normalized = { schemaVersion: 'svc.action.v0' as const, actor: { agentId, tenant: TENANT }, intent: { taskId: 't' }, capability: { tool, resource: 'channel:eng', payload: {} } };
    return this.seal({ type: 'action.received', stream: `action:${actionId}`, data: { actionId, source: 'proxy', action: normalized, actionHash: hashCanonical(normalized), payloadHash: hashCanonical({}) } }, ts);
  }

  decided(actionId: string, decision: 'allow' | 'deny' | 'step_up' | 'no_opinion', ts: number): LedgerRecord {
    return this.seal({ type: 'policy.decided', stream: `action:${actionId}`, data: { actionId, decision, reasons: [], ruleId: 'r', policyHash: hashCanonical({}) } }, ts);
  }

  private seal(event: LedgerEvent, ts: number): LedgerRecord {
    return { v: 0, seq: this.seq++, ts: new Date(ts).toISOString(), stream: event.stream, prevHash: `sha256:${'0'.repeat(64)}`, type: event.type, data: event.data } as LedgerRecord;
  }
}

describe('BudgetCounter', () => {
  const budget = { windowMs: HOUR };

  it('counts allowed decisions per agent and exact tool, at the time of the decision', () => {
    const make = new RecordMaker();
    const counter = new BudgetCounter(HOUR);
    for (const record of [
      ...make.action('agent:a', 'chat.message.send', 'allow', T0),
      ...make.action('agent:a', 'chat.message.send', 'deny', T0 + 1),
      ...make.action('agent:a', 'chat.message.send', 'step_up', T0 + 2),
      ...make.action('agent:a', 'chat.message.send', 'no_opinion', T0 + 3),
      ...make.action('agent:a', 'chat.reaction.add', 'allow', T0 + 4),
      ...make.action('agent:b', 'chat.message.send', 'allow', T0 + 5),
      ...make.action('agent:a', 'chat.message.send', 'allow', T0 + 6),
    ]) {
      counter.apply(record);
    }
    expect(counter.countAllowed(budget, 'agent:a', 'chat.message.send', T0 + 10)).toBe(2);
    expect(counter.countAllowed(budget, 'agent:a', 'chat.reaction.add', T0 + 10)).toBe(1);
    expect(counter.countAllowed(budget, 'agent:b', 'chat.message.send', T0 + 10)).toBe(1);
    expect(counter.countAllowed(budget, 'agent:c', 'chat.message.send', T0 + 10)).toBe(0);
  });

  it('a received action without its decision does not count, and is forgotten once decided', () => {
    const make = new RecordMaker();
    const counter = new BudgetCounter(HOUR);
    counter.apply(make.received('act_x', 'agent:a', 'chat.message.send', T0));
    expect(counter.countAllowed(budget, 'agent:a', 'chat.message.send', T0)).toBe(0);
    expect(counter.retained.undecidedActions).toBe(1);
    counter.apply(make.decided('act_x', 'allow', T0 + 1));
    expect(counter.retained).toEqual({ undecidedActions: 0, keys: 1, timestamps: 1 });
    // A decision for an action it never saw received (a ledger cut short at the front) counts nothing.
    counter.apply(make.decided('act_unknown', 'allow', T0 + 2));
    expect(counter.countAllowed(budget, 'agent:a', 'chat.message.send', T0 + 2)).toBe(1);
  });

  it('the window slides: [now - window, now], both ends included', () => {
    const make = new RecordMaker();
    const counter = new BudgetCounter(HOUR);
    for (const record of [...make.action('agent:a', 'chat.message.send', 'allow', T0), ...make.action('agent:a', 'chat.message.send', 'allow', T0 + 10 * 60_000)]) counter.apply(record);
    const count = (now: number) => counter.countAllowed(budget, 'agent:a', 'chat.message.send', now);
    expect(count(T0 + 30 * 60_000)).toBe(2);
    expect(count(T0 + HOUR)).toBe(2);
    expect(count(T0 + HOUR + 1)).toBe(1);
    expect(count(T0 + HOUR + 10 * 60_000)).toBe(1);
    expect(count(T0 + HOUR + 10 * 60_000 + 1)).toBe(0);
    expect(counter.countAllowed({ windowMs: 60_000 }, 'agent:a', 'chat.message.send', T0 + 10 * 60_000 + 30_000)).toBe(1);
  });

  it('the proxy loop: with max 3, exactly three are allowed, the fourth is denied, and one is allowed again when the first leaves the window', () => {
    const policy = compilePolicy(policyConfig(CHAT_BUDGET));
    const counter = new BudgetCounter(policy.budgets);
    const make = new RecordMaker();
    const attempt = (now: number): PolicyDecision => {
      const decision = policy.evaluate(action({ actor: { agentId: 'agent:writer' } }), counter.contextAt(now));
      for (const record of make.action('agent:writer', 'chat.message.send', decision.decision, now)) counter.apply(record);
      return decision;
    };
    const minutes = (n: number) => T0 + n * 60_000;
    expect([0, 1, 2, 3, 4].map((n) => attempt(minutes(n)).decision)).toEqual(['allow', 'allow', 'allow', 'deny', 'deny']);
    expect(attempt(minutes(60)).decision).toBe('deny');
    expect(attempt(minutes(60) + 1).decision).toBe('allow');
    expect(attempt(minutes(60) + 2)).toMatchObject({ decision: 'deny', ruleId: 'chat-per-agent' });
    expect(attempt(minutes(61) + 1).decision).toBe('allow');
  });

  it('keeps memory bounded: timestamps older than the longest window are dropped as time moves on', () => {
    const make = new RecordMaker();
    const counter = new BudgetCounter(HOUR);
    for (let minute = 0; minute < 24 * 60; minute += 1) {
      for (const record of make.action(`agent:a${minute % 50}`, 'chat.message.send', 'allow', T0 + minute * 60_000)) counter.apply(record);
    }
    const { undecidedActions, timestamps, keys } = counter.retained;
    expect(undecidedActions).toBe(0);
    // One hour of one action a minute, plus at most one sweep interval (an hour here) not yet swept.
    expect(timestamps).toBeLessThanOrEqual(2 * 60 + 2);
    expect(keys).toBeLessThanOrEqual(50);
    expect(counter.countAllowed(budget, 'agent:a0', 'chat.message.send', T0 + 24 * HOUR)).toBe(1);
  });

  it('refuses to count a window longer than the one it keeps, until widened', () => {
    const counter = new BudgetCounter(HOUR);
    expect(() => counter.countAllowed({ windowMs: 2 * HOUR }, 'agent:a', 'chat.message.send', T0)).toThrow(/longer than the 3600000 ms this counter keeps/);
    counter.widenWindow(2 * HOUR);
    expect(counter.maxWindowMs).toBe(2 * HOUR);
    expect(counter.countAllowed({ windowMs: 2 * HOUR }, 'agent:a', 'chat.message.send', T0)).toBe(0);
  });

  it('keeps order when the clock steps back', () => {
    const make = new RecordMaker();
    const counter = new BudgetCounter(HOUR);
    for (const ts of [T0, T0 + 5000, T0 + 1000, T0 + 3000]) for (const record of make.action('agent:a', 'chat.message.send', 'allow', ts)) counter.apply(record);
    expect(counter.countAllowed({ windowMs: 2500 }, 'agent:a', 'chat.message.send', T0 + 3500)).toBe(2);
    expect(counter.countAllowed({ windowMs: 10_000 }, 'agent:a', 'chat.message.send', T0 + 5000)).toBe(4);
  });
});

describe('BudgetCounter replay (property)', () => {
  const AGENTS = ['agent:a', 'agent:b', 'agent:c'];
  const TOOLS = ['chat.message.send', 'sql.query.run'];
  const DECISIONS = ['allow', 'allow', 'deny', 'step_up'] as const;
  const WINDOWS = [1000, 60_000, 600_000];
  const MAX_WINDOW = 600_000;

  const step = fc.record({
    agent: fc.integer({ min: 0, max: AGENTS.length - 1 }),
    tool: fc.integer({ min: 0, max: TOOLS.length - 1 }),
    decision: fc.integer({ min: 0, max: DECISIONS.length - 1 }),
    // Mostly forward, sometimes far forward, now and then a step back of the clock.
    advance: fc.oneof(fc.integer({ min: 0, max: 2000 }), fc.integer({ min: 0, max: 900_000 }), fc.integer({ min: -500, max: 0 })),
  });

  function recordsOf(steps: readonly { agent: number; tool: number; decision: number; advance: number }[]): LedgerRecord[] {
    const make = new RecordMaker();
    let ts = T0;
    return steps.flatMap((s) => {
      ts += s.advance;
      return make.action(AGENTS[s.agent] as string, TOOLS[s.tool] as string, DECISIONS[s.decision] as (typeof DECISIONS)[number], ts);
    });
  }

  /** The definition: every allowed decision ever, counted by brute force. */
  function referenceCount(records: readonly LedgerRecord[], windowMs: number, agentId: string, tool: string, now: number): number {
    const received = new Map<string, { agentId: string; tool: string }>();
    let count = 0;
    for (const record of records) {
      if (record.type === 'action.received') received.set(record.data.actionId, { agentId: record.data.action.actor.agentId, tool: record.data.action.capability.tool });
      if (record.type === 'policy.decided' && record.data.decision === 'allow') {
        const owner = received.get(record.data.actionId);
        const ts = Date.parse(record.ts);
        if (owner?.agentId === agentId && owner.tool === tool && ts >= now - windowMs && ts <= now) count += 1;
      }
    }
    return count;
  }

  it('fed in any batch split, it answers every query at or after its newest record exactly as the full history does', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 120 }), fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 20 }), fc.nat(30_000), (steps, cuts, lateBy) => {
        const records = recordsOf(steps);
        const counter = new BudgetCounter(MAX_WINDOW);
        let fed = 0;
        let newest = Number.NEGATIVE_INFINITY;
        for (const size of [...cuts, records.length]) {
          const batch = records.slice(fed, fed + size);
          for (const record of batch) {
            counter.apply(record);
            newest = Math.max(newest, Date.parse(record.ts));
          }
          fed += batch.length;
          const now = newest + lateBy;
          for (const agentId of AGENTS) {
            for (const tool of TOOLS) {
              for (const windowMs of WINDOWS) {
                expect(counter.countAllowed({ windowMs }, agentId, tool, now)).toBe(referenceCount(records.slice(0, fed), windowMs, agentId, tool, now));
              }
            }
          }
          if (fed >= records.length) break;
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a runtime counter fed as records become durable and a counter replayed from the file agree', async () => {
    const dir = await tempDir();
    const path = join(dir, 'ledger.jsonl');
    let clock = T0;
    const runtime = new BudgetCounter(HOUR);
    const writer = await openLedger(path, { now: () => clock, onDurable: (records) => records.forEach(({ record }) => runtime.apply(record)), checkpointEveryRecords: 7 });
    const policy = compilePolicy(policyConfig(CHAT_BUDGET));
    const make = new RecordMaker();
    const decisions: string[] = [];
    for (let index = 0; index < 40; index += 1) {
      clock += 90_000;
      const agentId = AGENTS[index % 2] as string;
      const decision = policy.evaluate(action({ actor: { agentId } }), runtime.contextAt(clock));
      decisions.push(decision.decision);
      await writer.appendBatch(make.events(agentId, 'chat.message.send', decision.decision));
    }
    await writer.close();
    expect(decisions.filter((d) => d === 'deny').length).toBeGreaterThan(0);

    const replayed = new BudgetCounter(HOUR);
    await runLedgerPass(path, { onRecords: (records) => records.forEach(({ record }) => replayed.apply(record)) });
    for (const agentId of AGENTS) {
      for (const now of [clock, clock + 1, clock + 30 * 60_000]) {
        expect(replayed.countAllowed({ windowMs: HOUR }, agentId, 'chat.message.send', now)).toBe(runtime.countAllowed({ windowMs: HOUR }, agentId, 'chat.message.send', now));
      }
    }
    expect(replayed.retained).toEqual(runtime.retained);
  });
});

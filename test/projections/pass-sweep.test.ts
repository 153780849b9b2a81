import { describe, expect, it } from 'vitest';
import type { LedgerRecord } from '../../src/events/catalogue.js';
import { RuntimeState } from '../../src/projections/runtime-state.js';
import { evolve, initialState, restoreState, snapshotState, type LedgerState } from '../../src/projections/state.js';
import { seededRandom } from '../children/seeded-random.js';

/**
 * The sweeps that forget passes an hour past their expiry (the ledger state's actions, the
 * runtime state's pass expiries and used passes) look only at the minutes of expiry old enough to hold one.
 * Whatever the order of expiries, they must forget exactly what a walk over all of them forgets:
 * the reference models below fold the same records that way.
 */

const SWEEP_EVERY = 4096;
const HOUR_MS = 3_600_000;

interface Workload {
  /** Chance that a pass's expiry falls below the previous one (a clock stepped back, a shorter ttl). */
  fallingExpiry: number;
  /** Chance of a pass whose expiry is not a number (a ledger a verifier is given may hold anything). */
  nanExpiry: number;
}

/** Allow flows (received, decided, issued), some executed, with time moving on by about a second a record. */
function records(seed: number, count: number, workload: Workload): LedgerRecord[] {
  const next = seededRandom(seed);
  const out: LedgerRecord[] = [];
  let ms = Date.parse('2026-11-21T10:00:00.000Z');
  let action = 0;
  const issued: string[] = [];
  const push = (type: string, data: Record<string, unknown>) => {
    ms += Math.floor(next() * 2000);
    out.push({ v: 0, seq: out.length, ts: new Date(ms).toISOString(), stream: 'action:x', prevHash: `sha256:${'0'.repeat(64)}`, type, data } as unknown as LedgerRecord);
  };
  while (out.length < count) {
    const roll = next();
    if (roll < 0.1 && issued.length > 0) {
      // An execution of some earlier pass, or a second pass for an action that has one.
      const actionId = issued[Math.floor(next() * issued.length)] as string;
      if (next() < 0.7) push('execution.completed', { actionId, passId: `pass_${actionId}` });
      else push('actionpass.issued', { actionId, passId: `pass_${actionId}_${out.length}`, claims: { exp: Math.floor(ms / 1000) + 300, payloadHash: 'sha256:x' } });
      continue;
    }
    const actionId = `act_${action}`;
    action += 1;
    const actor = { agentId: 'agent:a', tenant: 'org:a' };
    push('action.received', { action: { actor, capability: { tool: 't', resource: 'r' } }, actionHash: 'sha256:a', actionId, payloadHash: 'sha256:p', source: 'proxy' });
    push('policy.decided', { actionId, decision: 'allow', reasons: [], ruleId: 'r', policyHash: 'sha256:h' });
    let exp = Math.floor(ms / 1000) + 300;
    if (next() < workload.fallingExpiry) exp -= 1 + Math.floor(next() * 7200);
    if (next() < workload.nanExpiry) exp = Number.NaN;
    push('actionpass.issued', { actionId, passId: `pass_${actionId}`, claims: { exp, payloadHash: 'sha256:p' } });
    issued.push(actionId);
  }
  return out.slice(0, count);
}

/** What evolve does to `actions` for these records, with the sweep walking every action. */
function referenceActions(all: readonly LedgerRecord[]): string[] {
  const actions = new Map<string, { exp?: number }>();
  for (const record of all) {
    if (record.seq % SWEEP_EVERY === 0) {
      const now = Date.parse(record.ts);
      for (const [actionId, entry] of actions) if (entry.exp !== undefined && entry.exp * 1000 + HOUR_MS < now) actions.delete(actionId);
    }
    const data = record.data as { actionId: string; claims?: { exp: number } };
    if (record.type === 'action.received') actions.set(data.actionId, {});
    else if (record.type === 'policy.decided' || record.type === 'execution.completed') actions.delete(data.actionId);
    else if (record.type === 'actionpass.issued') actions.set(data.actionId, { exp: data.claims?.exp as number });
  }
  return [...actions.keys()];
}

/** The runtime state's pass expiries and used passes for these records, each swept by a walk over all of it once a minute of record time. */
function referenceRuntimePasses(all: readonly LedgerRecord[]): { passExpiry: [string, number][]; usedPasses: [string, number][] } {
  const expiry = new Map<string, number>();
  const used = new Map<string, number>();
  let lastSweep = 0;
  for (const record of all) {
    const data = record.data as { passId: string; claims?: { exp: number } };
    if (record.type === 'actionpass.issued') expiry.set(data.passId, data.claims?.exp as number);
    else if (record.type === 'execution.completed' && !used.has(data.passId)) {
      used.set(data.passId, expiry.get(data.passId) ?? Number.MAX_SAFE_INTEGER);
      expiry.delete(data.passId);
    }
    const now = Date.parse(record.ts);
    if (now - lastSweep < 60_000) continue;
    lastSweep = now;
    for (const [passId, exp] of expiry) if (exp + 3600 < now / 1000) expiry.delete(passId);
    for (const [passId, exp] of used) if (exp + 3600 < now / 1000) used.delete(passId);
  }
  return { passExpiry: [...expiry], usedPasses: [...used] };
}

function foldRuntime(all: readonly LedgerRecord[], restoreAt?: number): RuntimeState {
  let state = new RuntimeState(HOUR_MS);
  for (const record of all) {
    if (record.seq === restoreAt) state = RuntimeState.restore(JSON.parse(JSON.stringify(state.snapshot())), HOUR_MS) as RuntimeState;
    state.apply(record);
  }
  return state;
}

function fold(all: readonly LedgerRecord[], restoreAt?: number): LedgerState {
  let state = initialState();
  for (const record of all) {
    if (record.seq === restoreAt) state = restoreState(JSON.parse(JSON.stringify(snapshotState(state))));
    evolve(state, record);
  }
  return state;
}

describe('the sweeps of expired passes', () => {
  const cases: [string, Workload][] = [
    ['expiries that only rise', { fallingExpiry: 0, nanExpiry: 0 }],
    ['an expiry that falls now and then', { fallingExpiry: 0.001, nanExpiry: 0 }],
    ['expiries in no order', { fallingExpiry: 0.3, nanExpiry: 0 }],
    ['an expiry that is not a number', { fallingExpiry: 0, nanExpiry: 0.0005 }],
  ];
  for (const [name, workload] of cases) {
    it(`given ${name}, then it forgets exactly the actions a walk over all of them forgets, in the same order`, () => {
      for (const seed of [1, 2, 3]) {
        const all = records(seed, 40_000, workload);
        const expected = referenceActions(all);
        expect([...fold(all).actions.keys()]).toEqual(expected);
        // A state restored from a snapshot (a resume point) sweeps the same way. (Not with a NaN
        // expiry: a snapshot's JSON turns it into null, which is another value.)
        if (workload.nanExpiry === 0) expect([...fold(all, 20_000).actions.keys()]).toEqual(expected);
        const expectedPasses = referenceRuntimePasses(all);
        // Passes are executed in no expiry order, so some are swept while others are kept.
        expect(expectedPasses.usedPasses.length).toBeGreaterThan(0);
        const runtime = foldRuntime(all).snapshot();
        expect({ passExpiry: runtime.passExpiry, usedPasses: runtime.usedPasses }).toEqual(expectedPasses);
        if (workload.nanExpiry === 0) {
          const restored = foldRuntime(all, 20_000).snapshot();
          expect({ passExpiry: restored.passExpiry, usedPasses: restored.usedPasses }).toEqual(expectedPasses);
        }
      }
    });
  }

  it('given a long run of rising expiries, then the passes of the last hour and a bit are kept, not all of them', () => {
    const all = records(7, 40_000, { fallingExpiry: 0, nanExpiry: 0 });
    const kept = fold(all).actions.size;
    expect(kept).toBeGreaterThan(0);
    // About 40,000 s of records and some 11,000 passes; a sweep every 4,096 records (about as many
    // seconds) leaves the passes of at most the last 3,900 + 4,096 s, about 2,700 of them.
    expect(kept).toBeLessThan(4_000);
  });
});

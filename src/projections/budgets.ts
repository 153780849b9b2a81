import type { LedgerRecord } from '../events/catalogue.js';
import { recordTimeMs } from '../events/rfc3339.js';
import { SvcError } from '../errors.js';
import type { BudgetRule, PolicyContext } from '../policy/compile-policy.js';

/**
 * Counts allowed decisions per agent and tool, for the budgets of the policy. A projection like
 * the others: fed ledger records in seq order and pure (record timestamps are its only clock), so
 * the running proxy and a replay of the same file answer every question the same way.
 *
 * An action counts when its `policy.decided` record says `allow`, at that record's `ts`; the agent
 * and tool come from the action's `action.received` record, which is forgotten once decided.
 * Memory stays bounded: timestamps older than the longest budget window, measured back from the
 * newest record seen, can never be counted again and are dropped. That is why `countAllowed`
 * answers exactly for any `now` at or after the newest record it has seen (the proxy's case).
 */

/** Received actions still waiting for their decision; the oldest are forgotten beyond this. */
const MAX_UNDECIDED_ACTIONS = 100_000;
/** Full sweeps of idle keys run at most this often (in record time). */
const MIN_SWEEP_INTERVAL_MS = 60_000;

/** A BudgetCounter as data (infinite clocks, before any record, as null). */
export interface BudgetSnapshot {
  windowMs: number;
  undecided: [string, string][];
  allowed: [string, number[]][];
  newest: number | null;
  nextSweep: number | null;
}

export class BudgetCounter {
  private windowMs: number;
  /** actionId → key of its agent and tool, between action.received and policy.decided. */
  private readonly undecided = new Map<string, string>();
  private readonly allowed = new Map<string, TimestampQueue>();
  private newest = Number.NEGATIVE_INFINITY;
  private nextSweep = Number.NEGATIVE_INFINITY;

  /** `maxWindow`: the longest budget window in milliseconds, or the budgets themselves. */
  constructor(maxWindow: number | readonly Pick<BudgetRule, 'windowMs'>[]) {
    this.windowMs = typeof maxWindow === 'number' ? maxWindow : Math.max(0, ...maxWindow.map((budget) => budget.windowMs));
    if (!Number.isFinite(this.windowMs) || this.windowMs < 0) throw new SvcError('budget_window_invalid', `a budget window must be a non-negative number of milliseconds, not ${String(maxWindow)}`);
  }

  /** The longest window this counter answers for. */
  get maxWindowMs(): number {
    return this.windowMs;
  }

  /**
   * Answers for longer windows from now on (a reloaded policy with a longer budget). Timestamps
   * already dropped do not come back: until the new window has passed, counts for it may be low.
   * Rebuild the counter from the ledger when that matters.
   */
  widenWindow(maxWindowMs: number): void {
    if (maxWindowMs > this.windowMs) this.windowMs = maxWindowMs;
  }

  apply(record: LedgerRecord): void {
    const ts = recordTimeMs(record.ts);
    if (ts > this.newest) this.newest = ts;
    if (record.type === 'action.received') {
      const { actionId, action } = record.data;
      this.undecided.set(actionId, keyOf(action.actor.agentId, action.capability.tool));
      if (this.undecided.size > MAX_UNDECIDED_ACTIONS) this.undecided.delete(this.undecided.keys().next().value as string);
    } else if (record.type === 'policy.decided') {
      const key = this.undecided.get(record.data.actionId);
      if (key !== undefined) {
        this.undecided.delete(record.data.actionId);
        if (record.data.decision === 'allow') this.record(key, ts);
      }
    }
    if (this.newest >= this.nextSweep) this.sweep();
  }

  /** Allowed actions of `agentId` on `tool` at times within [now - budget.windowMs, now]. */
  countAllowed(budget: Pick<BudgetRule, 'windowMs'>, agentId: string, tool: string, now: number): number {
    if (budget.windowMs > this.windowMs) {
      // Counting a window longer than what is kept would undercount: refuse rather than allow too much.
      throw new SvcError('budget_window_untracked', `a budget window of ${budget.windowMs} ms is longer than the ${this.windowMs} ms this counter keeps; construct it with the longest window of the policy (or widenWindow)`);
    }
    return this.allowed.get(keyOf(agentId, tool))?.countBetween(now - budget.windowMs, now) ?? 0;
  }

  /** The budget half of a PolicyContext at `now`. */
  contextAt(now: number): PolicyContext {
    return { now, countAllowed: (budget, agentId, tool) => this.countAllowed(budget, agentId, tool, now) };
  }

  /** The counter as JSON-safe data, for a resume point; `restore` takes it back. */
  snapshot(): BudgetSnapshot {
    return {
      windowMs: this.windowMs,
      undecided: [...this.undecided],
      allowed: [...this.allowed].map(([key, queue]) => [key, queue.values()]),
      newest: Number.isFinite(this.newest) ? this.newest : null,
      nextSweep: Number.isFinite(this.nextSweep) ? this.nextSweep : null,
    };
  }

  /** A counter as `snapshot` left it; undefined when it kept a shorter window than `maxWindow` needs. */
  static restore(saved: BudgetSnapshot, maxWindow: ConstructorParameters<typeof BudgetCounter>[0]): BudgetCounter | undefined {
    const counter = new BudgetCounter(maxWindow);
    if (counter.windowMs > saved.windowMs) return undefined;
    counter.windowMs = saved.windowMs;
    for (const [actionId, key] of saved.undecided) counter.undecided.set(actionId, key);
    for (const [key, times] of saved.allowed) counter.allowed.set(key, TimestampQueue.of(times));
    counter.newest = saved.newest ?? Number.NEGATIVE_INFINITY;
    counter.nextSweep = saved.nextSweep ?? Number.NEGATIVE_INFINITY;
    return counter;
  }

  /** What the counter holds, for tests and health output: memory is proportional to these. */
  get retained(): { undecidedActions: number; keys: number; timestamps: number } {
    let timestamps = 0;
    for (const queue of this.allowed.values()) timestamps += queue.size;
    return { undecidedActions: this.undecided.size, keys: this.allowed.size, timestamps };
  }

  private record(key: string, ts: number): void {
    let queue = this.allowed.get(key);
    if (!queue) {
      queue = new TimestampQueue();
      this.allowed.set(key, queue);
    }
    queue.add(ts);
    queue.dropBefore(this.newest - this.windowMs);
  }

  private sweep(): void {
    const cutoff = this.newest - this.windowMs;
    for (const [key, queue] of this.allowed) {
      queue.dropBefore(cutoff);
      if (queue.size === 0) this.allowed.delete(key);
    }
    this.nextSweep = this.newest + Math.max(this.windowMs, MIN_SWEEP_INTERVAL_MS);
  }
}

function keyOf(agentId: string, tool: string): string {
  // Neither an agent id nor a tool name can hold a line break (SPEC 2.1 patterns).
  return `${agentId}\n${tool}`;
}

/** Ascending timestamps with a moving start, so dropping the oldest costs nothing per entry. */
class TimestampQueue {
  private times: number[] = [];
  private start = 0;

  static of(times: readonly number[]): TimestampQueue {
    const queue = new TimestampQueue();
    queue.times = [...times];
    return queue;
  }

  values(): number[] {
    return this.times.slice(this.start);
  }

  get size(): number {
    return this.times.length - this.start;
  }

  add(ts: number): void {
    const last = this.times[this.times.length - 1];
    if (last === undefined || ts >= last) {
      this.times.push(ts);
      return;
    }
    // A clock that stepped back: keep the order, so counting stays a pair of binary searches.
    this.times.splice(this.firstAfter(ts), 0, ts);
  }

  dropBefore(cutoff: number): void {
    this.start = this.firstAtOrAfter(cutoff);
    if (this.start > 1024 && this.start * 2 > this.times.length) {
      this.times = this.times.slice(this.start);
      this.start = 0;
    }
  }

  countBetween(from: number, to: number): number {
    if (to < from) return 0;
    return this.firstAfter(to) - this.firstAtOrAfter(from);
  }

  private firstAtOrAfter(value: number): number {
    let low = this.start;
    let high = this.times.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.times[middle] as number) < value) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private firstAfter(value: number): number {
    let low = this.start;
    let high = this.times.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.times[middle] as number) <= value) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

import { describe, expect, it } from 'vitest';
import { FixedWindowLimiter } from '../../src/playground/rate-limit.js';

describe('FixedWindowLimiter', () => {
  it('allows max per window, says when to retry, and starts a new window after it', () => {
    let now = 1_000;
    const limiter = new FixedWindowLimiter({ max: 2, windowMs: 10_000, now: () => now });
    expect(limiter.take('a')).toEqual({ ok: true, remaining: 1 });
    expect(limiter.take('a')).toEqual({ ok: true, remaining: 0 });
    now += 2_500;
    expect(limiter.take('a')).toEqual({ ok: false, retryAfterSeconds: 8 });
    expect(limiter.take('b').ok).toBe(true);
    now += 7_500;
    expect(limiter.take('a')).toEqual({ ok: true, remaining: 1 });
  });

  it('keeps its table bounded: expired windows are swept, and past maxClients live ones a new client waits', () => {
    let now = 0;
    const limiter = new FixedWindowLimiter({ max: 1, windowMs: 1_000, maxClients: 3, now: () => now });
    for (const client of ['a', 'b', 'c']) expect(limiter.take(client).ok).toBe(true);
    expect(limiter.take('d')).toEqual({ ok: false, retryAfterSeconds: 1 });
    expect(limiter.clients).toBe(3);
    now += 1_000;
    expect(limiter.take('d').ok).toBe(true);
    expect(limiter.clients).toBe(1);
  });
});

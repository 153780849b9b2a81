/**
 * Milliseconds on a clock that never goes back, for deadlines and time budgets: the same clock
 * as `performance.now()`, without it. Node loads perf_hooks (a dozen internal modules) the first
 * time the `performance` global is read, which a hook process, started before every tool call of
 * a coding agent, should not pay for a subtraction.
 */
export function monotonicMs(): number {
  const [seconds, nanoseconds] = process.hrtime();
  return seconds * 1e3 + nanoseconds / 1e6;
}

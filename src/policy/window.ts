/**
 * Budget windows: `<n>s`, `<n>m`, `<n>h` or `<n>d`, a positive whole number of one unit. One unit
 * only, so every window has exactly one spelling and the policyHash cannot tell `90m` from `1h30m`.
 */
export const WINDOW_PATTERN = /^[1-9][0-9]{0,6}[smhd]$/;

/** The longest window a budget may use: it bounds the memory the budget counter keeps. */
export const MAX_WINDOW_MS = 31 * 86_400_000;

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Milliseconds of a window, or undefined when it is malformed or longer than 31 days. */
export function parseWindow(window: string): number | undefined {
  if (!WINDOW_PATTERN.test(window)) return undefined;
  const unit = window.slice(-1) as keyof typeof UNIT_MS;
  const ms = Number(window.slice(0, -1)) * UNIT_MS[unit];
  return ms <= MAX_WINDOW_MS ? ms : undefined;
}

/** The shortest exact spelling of a window, for explanations: 3_600_000 → `1h`. */
export function formatWindow(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    if (ms >= UNIT_MS[unit] && ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  }
  return `${ms}ms`;
}

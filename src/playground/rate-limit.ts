/**
 * A fixed window per client: at most `max` requests in each `windowMs`. Abuse resistance for a
 * public page, not a capacity claim (SPEC.md section 8). Memory stays bounded: expired windows
 * are swept when the table grows, and past `maxClients` live windows a new client is refused
 * until one expires, rather than the table growing without end.
 */
export interface RateLimitOptions {
  max: number;
  windowMs: number;
  maxClients?: number;
  now?: () => number;
}

export type RateVerdict = { ok: true; remaining: number } | { ok: false; retryAfterSeconds: number };

export class FixedWindowLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private readonly now: () => number;
  private readonly maxClients: number;

  constructor(private readonly options: RateLimitOptions) {
    this.now = options.now ?? Date.now;
    this.maxClients = options.maxClients ?? 100_000;
  }

  take(client: string): RateVerdict {
    const now = this.now();
    let window = this.windows.get(client);
    if (window === undefined || now - window.start >= this.options.windowMs) {
      if (window === undefined && this.windows.size >= this.maxClients) this.sweep(now);
      if (window === undefined && this.windows.size >= this.maxClients) return { ok: false, retryAfterSeconds: Math.ceil(this.options.windowMs / 1000) };
      window = { start: now, count: 0 };
      this.windows.set(client, window);
    }
    if (window.count >= this.options.max) return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((window.start + this.options.windowMs - now) / 1000)) };
    window.count += 1;
    return { ok: true, remaining: this.options.max - window.count };
  }

  get clients(): number {
    return this.windows.size;
  }

  private sweep(now: number): void {
    for (const [client, window] of this.windows) if (now - window.start >= this.options.windowMs) this.windows.delete(client);
  }
}

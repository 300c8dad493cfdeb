/**
 * Fixed-window attempt counter for the token endpoint, per key (an account or an address).
 * Kept in the auth process: a limit per instance, which is what stops password guessing
 * through one instance; several instances multiply the allowance (documented).
 */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly windowMs: number) {}

  /** Counts one attempt; returns 0 when allowed, else the seconds until the window resets. */
  hit(key: string, limit: number, now = Date.now()): number {
    if (this.windows.size > 50_000) this.sweep(now);
    const window = this.windows.get(key);
    if (!window || now - window.start >= this.windowMs) {
      this.windows.set(key, { start: now, count: 1 });
      return 0;
    }
    window.count += 1;
    if (window.count <= limit) return 0;
    return Math.max(1, Math.ceil((window.start + this.windowMs - now) / 1000));
  }

  /** Seconds until `key` may go on when it already has `limit` events in the window, else 0. Counts nothing. */
  retryAfter(key: string, limit: number, now = Date.now()): number {
    const window = this.windows.get(key);
    if (!window || now - window.start >= this.windowMs || window.count < limit) return 0;
    return Math.max(1, Math.ceil((window.start + this.windowMs - now) / 1000));
  }

  /** Counts one event (e.g. a failed attempt) against `key`. */
  record(key: string, now = Date.now()): void {
    this.hit(key, Number.POSITIVE_INFINITY, now);
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (now - window.start >= this.windowMs) this.windows.delete(key);
  }
}

/**
 * Where the ticket service reads "now" for what expires and what a stock move stamps
 * (expires_at, due reservations and orders, a move's updated_at, scanned_at). Deadlines,
 * timeouts, retries, metrics, the catalogue's timestamps and the webhook outbox (an event's
 * created_at, which the delivery worker orders by) stay on real time.
 *
 * Production always runs on `systemClock`: no environment variable, config key or endpoint
 * chooses or moves the clock. Only in-process code can hand `startStack` (services/stack.ts)
 * another one, as the test stack does with a `TestClock` (docs/testing.md "The test clock").
 */
export interface Clock {
  now(): Date;
}

/** Real time. */
export const systemClock: Clock = { now: () => new Date() };

/**
 * Real time plus an offset that only grows: tests move it past an expiry instead of sleeping
 * (`advance`), and it keeps running with real time meanwhile, so it never goes back.
 */
export class TestClock implements Clock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  /** Moves the clock forward by `ms` (never back). */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new Error(`a test clock only moves forward, not by ${ms} ms`);
    this.offsetMs += ms;
  }

  /** Moves the clock forward until it reads at least `when` (a Date, an ISO timestamp or milliseconds since the epoch); nothing when it is past already. */
  advanceTo(when: Date | string | number): void {
    const ms = typeof when === 'number' ? when : typeof when === 'string' ? Date.parse(when) : when.getTime();
    if (Number.isNaN(ms)) throw new Error(`not a time: ${String(when)}`);
    this.advance(Math.max(0, ms - this.now().getTime()));
  }
}

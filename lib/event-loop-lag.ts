import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/** How often the loop is asked to come back: the finest lag it can tell. */
const TICK_MS = 100;
/** How long a late tick keeps counting: a loop that was late a moment ago is taken as late still. */
const MEMORY_MS = 1000;

/**
 * How late this process's event loop runs: a timer that asks to fire every 100 ms, and how
 * much later than asked it fired. A request waits in the loop about that long before its
 * handler runs, so this is the queue a new request joins (docs/scaling.md, "Shedding load").
 * The reading is the larger of the latest ticks (the last second) and how overdue the next one
 * is now, so it also sees a loop that has not reached its timers for a while.
 */
export class EventLoopLag {
  private expectedAt = performance.now() + TICK_MS;
  private recent: { at: number; lagMs: number }[] = [];
  /** The loop's utilization counters at each tick of the last second (and the first one kept). */
  private utilizations: { at: number; elu: EventLoopUtilization }[] = [{ at: performance.now(), elu: performance.eventLoopUtilization() }];
  private timer: NodeJS.Timeout | undefined;

  constructor() {
    this.schedule();
  }

  /** Milliseconds the loop runs behind, now. */
  ms(): number {
    const now = performance.now();
    this.forgetOld(now);
    return Math.max(0, now - this.expectedAt, ...this.recent.map(({ lagMs }) => lagMs));
  }

  /**
   * The share of about the last second that this process's loop spent working (running
   * callbacks, not waiting for I/O): 0 to 1. A loop late because the host gave the process no
   * CPU (other programs' work) was mostly waiting, so its share is low; a loop late because of
   * its own requests is busy nearly all the time (issue 32, item 12).
   */
  busyShare(): number {
    const now = performance.now();
    this.forgetOld(now);
    return performance.eventLoopUtilization(performance.eventLoopUtilization(), this.utilizations[0]!.elu).utilization;
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private forgetOld(now: number): void {
    while (this.recent.length && now - this.recent[0]!.at > MEMORY_MS) this.recent.shift();
    // Keep the newest snapshot older than a second as the base, so the share covers a whole second.
    while (this.utilizations.length > 1 && now - this.utilizations[1]!.at > MEMORY_MS) this.utilizations.shift();
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      const now = performance.now();
      const lagMs = now - this.expectedAt;
      this.forgetOld(now);
      if (lagMs > 0) this.recent.push({ at: now, lagMs });
      this.utilizations.push({ at: now, elu: performance.eventLoopUtilization() });
      this.expectedAt = now + TICK_MS;
      this.schedule();
    }, TICK_MS).unref();
  }
}

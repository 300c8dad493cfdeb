import { performance } from 'node:perf_hooks';

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
  /** This process's CPU time at each tick of the last second (and the newest one before it). */
  private cpu: { at: number; usage: NodeJS.CpuUsage }[] = [{ at: performance.now(), usage: process.cpuUsage() }];
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
   * The CPU time this process used in about the last second, in milliseconds (every thread:
   * the loop, the garbage collector, the thread pool). A loop that is late because of its own
   * work has burned about that lateness in CPU; one that is late because the host gave the
   * process no CPU (other programs' work) has burned next to nothing (issue 32, item 12).
   */
  ownCpuMs(): number {
    this.forgetOld(performance.now());
    const { user, system } = process.cpuUsage(this.cpu[0]!.usage);
    return (user + system) / 1000;
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private forgetOld(now: number): void {
    while (this.recent.length && now - this.recent[0]!.at > MEMORY_MS) this.recent.shift();
    // Keep the newest snapshot older than a second as the base, so the reading covers a whole second.
    while (this.cpu.length > 1 && now - this.cpu[1]!.at > MEMORY_MS) this.cpu.shift();
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      const now = performance.now();
      const lagMs = now - this.expectedAt;
      this.forgetOld(now);
      if (lagMs > 0) this.recent.push({ at: now, lagMs });
      this.cpu.push({ at: now, usage: process.cpuUsage() });
      this.expectedAt = now + TICK_MS;
      this.schedule();
    }, TICK_MS).unref();
  }
}

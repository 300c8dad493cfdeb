import type { Logger } from '../../lib/logger.js';
import type { AuthStore } from './store/auth-store.js';

export interface RevocationBatch {
  sequence: number;
  sessionIds: string[];
}

type Listener = (batch: RevocationBatch) => void;
type Failure = () => void;

/** How long a hole in the sequence is waited for (a transaction that took a number and has not committed yet). */
const GAP_WAIT_MS = 5000;
const PAGE = 1000;
const PRUNE_EVERY_MS = 60_000;

/**
 * This replica's view of the revocations table, the source every auth replica shares: polls it
 * (and at once after a revocation made here), hands new rows to the WatchRevocations streams
 * and remembers recently revoked sessions, so that this replica refuses them even when a
 * session cache entry another replica could not overwrite says otherwise.
 *
 * Sequence numbers come from an auto-increment, so a row can commit after a higher one was
 * already read: rows are read from the lowest number not yet seen (`floor`), and a hole is
 * skipped only after GAP_WAIT_MS (then its transaction rolled back).
 */
export class RevocationFeed {
  private floor = 0;
  private readonly seenAbove = new Set<number>();
  private readonly holeSince = new Map<number, number>();
  private newest = 0;
  private readonly recent = new Map<string, number>();
  private readonly listeners = new Set<Listener>();
  private readonly failures = new Set<Failure>();
  private timer?: NodeJS.Timeout;
  private running = false;
  private current?: Promise<void>;
  private queued?: Promise<void>;
  private lastPrune = 0;
  private healthy = false;
  private announce?: () => Promise<void>;

  constructor(
    private readonly store: AuthStore,
    private readonly intervalMs: number,
    /** How long a revoked session is remembered: the longest an access token lives. */
    private readonly rememberMs: number,
    private readonly logger: Pick<Logger, 'warn' | 'info'>,
  ) {}

  async start(): Promise<void> {
    this.floor = this.newest = await this.store.lastRevocation();
    this.seenAbove.clear();
    this.holeSince.clear();
    this.healthy = true;
    this.running = true;
    this.schedule();
  }

  /** Stops reading; open streams end (UNAVAILABLE), so their subscribers move to another replica. */
  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
    this.healthy = false;
    for (const failure of [...this.failures]) failure();
  }

  /** True while the feed reads the table (a stream from this replica is then complete). */
  get isHealthy(): boolean {
    return this.healthy;
  }

  /** The newest sequence handed out. */
  get sequence(): number {
    return this.newest;
  }

  /** True when this replica has seen the session revoked recently. */
  isRevoked(sessionId: string): boolean {
    return this.recent.has(sessionId);
  }

  /**
   * Reads the table now (after a revocation made by this replica); resolves once a read that
   * started after this call is done, so the revocation has been pushed to this replica's streams.
   */
  poke(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return this.poll();
  }

  /** How a revocation made here reaches the other auth replicas at once (RevocationPeers); without it, their polls. */
  announceWith(announce: () => Promise<void>): void {
    this.announce = announce;
  }

  /**
   * After a revocation this process committed: resolves once it is pushed to this replica's
   * streams and, through `announceWith`, to every other replica's (or after their wait bound).
   */
  async spread(): Promise<void> {
    await this.poke();
    await this.announce?.();
  }

  /** Calls `listener` with each new batch and `onFailure` when the table cannot be read; returns the unsubscribe. */
  subscribe(listener: Listener, onFailure: Failure): () => void {
    this.listeners.add(listener);
    this.failures.add(onFailure);
    return () => {
      this.listeners.delete(listener);
      this.failures.delete(onFailure);
    };
  }

  private schedule(): void {
    clearTimeout(this.timer);
    if (this.running) this.timer = setTimeout(() => void this.poll(), this.intervalMs);
  }

  /** One read at a time; a read asked for during one runs right after it. Never rejects. */
  private poll(): Promise<void> {
    if (!this.current) {
      this.current = this.read().finally(() => {
        this.current = undefined;
        this.schedule();
      });
      return this.current;
    }
    this.queued ??= this.current.then(() => {
      this.queued = undefined;
      return this.running ? this.poll() : undefined;
    });
    return this.queued;
  }

  private async read(): Promise<void> {
    try {
      await this.readNew();
      if (!this.running) return; // stopped meanwhile: stays unhealthy, so no stream says it is complete
      if (!this.healthy) this.logger.info('revocation feed reads the database again');
      this.healthy = true;
    } catch (err) {
      if (this.healthy) this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'revocation feed cannot read the database; subscribers fall back to asking');
      this.healthy = false;
      for (const failure of [...this.failures]) failure();
    }
  }

  private async readNew(): Promise<void> {
    const rows = await this.store.revocationsAfter(this.floor, PAGE);
    const fresh = rows.filter((row) => !this.seenAbove.has(row.sequence));
    const now = Date.now();
    for (const row of fresh) {
      this.seenAbove.add(row.sequence);
      this.recent.set(row.session_id, now);
      this.newest = Math.max(this.newest, row.sequence);
    }
    this.advanceFloor(now);
    this.forget(now);
    if (fresh.length) {
      const batch = { sequence: this.newest, sessionIds: fresh.map((row) => row.session_id) };
      for (const listener of [...this.listeners]) listener(batch);
    }
    if (now - this.lastPrune > PRUNE_EVERY_MS) {
      this.lastPrune = now;
      await this.store.pruneRevocations(new Date(now - this.rememberMs));
    }
  }

  private advanceFloor(now: number): void {
    while (this.floor < this.newest) {
      const next = this.floor + 1;
      if (this.seenAbove.delete(next)) {
        this.holeSince.delete(next);
      } else {
        const since = this.holeSince.get(next) ?? now;
        this.holeSince.set(next, since);
        if (now - since < GAP_WAIT_MS) return;
        this.holeSince.delete(next);
      }
      this.floor = next;
    }
  }

  private forget(now: number): void {
    if (this.recent.size < 10_000) return;
    for (const [sessionId, at] of this.recent) {
      if (now - at > this.rememberMs) this.recent.delete(sessionId);
    }
  }
}

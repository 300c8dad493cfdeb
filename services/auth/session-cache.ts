import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Logger } from '../../lib/logger.js';
import { closeRedis, openRedis, withTimeout, type RedisConnection } from '../../lib/redis-connection.js';

export interface CachedSession {
  userId: string;
  /** The API client that opened the session; null for the user's own session. */
  clientId: string | null;
  companyIds: string[];
  expiresAt: number;
  revoked: boolean;
}

/**
 * Cache in front of the sessions table, never the only copy. Fills never overwrite
 * (so a fill racing a revocation cannot resurrect a session); revocations always do.
 */
/** Tombstone written on revocation: a fill that raced the revocation cannot replace it. */
const REVOKED: CachedSession = { userId: '', clientId: null, companyIds: [], expiresAt: 0, revoked: true };

/**
 * An entry written by an earlier version has no clientId, so it cannot tell a user's session
 * from an API client's: it counts as a miss (the database answers). Its tombstones still hold.
 */
function current(entry: Partial<CachedSession>): CachedSession | undefined {
  if (entry.revoked) return REVOKED;
  return entry.clientId === undefined ? undefined : (entry as CachedSession);
}

export interface SessionCache {
  get(sessionId: string): Promise<CachedSession | undefined>;
  fill(sessionId: string, session: CachedSession): Promise<void>;
  markRevoked(sessionId: string): Promise<void>;
  isHealthy(): boolean;
  /**
   * Waits (up to timeoutMs) until the cache is reachable and every revocation is written to it.
   * True when nothing is left pending; a short-lived process (the admin CLI) checks it before exiting.
   */
  settle(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export class MemorySessionCache implements SessionCache {
  private readonly entries = new Map<string, { session: CachedSession; until: number }>();

  constructor(private readonly ttlSeconds: number) {}

  async get(sessionId: string): Promise<CachedSession | undefined> {
    const entry = this.entries.get(sessionId);
    if (!entry) return undefined;
    if (entry.until <= Date.now()) {
      this.entries.delete(sessionId);
      return undefined;
    }
    return entry.session;
  }

  async fill(sessionId: string, session: CachedSession): Promise<void> {
    if (this.entries.size > 100_000) this.entries.clear();
    const existing = this.entries.get(sessionId);
    if (!existing || existing.until <= Date.now()) this.entries.set(sessionId, { session, until: Date.now() + this.ttlSeconds * 1000 });
  }

  async markRevoked(sessionId: string): Promise<void> {
    this.entries.set(sessionId, { session: REVOKED, until: Date.now() + this.ttlSeconds * 1000 });
  }

  isHealthy(): boolean {
    return true;
  }

  async settle(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {}
}

/**
 * An entry as Redis holds it: `<MAC>.<JSON>`, the MAC an HMAC-SHA-256 of the session id and the
 * JSON under a key only the auth service holds (derived from AUTH_RATE_LIMIT_SECRET). Whoever
 * can write to Redis (every process that has REDIS_URL) cannot make an entry the auth service
 * believes: one without a valid MAC for its own session id (forged, altered, copied from
 * another session, or from before MACs) is ignored and the database answers (issue 32, item 3).
 */
export class SessionEntrySeal {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHmac('sha256', secret).update('session cache entries v1').digest();
  }

  seal(sessionId: string, session: CachedSession): string {
    const json = JSON.stringify(session);
    return `${this.mac(sessionId, json)}.${json}`;
  }

  /** The entry's session when its MAC is right for this session id, else undefined. */
  open(sessionId: string, raw: string): Partial<CachedSession> | undefined {
    const dot = raw.indexOf('.');
    if (dot < 0) return undefined;
    const given = Buffer.from(raw.slice(0, dot), 'base64url');
    const json = raw.slice(dot + 1);
    const expected = Buffer.from(this.mac(sessionId, json), 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    return JSON.parse(json) as Partial<CachedSession>;
  }

  private mac(sessionId: string, json: string): string {
    return createHmac('sha256', this.key).update(sessionId).update('\n').update(json).digest('base64url');
  }
}

/**
 * Redis cache with a short per-command timeout and no offline queue: while Redis is down
 * every call costs at most the timeout and the database answers. Revocations that could
 * not reach Redis are kept and written as soon as it is back, and until then those
 * sessions bypass the cache, so a revoked token is never accepted from a stale entry.
 */
export class RedisSessionCache implements SessionCache {
  private readonly client: RedisConnection;
  private readonly pendingRevocations = new Set<string>();

  constructor(
    url: string,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
    private readonly timeoutMs: number,
    private readonly logger: Logger,
    private readonly seal: SessionEntrySeal,
  ) {
    this.client = openRedis(url, logger, { whileDown: 'sessions are read from the database', ready: 'redis session cache ready' }, () => void this.flushPending());
  }

  private key(sessionId: string): string {
    return `${this.prefix}session:${sessionId}`;
  }

  async get(sessionId: string): Promise<CachedSession | undefined> {
    if (this.pendingRevocations.size) await this.flushPending();
    if (this.pendingRevocations.has(sessionId) || !this.client.isReady) return undefined;
    try {
      const raw = await this.withTimeout(this.client.get(this.key(sessionId)));
      if (!raw) return undefined;
      const entry = this.seal.open(sessionId, raw);
      if (!entry) {
        // Not written by an auth service (or from before MACs): never believed, the database answers.
        this.logger.warn('session cache entry without a valid MAC ignored');
        return undefined;
      }
      return current(entry);
    } catch {
      return undefined;
    }
  }

  async fill(sessionId: string, session: CachedSession): Promise<void> {
    if (!this.client.isReady || this.pendingRevocations.has(sessionId)) return;
    try {
      await this.withTimeout(this.client.set(this.key(sessionId), this.seal.seal(sessionId, session), { EX: this.ttlSeconds, NX: true }));
    } catch {
      // A cache that cannot be filled costs a database read next time, nothing more.
    }
  }

  async markRevoked(sessionId: string): Promise<void> {
    this.pendingRevocations.add(sessionId);
    await this.flushPending();
  }

  isHealthy(): boolean {
    return this.client.isReady;
  }

  async settle(timeoutMs: number): Promise<boolean> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      await this.flushPending();
      if (this.client.isReady && this.pendingRevocations.size === 0) return true;
      if (Date.now() >= until) return false;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  private async flushPending(): Promise<void> {
    if (!this.client.isReady) return;
    for (const sessionId of [...this.pendingRevocations]) {
      try {
        await this.withTimeout(this.client.set(this.key(sessionId), this.seal.seal(sessionId, REVOKED), { EX: this.ttlSeconds }));
        this.pendingRevocations.delete(sessionId);
      } catch {
        return;
      }
    }
  }

  private withTimeout<T>(promise: Promise<T>): Promise<T> {
    return withTimeout(promise, this.timeoutMs);
  }

  close(): Promise<void> {
    return closeRedis(this.client);
  }
}

import type { RateLimitStore } from '../../../lib/rate-limit/redis-store.js';
import { withTimeout } from '../../../lib/redis-connection.js';

/** How long a successful sign-in makes its address known for the account. */
export const KNOWN_FOR_SECONDS = 30 * 24 * 3600;
/** The in-process copy holds at most this many; past it the oldest are forgotten. */
const MEMORY_LIMIT = 100_000;

/**
 * Which client addresses signed in to which account recently, by key (a hash of both): in Redis
 * when a store is given, shared by every auth replica, and always in this process too, so a
 * Redis outage forgets nothing this replica saw. A lookup waits at most the store's timeout.
 */
export class KnownAddresses {
  private readonly memory = new Map<string, number>();

  constructor(private readonly store?: RateLimitStore) {}

  async remember(key: string): Promise<void> {
    this.memory.delete(key);
    this.memory.set(key, Date.now() + KNOWN_FOR_SECONDS * 1000);
    if (this.memory.size > MEMORY_LIMIT) this.memory.delete(this.memory.keys().next().value!);
    if (!this.store?.client.isReady) return;
    await withTimeout(this.store.client.set(this.redisKey(key), '1', { EX: KNOWN_FOR_SECONDS }), this.store.timeoutMs).catch(() => undefined);
  }

  async has(key: string): Promise<boolean> {
    const until = this.memory.get(key);
    if (until !== undefined && until > Date.now()) return true;
    if (!this.store?.client.isReady) return false;
    return (await withTimeout(this.store.client.exists(this.redisKey(key)), this.store.timeoutMs).catch(() => 0)) === 1;
  }

  private redisKey(key: string): string {
    return `${this.store!.prefix}ratelimit:token-known-address:${key}`;
  }
}

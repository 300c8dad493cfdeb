import type { Logger } from '../logger.js';
import { closeRedis, openRedis, type RedisConnection } from '../redis-connection.js';

/**
 * The Redis connection rate limits are counted on, shared by every counter of a process.
 * No offline queue and a ready check before each command: while Redis is down a count
 * costs nothing and goes to the in-process fallback; a Redis that hangs costs at most
 * `timeoutMs` per count (the counters' timeout).
 */
export class RateLimitStore {
  readonly client: RedisConnection;

  constructor(
    url: string,
    /** REDIS_KEY_PREFIX: every key is under `${prefix}ratelimit:`. */
    readonly prefix: string,
    readonly timeoutMs: number,
    logger: Pick<Logger, 'warn' | 'info'>,
  ) {
    this.client = openRedis(url, logger, { whileDown: 'rate limits are counted in this process until it is back', ready: 'redis rate-limit store ready' });
  }

  close(): Promise<void> {
    return closeRedis(this.client);
  }
}

import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, RLWrapperTimeouts, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateLimitStore } from './redis-store.js';

/** One counted request under a limit. */
export interface WindowCount {
  allowed: boolean;
  /** Requests left in the window (0 when refused). */
  remaining: number;
  /** Whole seconds until the window ends and the count starts again (at least 1). */
  resetSeconds: number;
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * A fixed window of `limit` events per `windowSeconds` per key. With a store, the count lives
 * in Redis and is shared by every process on it; while Redis is down or slow each process
 * counts in its own memory (rate-limiter-flexible's insurance limiter), so limits still hold,
 * per process, and no request waits longer than the store's timeout.
 */
export class WindowCounter {
  private readonly limiter: RateLimiterAbstract;

  constructor(
    /** Names the counter's keys: `${REDIS_KEY_PREFIX}ratelimit:${name}:${key}`. */
    name: string,
    readonly limit: number,
    readonly windowSeconds: number,
    store?: RateLimitStore,
  ) {
    const memory = new RateLimiterMemory({ points: limit, duration: windowSeconds });
    this.limiter = store
      ? new RLWrapperTimeouts({
          limiter: new RateLimiterRedis({
            storeClient: store.client,
            useRedisPackage: true,
            rejectIfRedisNotReady: true,
            keyPrefix: `${store.prefix}ratelimit:${name}`,
            points: limit,
            duration: windowSeconds,
          }),
          timeoutMs: store.timeoutMs,
          insuranceLimiter: memory,
        })
      : memory;
  }

  /** Counts one event for `key` and says whether it is within the limit. */
  async consume(key: string): Promise<WindowCount> {
    try {
      const res = await this.limiter.consume(key);
      return { allowed: true, remaining: res.remainingPoints, resetSeconds: seconds(res.msBeforeNext) };
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      return { allowed: false, remaining: 0, resetSeconds: seconds(err.msBeforeNext) };
    }
  }

  /** Counts one event for `key` without asking whether it was allowed. */
  async add(key: string): Promise<void> {
    await this.limiter.penalty(key, 1);
  }

  /** Seconds until `key` may go on when it already has `limit` events in the window, else 0. Counts nothing. */
  async retryAfter(key: string): Promise<number> {
    const res = await this.limiter.get(key);
    return res && res.consumedPoints >= this.limit ? seconds(res.msBeforeNext) : 0;
  }
}

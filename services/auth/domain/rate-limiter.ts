import { createHash } from 'node:crypto';
import { WindowCounter } from '../../../lib/rate-limit/window-counter.js';
import type { RateLimitStore } from '../../../lib/rate-limit/redis-store.js';

export interface TokenRateLimitSettings {
  perAccount: number;
  perAddress: number;
  windowSeconds: number;
}

/**
 * The token endpoint's limits: every token request per client address, and failed attempts per
 * account and address. Counted in Redis when a store is given, so every auth replica shares one
 * allowance; in the process while Redis is down (each replica then allows its own, documented in
 * docs/rate-limits.md). Account names are hashed into the keys: no e-mail address sits in Redis.
 */
export class TokenRateLimits {
  private readonly requests: WindowCounter;
  private readonly failures: WindowCounter;

  constructor(settings: TokenRateLimitSettings, store?: RateLimitStore) {
    this.requests = new WindowCounter('token-requests', settings.perAddress, settings.windowSeconds, store);
    this.failures = new WindowCounter('token-failures', settings.perAccount, settings.windowSeconds, store);
  }

  /** Counts one token request from `address`; 0 when allowed, else the seconds until it may try again. */
  async countRequest(address: string): Promise<number> {
    const count = await this.requests.consume(address);
    return count.allowed ? 0 : count.resetSeconds;
  }

  /** Seconds until `account` may try again from `address` after too many failures, else 0. Counts nothing. */
  failuresRetryAfter(account: string, address: string): Promise<number> {
    return this.failures.retryAfter(failureKey(account, address));
  }

  /** Counts one failed attempt of `account` from `address`. */
  recordFailure(account: string, address: string): Promise<void> {
    return this.failures.add(failureKey(account, address));
  }
}

const failureKey = (account: string, address: string) => createHash('sha256').update(`${account}|${address}`).digest('base64url');

import { createHash } from 'node:crypto';
import { WindowCounter } from '../../../lib/rate-limit/window-counter.js';
import type { RateLimitStore } from '../../../lib/rate-limit/redis-store.js';
import { KnownAddresses } from './known-addresses.js';

export interface TokenRateLimitSettings {
  perAccount: number;
  /** Failed attempts per account from all addresses together, except those it signed in from. */
  perAccountTotal: number;
  perAddress: number;
  windowSeconds: number;
}

/**
 * The token endpoint's limits: every token request per client address; failed attempts per
 * account and address; and failed attempts per account from all addresses together (guessing
 * spread over many addresses), which does not apply to an address the account signed in from
 * within KNOWN_FOR_SECONDS, so failing on purpose cannot lock the owner out. Counted in Redis when a store is given, so every auth replica shares one
 * allowance; in the process while Redis is down (each replica then allows its own, documented in
 * docs/rate-limits.md). Account names are hashed into the keys: no e-mail address sits in Redis.
 */
export class TokenRateLimits {
  private readonly requests: WindowCounter;
  private readonly failures: WindowCounter;
  private readonly accountFailures: WindowCounter;
  private readonly known: KnownAddresses;

  constructor(settings: TokenRateLimitSettings, store?: RateLimitStore) {
    this.requests = new WindowCounter('token-requests', settings.perAddress, settings.windowSeconds, store);
    this.failures = new WindowCounter('token-failures', settings.perAccount, settings.windowSeconds, store);
    this.accountFailures = new WindowCounter('token-account-failures', settings.perAccountTotal, settings.windowSeconds, store);
    this.known = new KnownAddresses(store);
  }

  /** Counts one token request from `address`; 0 when allowed, else the seconds until it may try again. */
  async countRequest(address: string): Promise<number> {
    const count = await this.requests.consume(address);
    return count.allowed ? 0 : count.resetSeconds;
  }

  /** Seconds until `account` may try again from `address` after too many failures, else 0. Counts nothing. */
  async failuresRetryAfter(account: string, address: string): Promise<number> {
    const fromHere = await this.failures.retryAfter(hash(account, address));
    if (fromHere > 0) return fromHere;
    const total = await this.accountFailures.retryAfter(hash(account));
    return total > 0 && !(await this.known.has(hash(account, address))) ? total : 0;
  }

  /** Counts one failed attempt of `account` from `address`. */
  async recordFailure(account: string, address: string): Promise<void> {
    await Promise.all([this.failures.add(hash(account, address)), this.accountFailures.add(hash(account))]);
  }

  /** `account` signed in from `address`: the account-wide limit no longer applies to it. */
  recordSuccess(account: string, address: string): Promise<void> {
    return this.known.remember(hash(account, address));
  }
}

/** Keys hold no e-mail address or client id, only a digest. */
const hash = (...parts: string[]) => createHash('sha256').update(parts.join('|')).digest('base64url');

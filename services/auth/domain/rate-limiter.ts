import { createHmac } from 'node:crypto';
import { WindowCounter } from '../../../lib/rate-limit/window-counter.js';
import type { RateLimitStore } from '../../../lib/rate-limit/redis-store.js';
import { addressGroup } from '../../../lib/address-group.js';
import { KnownAddresses, type SignInRecords } from './known-addresses.js';

export interface TokenRateLimitSettings {
  perAccount: number;
  /** Failed attempts per user account from all addresses together, except those it signed in from. */
  perAccountTotal: number;
  perAddress: number;
  windowSeconds: number;
  /** The per-address counts take an IPv6 client by this prefix (RATE_LIMIT_IPV6_PREFIX_LENGTH), as the gateway does. */
  ipv6PrefixLength: number;
}

/** Whose credentials a token request tries: a user (by guid once known, else the name tried) or an API client. */
export interface TokenAccount {
  kind: 'user' | 'client';
  id: string;
}

/**
 * The token endpoint's limits: every token request per client address; failed attempts per
 * account and address; and failed attempts per user account from all addresses together
 * (guessing spread over many addresses), which does not apply to an address (an IPv6 /64) the
 * account signed in from within KNOWN_FOR_SECONDS, so failing on purpose cannot lock the owner
 * out of where they already sign in. API clients have no account-wide limit: their secrets are
 * random, so it would only let anyone who knows a client id lock the client out.
 *
 * Counted in Redis when a store is given, so every auth replica shares one allowance; in the
 * process while Redis is down (each replica then allows its own, docs/rate-limits.md). Keys are
 * digests keyed with a server secret: no e-mail address, client id or client address can be
 * read back from them.
 */
export class TokenRateLimits {
  private readonly requests: WindowCounter;
  private readonly failures: WindowCounter;
  private readonly accountFailures: WindowCounter;
  private readonly known: KnownAddresses;
  private readonly keySecret: Buffer;
  private readonly ipv6PrefixLength: number;

  constructor(
    settings: TokenRateLimitSettings,
    signIns: SignInRecords,
    /** AUTH_RATE_LIMIT_SECRET: the keys' own secret is derived from it. */
    rateLimitSecret: string,
    store?: RateLimitStore,
  ) {
    this.keySecret = createHmac('sha256', rateLimitSecret).update('token rate-limit keys').digest();
    this.ipv6PrefixLength = settings.ipv6PrefixLength;
    this.requests = new WindowCounter('token-requests', settings.perAddress, settings.windowSeconds, store);
    this.failures = new WindowCounter('token-failures', settings.perAccount, settings.windowSeconds, store);
    this.accountFailures = new WindowCounter('token-account-failures', settings.perAccountTotal, settings.windowSeconds, store);
    this.known = new KnownAddresses(signIns);
  }

  /** Counts one token request from `address`; 0 when allowed, else the seconds until it may try again. */
  async countRequest(address: string): Promise<number> {
    const count = await this.requests.consume(this.client(address));
    return count.allowed ? 0 : count.resetSeconds;
  }

  /** Seconds until `account` may try again from `address` after too many failures, else 0. Counts nothing. */
  async failuresRetryAfter(account: TokenAccount, address: string): Promise<number> {
    const [fromHere, total] = await Promise.all([
      this.failures.retryAfter(this.digest(account, this.client(address))),
      account.kind === 'user' ? this.accountFailures.retryAfter(this.digest(account)) : 0,
    ]);
    if (fromHere > 0) return fromHere;
    return total > 0 && !(await this.known.has(this.digest(account, addressGroup(address)))) ? total : 0;
  }

  /** Counts one failed attempt of `account` from `address`. */
  async recordFailure(account: TokenAccount, address: string): Promise<void> {
    await Promise.all([
      this.failures.add(this.digest(account, this.client(address))),
      account.kind === 'user' ? this.accountFailures.add(this.digest(account)) : undefined,
    ]);
  }

  /** `account` signed in from `address`: the account-wide limit no longer applies there. */
  async recordSuccess(account: TokenAccount, address: string): Promise<void> {
    if (account.kind === 'user') await this.known.remember(this.digest(account, addressGroup(address)));
  }

  /** One client's part of an address: an IPv6 client holds a whole prefix. */
  private client(address: string): string {
    return addressGroup(address, this.ipv6PrefixLength);
  }

  private digest(account: TokenAccount, address?: string): string {
    const parts = [account.kind, account.id, ...(address === undefined ? [] : [address])];
    return createHmac('sha256', this.keySecret).update(parts.join('|')).digest('base64url');
  }
}

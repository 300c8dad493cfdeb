import type { KeyObject } from 'node:crypto';
import { keyFromJwk, type PublicJwk } from './keys.js';

export interface PublicKeyCacheOptions {
  /** Asks the auth service for its key set (GetSigningKeys, with a deadline). */
  fetch: () => Promise<PublicJwk[]>;
  /** How often start() fetches the set again in the background. */
  refreshMs: number;
  /** How long a fetched set is believed; older, no key of it verifies until it is fetched again. */
  maxAgeMs: number;
  /** At most one fetch per this interval for kids nobody knows (garbage tokens must not become a flood of fetches). */
  minRefetchMs: number;
  now?: () => number;
}

/**
 * The auth service's public keys as a process that checks tokens itself keeps them: fetched
 * every refreshMs in the background, believed for maxAgeMs, fetched again (one call at a time)
 * for a kid the set does not have. A new signing key is picked up at its first token; a
 * retired one stops verifying at the next fetch after the auth service dropped it. A failed
 * fetch keeps nothing new, and the old set still ages out.
 */
export class PublicKeyCache {
  private keys = new Map<string, KeyObject>();
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private lastAttempt = Number.NEGATIVE_INFINITY;
  private inFlight?: Promise<void>;
  private timer?: NodeJS.Timeout;
  private readonly now: () => number;

  constructor(private readonly options: PublicKeyCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  start(): void {
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.options.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The key of `kid` from a set that is still believed, without fetching; undefined otherwise. */
  current(kid: string): KeyObject | undefined {
    return this.isFresh() ? this.keys.get(kid) : undefined;
  }

  /** The key of `kid`, fetching the set when it is stale or lacks it (within minRefetchMs of the last try: no fetch). */
  async keyFor(kid: string): Promise<KeyObject | undefined> {
    const known = this.current(kid);
    if (known) return known;
    if (this.isFresh() && this.now() - this.lastAttempt < this.options.minRefetchMs) return undefined;
    await this.refresh();
    return this.current(kid);
  }

  /** Fetches the set now (joining a fetch already under way); never throws. */
  refresh(): Promise<void> {
    this.inFlight ??= this.fetchOnce().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async fetchOnce(): Promise<void> {
    this.lastAttempt = this.now();
    try {
      const jwks = await this.options.fetch();
      const keys = new Map<string, KeyObject>();
      for (const jwk of jwks) {
        const key = keyFromJwk(jwk);
        if (key) keys.set(jwk.kid, key);
      }
      this.keys = keys;
      this.fetchedAt = this.now();
    } catch {
      // The auth service is unreachable: callers ask it instead, as they would without keys.
    }
  }

  private isFresh(): boolean {
    return this.now() - this.fetchedAt <= this.options.maxAgeMs;
  }
}

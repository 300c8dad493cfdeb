import { status } from '@grpc/grpc-js';
import type { Request } from 'express';
import { isServiceError, readErrorDetails } from '../lib/grpc/errors.js';
import type { RateLimitStore } from '../lib/rate-limit/redis-store.js';
import { WindowCounter } from '../lib/rate-limit/window-counter.js';
import { ProblemError } from './problem.js';
import { tokenKey } from './rate-limits.js';

/** Wrong coupon codes one access token may send per window before its orders with a code are refused (docs/coupons.md "Guessing"). */
export const WRONG_CODES_PER_TOKEN = 10;
export const WRONG_CODES_WINDOW_SECONDS = 600;

/**
 * Wrong coupon codes counted per access token (its SHA-256, as the API's rate limits count it),
 * in Redis when the gateway has a store so every replica shares the count: past the limit an
 * order with a coupon code is refused 429 + Retry-After before it reaches the service, so short
 * codes cannot be found by trying. An order without a code is never held back by it.
 */
export class CouponTries {
  private readonly wrong: WindowCounter;

  constructor(store?: RateLimitStore) {
    this.wrong = new WindowCounter('coupon-wrong', WRONG_CODES_PER_TOKEN, WRONG_CODES_WINDOW_SECONDS, store);
  }

  /** Sends an order that names a coupon code, unless its token tried too many wrong ones; counts the answer when the code was wrong. */
  async send<T>(req: Request, hasCode: boolean, call: () => Promise<T>): Promise<T> {
    const key = tokenKey(req);
    if (!hasCode || key === undefined) return call();
    const wait = await this.wrong.retryAfter(key);
    if (wait > 0) {
      throw new ProblemError({
        status: 429,
        detail: `Too many wrong coupon codes for this access token: at most ${WRONG_CODES_PER_TOKEN} per ${WRONG_CODES_WINDOW_SECONDS} seconds; retry after ${wait} seconds.`,
        retryAfterSeconds: wait,
      });
    }
    try {
      return await call();
    } catch (err) {
      if (isWrongCode(err)) await this.wrong.add(key);
      throw err;
    }
  }
}

/** The service's answer to a code that does not work: INVALID_ARGUMENT naming coupon_code. */
const isWrongCode = (err: unknown) =>
  isServiceError(err) && err.code === status.INVALID_ARGUMENT && (readErrorDetails(err).fieldViolations ?? []).some((v) => v.field === 'coupon_code');

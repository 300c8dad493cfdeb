import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import type { NextFunction, Request, Response } from 'express';
import { addressGroup } from '../lib/address-group.js';
import type { Config } from '../lib/config.js';
import { bearerTokenOf } from '../lib/grpc/caller.js';
import { claimedSessionId } from '../lib/tokens/verify.js';
import type { Logger } from '../lib/logger.js';
import type { RateLimitStore } from '../lib/rate-limit/redis-store.js';
import { WindowCounter, type WindowCount } from '../lib/rate-limit/window-counter.js';
import type { Problem } from './problem.js';

/**
 * Health probes are never counted nor refused: an orchestrator's probe must not be taken for a
 * busy client (docs/rate-limits.md). Every other path is limited, whatever router answers it.
 */
export const UNLIMITED_PATHS: ReadonlySet<string> = new Set(['/healthz', '/livez', '/readyz']);

type PolicyName = 'address' | 'token';

interface Policy {
  name: PolicyName;
  counter: WindowCounter;
  /** The partition the request counts in, or undefined when the policy does not apply to it. */
  keyOf(req: Request): string | undefined;
}

/** What the client is told the policy is called, and of what. */
const SUBJECT: Record<PolicyName, string> = { address: 'client address', token: 'access token' };

/**
 * The public API's rate limits (draft-ietf-httpapi-ratelimit-headers-11): per client address
 * (as express derives it under TRUST_PROXY) and per bearer token (its SHA-256, never the token),
 * counted in Redis when a store is given so every gateway replica shares one allowance. Every
 * answer carries RateLimit-Policy and RateLimit; over a limit the answer is 429 + Retry-After,
 * given by `refuse` (a problem, or an RFC 6749 error on the token endpoint).
 */
export function rateLimits(
  config: Pick<Config, 'RATE_LIMIT_PER_ADDRESS' | 'RATE_LIMIT_PER_TOKEN' | 'RATE_LIMIT_WINDOW_SECONDS' | 'RATE_LIMIT_IPV6_PREFIX_LENGTH'>,
  store: RateLimitStore | undefined,
  logger: Pick<Logger, 'warn'>,
  refuse: (req: Request, res: Response, problem: Problem) => void,
) {
  const window = config.RATE_LIMIT_WINDOW_SECONDS;
  const policies: Policy[] = [];
  if (config.RATE_LIMIT_PER_ADDRESS) {
    const counter = new WindowCounter('api-address', config.RATE_LIMIT_PER_ADDRESS, window, store);
    policies.push({ name: 'address', counter, keyOf: (req) => addressKey(req, config.RATE_LIMIT_IPV6_PREFIX_LENGTH) });
  }
  if (config.RATE_LIMIT_PER_TOKEN) {
    policies.push({ name: 'token', counter: new WindowCounter('api-token', config.RATE_LIMIT_PER_TOKEN, window, store), keyOf: tokenKey });
  }

  return async (req: Request, res: Response, next: NextFunction) => {
    if (!policies.length || UNLIMITED_PATHS.has(req.path)) return next();
    const applied = policies.flatMap((policy) => {
      const key = policy.keyOf(req);
      return key === undefined ? [] : [{ policy, key }];
    });
    let counts: WindowCount[];
    try {
      counts = await Promise.all(applied.map(({ policy, key }) => policy.counter.consume(key)));
    } catch (err) {
      // Counting never fails a request (the counters fall back to memory); if it does anyway, let it through.
      logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'rate limit not counted');
      return next();
    }
    res.setHeader('RateLimit-Policy', applied.map(({ policy }) => `"${policy.name}";q=${policy.counter.limit};w=${window}`).join(', '));
    res.setHeader('RateLimit', applied.map(({ policy }, i) => `"${policy.name}";r=${counts[i]!.remaining};t=${counts[i]!.resetSeconds}`).join(', '));
    const refused = applied.map(({ policy }, i) => ({ policy, count: counts[i]! })).filter(({ count }) => !count.allowed);
    if (!refused.length) return next();
    const retryAfter = Math.max(...refused.map(({ count }) => count.resetSeconds));
    const { policy } = refused[0]!;
    res.setHeader('Retry-After', String(retryAfter));
    refuse(req, res, {
      status: 429,
      detail: `Too many requests for this ${SUBJECT[policy.name]}: at most ${policy.counter.limit} per ${window} seconds; retry after ${retryAfter} seconds.`,
      retryAfterSeconds: retryAfter,
    });
  };
}

/**
 * The client address as the gateway derives it (TRUST_PROXY), an IPv6 one cut to its prefix
 * (one client holds a whole /64); anything but an address is hashed, so no key grows with a header.
 */
function addressKey(req: Request, ipv6PrefixLength: number): string {
  const address = req.ip ?? '';
  return isIP(address) ? addressGroup(address, ipv6PrefixLength) : `other:${sha256(address)}`;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

/**
 * A bearer token's partition: its session (issue 32, item 9), so every token of one session
 * (each spelling, and each new access token a refresh gives it) draws on one allowance. The
 * gateway checks no signature: the session is the token's `sid` claim as written, which only
 * whoever saw a token of that session knows (a random GUID). Anything else is counted by its
 * own text. Hashed either way, so no token or session id is ever a Redis key (nor logged).
 */
export function tokenKey(req: Request): string | undefined {
  const token = bearerTokenOf(req.get('authorization'));
  if (!token) return undefined;
  const session = claimedSessionId(token);
  return session ? `session:${sha256(session)}` : sha256(token);
}

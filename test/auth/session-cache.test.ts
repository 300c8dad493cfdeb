import jwt from 'jsonwebtoken';
import { createClient } from 'redis';

type RedisClient = ReturnType<typeof createClient>;
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, passwordToken, request, type Account } from '../support/http.js';
import { PrivateRedis, waitFor } from '../support/redis-server.js';
import type { TestStack } from '../support/stack.js';
import { startSuite } from '../support/suite.js';
import { TcpProxy } from '../support/tcp-proxy.js';

/**
 * Redis is a cache in front of the sessions table: these tests run their own redis-server
 * (behind a TCP proxy that can cut it off) so that they can flush, partition and kill it
 * without touching the shared one.
 */
describe('session cache in Redis', () => {
  let redis: PrivateRedis;
  let proxy: TcpProxy;
  let stack: TestStack;
  let account: Account;
  const prefix = 'cachetest:';

  const me = async (token: string) => {
    const started = Date.now();
    const response = await request(`${stack.authUrl}/users/me`, { headers: bearer(token) });
    return { status: response.status, ms: Date.now() - started };
  };
  const revoke = (token: string) => request(`${stack.authUrl}/tokens/revoke`, { method: 'POST', json: { token } });
  const sessionKey = (token: string) => `${prefix}session:${(jwt.decode(token) as { sid: string }).sid}`;
  const withRedis = async <T>(fn: (client: RedisClient) => Promise<T>) => {
    const client: RedisClient = createClient({ url: redis.url });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.close();
    }
  };

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    proxy = await TcpProxy.start(redis.port);
    ({ stack, account } = await startSuite({ env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}`, REDIS_KEY_PREFIX: prefix, REDIS_COMMAND_TIMEOUT_MS: '200' } }));
  });
  afterAll(async () => {
    await stack?.stop();
    await proxy?.close();
    await redis?.stop();
  });

  it('caches a checked session in Redis with a TTL', async () => {
    const token = (await passwordToken(stack, account.email, account.password)).access_token;
    expect((await me(token)).status).toBe(200);
    await waitFor(() => withRedis(async (c) => (await c.exists(sessionKey(token))) === 1), 2000);
    const ttl = await withRedis((c) => c.ttl(sessionKey(token)));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60);
  });

  it('refuses a revoked token at once and still after FLUSHALL', async () => {
    const token = (await passwordToken(stack, account.email, account.password)).access_token;
    expect((await me(token)).status).toBe(200);
    expect((await revoke(token)).status).toBe(200);
    expect((await me(token)).status).toBe(401);
    await withRedis((c) => c.flushAll());
    expect((await me(token)).status).toBe(401);
    expect((await me(account.accessToken)).status).toBe(200);
  });

  it('answers correctly and quickly while Redis is cut off, and a revocation made then holds after', async () => {
    const valid = (await passwordToken(stack, account.email, account.password)).access_token;
    const toRevoke = (await passwordToken(stack, account.email, account.password)).access_token;
    // Both sessions are cached as live before the partition.
    expect((await me(valid)).status).toBe(200);
    expect((await me(toRevoke)).status).toBe(200);
    await waitFor(() => withRedis(async (c) => (await c.exists(sessionKey(toRevoke))) === 1), 2000);

    proxy.cut();
    try {
      expect((await revoke(toRevoke)).status).toBe(200);
      const revoked = await me(toRevoke);
      expect(revoked.status).toBe(401);
      const live = await me(valid);
      expect(live.status).toBe(200);
      expect(live.ms).toBeLessThan(2000);
    } finally {
      proxy.heal();
    }
    // The stale "live" entry is still in Redis: it must never be believed again,
    // neither before nor after the service has reconnected.
    for (let i = 0; i < 5; i++) expect((await me(toRevoke)).status).toBe(401);
    // A fresh session appearing in Redis proves the service has reconnected.
    const fresh = (await passwordToken(stack, account.email, account.password)).access_token;
    await waitFor(async () => {
      await me(fresh);
      return withRedis(async (c) => (await c.exists(sessionKey(fresh))) === 1);
    }, 10_000, 200);
    expect((await me(toRevoke)).status).toBe(401);
    expect((await me(valid)).status).toBe(200);
    const cached = await withRedis((c) => c.get(sessionKey(toRevoke)));
    // An entry is `<MAC>.<JSON>` (services/auth/session-cache.ts).
    expect(cached && JSON.parse(cached.slice(cached.indexOf('.') + 1)).revoked).toBe(true);
  });

  it('keeps answering while Redis is down and uses it again when it is back, without a restart', async () => {
    const before = (await passwordToken(stack, account.email, account.password)).access_token;
    expect((await me(before)).status).toBe(200);

    await redis.stop();
    const duringLogin = (await passwordToken(stack, account.email, account.password)).access_token;
    const checks = await Promise.all([me(before), me(duringLogin)]);
    expect(checks.map((c) => c.status)).toEqual([200, 200]);
    for (const check of checks) expect(check.ms).toBeLessThan(2000);
    expect((await revoke(before)).status).toBe(200);
    expect((await me(before)).status).toBe(401);

    await redis.resume();
    const after = (await passwordToken(stack, account.email, account.password)).access_token;
    await waitFor(async () => {
      await me(after);
      return withRedis(async (c) => (await c.exists(sessionKey(after))) === 1);
    }, 10_000, 200);
    expect((await me(before)).status).toBe(401);
    expect((await me(duringLogin)).status).toBe(200);
  });
});

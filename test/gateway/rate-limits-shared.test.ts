import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, request, signUpAndLogin, type Account } from '../support/http.js';
import { PrivateRedis, waitFor } from '../support/redis-server.js';
import { startTestStack, type TestStack } from '../support/stack.js';
import { generatePrivateKey } from '../../lib/tokens/keys.js';

/**
 * Two whole stacks (two gateways, two auth services) on one private Redis, as replicas are:
 * the API's limits and the token endpoint's are one allowance, not two; with Redis down or
 * hanging every process still answers, counting in its own memory. Both backends.
 */
const from = (address: string, extra: Record<string, string> = {}) => ({ 'x-forwarded-for': address, ...extra });
const left = (header: string | null, policy: string) => Number(new RegExp(`"${policy}";r=(\\d+)`).exec(header ?? '')?.[1]);

describe('rate limits shared by replicas through Redis', () => {
  let redis: PrivateRedis;
  let a: TestStack;
  let b: TestStack;
  let account: Account;
  const prefix = `test:rl-${randomBytes(4).toString('hex')}:`;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    const env = {
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: prefix,
      RATE_LIMIT_PER_ADDRESS: '6',
      RATE_LIMIT_PER_TOKEN: '1000',
      TOKEN_RATE_LIMIT_PER_ADDRESS: '4',
      TOKEN_RATE_LIMIT_PER_ACCOUNT: '2',
      TOKEN_RATE_LIMIT_PER_ACCOUNT_TOTAL: '3',
      TRUST_PROXY: 'loopback',
      // Replicas share the rate-limit secret, which keys the token limits' Redis keys, and the signing key.
      AUTH_RATE_LIMIT_SECRET: randomBytes(32).toString('hex'),
      AUTH_SIGNING_KEY: generatePrivateKey(),
    };
    [a, b] = await Promise.all([startTestStack(env), startTestStack(env)]);
    account = await signUpAndLogin(a);
  });
  afterAll(async () => {
    redis?.thaw();
    await Promise.all([a?.stop(), b?.stop()]);
    await redis?.stop();
  });

  /** Waits until both gateways count in Redis again (after an outage), so tests hold in any order. */
  async function sharedAgain(): Promise<void> {
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      for (const stack of [a, b]) {
        await waitFor(async () => {
          const address = `192.0.2.${Math.floor(Math.random() * 250) + 1}`;
          await request(`${stack.baseUrl}/`, { headers: from(address) });
          return (await client.exists(`${prefix}ratelimit:api-address:${address}`)) === 1;
        }, 10_000, 100);
      }
    } finally {
      await client.close();
    }
  }

  it('two gateways share one allowance per address', async () => {
    const address = '198.51.100.1';
    const remaining: number[] = [];
    for (const stack of [a, a, a, b, b, b]) {
      const answer = await request(`${stack.baseUrl}/`, { headers: from(address) });
      expect(answer.status).toBe(200);
      remaining.push(left(answer.headers.get('ratelimit'), 'address'));
    }
    expect(remaining).toEqual([5, 4, 3, 2, 1, 0]);
    expect((await request(`${a.baseUrl}/`, { headers: from(address) })).status).toBe(429);
    expect((await request(`${b.baseUrl}/`, { headers: from(address) })).status).toBe(429);
  });

  it('two auth services share the token endpoint limits: per address, and failed attempts per account', async () => {
    const tokenRequest = (stack: TestStack, address: string, username: string) =>
      request(`${stack.authUrl}/tokens`, { method: 'POST', headers: from(address), json: { grant_type: 'password', username, password: 'wrong password' } });
    const perAddress: number[] = [];
    for (const [i, stack] of [a, b, a, b].entries()) perAddress.push((await tokenRequest(stack, '198.51.100.2', `nobody${i}@example.com`)).status);
    expect(perAddress).toEqual([400, 400, 400, 400]);
    const refused = await tokenRequest(a, '198.51.100.2', 'nobody9@example.com');
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe('temporarily_unavailable');

    // Accounts are counted by user id, and the two stacks share Redis but not a database (real
    // replicas share both): an account neither knows is counted by its name on both. 400 = past
    // the limits, a wrong password; 429 = refused before the password is looked at.
    const ghost = `ghost-${randomBytes(4).toString('hex')}@example.com`;
    expect((await tokenRequest(a, '198.51.100.3', ghost)).status).toBe(400);
    expect((await tokenRequest(b, '198.51.100.3', ghost)).status).toBe(400);
    const locked = await tokenRequest(a, '198.51.100.3', ghost);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('two auth services share the account-wide limit on failed attempts', async () => {
    const ghost = `ghost-${randomBytes(4).toString('hex')}@example.com`;
    const attempt = (stack: TestStack, address: string) =>
      request(`${stack.authUrl}/tokens`, { method: 'POST', headers: from(address), json: { grant_type: 'password', username: ghost, password: 'wrong password' } });
    const guesses: number[] = [];
    for (const [i, stack] of [a, b, a].entries()) guesses.push((await attempt(stack, `198.51.100.${50 + i}`)).status);
    expect(guesses).toEqual([400, 400, 400]);
    expect((await attempt(b, '198.51.100.60')).status, 'a fourth address, on the other replica').toBe(429);
  });

  it('keeps no token, e-mail address or password in Redis keys', async () => {
    await request(`${a.baseUrl}/event`, { headers: from('198.51.100.5', bearer(account.accessToken)) });
    await request(`${b.authUrl}/tokens`, { method: 'POST', headers: from('198.51.100.5'), json: { grant_type: 'password', username: account.email, password: 'wrong password' } });
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      const keys: string[] = [];
      for await (const batch of client.scanIterator({ MATCH: `${prefix}ratelimit:*`, COUNT: 500 })) keys.push(...batch);
      expect(keys.filter((key) => key.includes('api-token:')).length).toBeGreaterThan(0);
      expect(keys.filter((key) => key.includes('token-failures:')).length).toBeGreaterThan(0);
      for (const secret of [account.accessToken, account.accessToken.split('.').at(-1)!, account.email, account.password, account.refreshToken]) {
        expect(keys.filter((key) => key.includes(secret))).toEqual([]);
      }
    } finally {
      await client.close();
    }
  });

  it('with Redis down every process still answers, limiting in its own memory', async () => {
    await redis.stop();
    try {
      const address = '198.51.100.4';
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) {
        const started = Date.now();
        const answer = await request(`${a.baseUrl}/`, { headers: from(address) });
        statuses.push(answer.status);
        // A Redis that is down costs nothing: the client knows it is not connected (generous bound for a loaded machine).
        expect(Date.now() - started).toBeLessThan(1000);
        if (answer.status === 200) expect(left(answer.headers.get('ratelimit'), 'address')).toBe(5 - i);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429]);
      // The token endpoint too: a wrong password is still a 400, not a 5xx.
      const token = await request(`${b.authUrl}/tokens`, { method: 'POST', headers: from(address), json: { grant_type: 'password', username: account.email, password: 'wrong password' } });
      expect(token.status).toBe(400);
    } finally {
      await redis.resume();
      await sharedAgain();
    }
  });

  it('with Redis hanging a request waits at most about REDIS_COMMAND_TIMEOUT_MS for its count', async () => {
    redis.freeze();
    try {
      const started = Date.now();
      const answer = await request(`${b.baseUrl}/`, { headers: from('198.51.100.6') });
      expect(answer.status).toBe(200);
      expect(left(answer.headers.get('ratelimit'), 'address')).toBe(5);
      // The timeout is 250 ms; the bound leaves room for a loaded CI machine.
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      redis.thaw();
      await sharedAgain();
    }
  });
});

/**
 * Issue 32, item 3: Redis cannot grant what the database did not. Every process with
 * REDIS_URL (the gateway, the webhook worker) could write the auth service's session cache;
 * an entry it believed granted any token any company. Now an entry carries a MAC under a key
 * only the auth service holds, bound to its session id: a forged entry, an altered one and one
 * copied from another session are ignored and the session is read from the database. Against
 * a real redis-server of this test's own.
 */
import jwt from 'jsonwebtoken';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvent } from '../support/api.js';
import { bearer, passwordToken, request, signUpAndLogin, type Account } from '../support/http.js';
import { PrivateRedis, waitFor } from '../support/redis-server.js';
import type { TestStack } from '../support/stack.js';
import { startSuite } from '../support/suite.js';

type RedisClient = ReturnType<typeof createClient>;

describe('a session cache entry Redis holds but the auth service did not write', () => {
  let redis: PrivateRedis;
  let client: RedisClient;
  let stack: TestStack;
  let attacker: Account;
  let victim: Account;
  let victimEvent: string;
  const prefix = 'forgerytest:';

  const sessionKey = (token: string) => `${prefix}session:${(jwt.decode(token) as { sid: string }).sid}`;
  /** A read of the victim's event, naming the victim's company: only a session covering it may. */
  const readVictimEvent = (token: string) => request(`${stack.baseUrl}/event/${victimEvent}`, { headers: bearer(token, { Company: victim.companyId }) });
  const freshToken = async () => (await passwordToken(stack, attacker.email, attacker.password)).access_token;
  /** What an entry granting the attacker's session the victim's company too looks like. */
  const grantAll = () => ({ userId: attacker.user.guid, clientId: null, companyIds: [attacker.companyId, victim.companyId], expiresAt: Date.now() + 3_600_000, revoked: false });

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    client = createClient({ url: redis.url });
    await client.connect();
    ({ stack, account: attacker } = await startSuite({ env: { REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix } }));
    victim = await signUpAndLogin(stack);
    victimEvent = (await createEvent({ stack, token: victim.accessToken }, { name: 'Victim event' })).guid;
  });
  afterAll(async () => {
    await client?.close();
    await stack?.stop();
    await redis?.stop();
  });

  it('a forged entry (plain JSON, as any Redis client can write) grants nothing', async () => {
    const token = await freshToken();
    await client.set(sessionKey(token), JSON.stringify(grantAll()), { EX: 60 });
    const read = await readVictimEvent(token);
    expect(read.status, read.text).toBe(401);
    // The session itself is read from the database: the token works for its own company.
    expect((await request(`${stack.baseUrl}/event`, { headers: bearer(token) })).status).toBe(200);
  });

  it('a forged entry with a made-up MAC grants nothing', async () => {
    const token = await freshToken();
    await client.set(sessionKey(token), `${Buffer.alloc(32, 7).toString('base64url')}.${JSON.stringify(grantAll())}`, { EX: 60 });
    expect((await readVictimEvent(token)).status).toBe(401);
  });

  it('an entry the auth service wrote, altered to add a company, grants nothing', async () => {
    const token = await freshToken();
    expect((await request(`${stack.authUrl}/users/me`, { headers: bearer(token) })).status).toBe(200);
    await waitFor(async () => (await client.exists(sessionKey(token))) === 1, 5000);
    const sealed = (await client.get(sessionKey(token)))!;
    const dot = sealed.indexOf('.');
    const altered = { ...JSON.parse(sealed.slice(dot + 1)), companyIds: [attacker.companyId, victim.companyId] };
    await client.set(sessionKey(token), `${sealed.slice(0, dot)}.${JSON.stringify(altered)}`, { KEEPTTL: true });
    expect((await readVictimEvent(token)).status).toBe(401);
  });

  it('an entry the auth service wrote for another session grants nothing to this one', async () => {
    // The victim's own session entry, sealed by the auth service, copied to the attacker's key.
    const victimToken = (await passwordToken(stack, victim.email, victim.password)).access_token;
    expect((await request(`${stack.authUrl}/users/me`, { headers: bearer(victimToken) })).status).toBe(200);
    await waitFor(async () => (await client.exists(sessionKey(victimToken))) === 1, 5000);
    const token = await freshToken();
    await client.set(sessionKey(token), (await client.get(sessionKey(victimToken)))!, { EX: 60 });
    expect((await readVictimEvent(token)).status).toBe(401);
    expect((await request(`${stack.baseUrl}/event`, { headers: bearer(token) })).status).toBe(200);
  });

  it('the entries the auth service writes are still used: a revoked session stays refused from the cache', async () => {
    const token = await freshToken();
    expect((await request(`${stack.authUrl}/users/me`, { headers: bearer(token) })).status).toBe(200);
    expect((await request(`${stack.authUrl}/tokens/revoke`, { method: 'POST', json: { token } })).status).toBe(200);
    expect((await request(`${stack.authUrl}/users/me`, { headers: bearer(token) })).status).toBe(401);
  });
});

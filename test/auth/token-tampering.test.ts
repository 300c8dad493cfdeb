import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, request, type Account } from '../support/http.js';
import type { TestStack } from '../support/stack.js';
import { startSuite } from '../support/suite.js';
import { withLowS } from '../../lib/tokens/canonical.js';

describe('access tokens that must be refused', () => {
  let stack: TestStack;
  let account: Account;
  let claims: { sid: string; sub: string };
  let signingKey: KeyObject;
  let kid: string;

  beforeAll(async () => {
    ({ stack, account } = await startSuite());
    claims = jwt.decode(account.accessToken) as { sid: string; sub: string };
    signingKey = createPrivateKey({ key: Buffer.from(stack.env.AUTH_SIGNING_KEY!, 'base64'), format: 'der', type: 'pkcs8' });
    kid = (jwt.decode(account.accessToken, { complete: true })!.header.kid)!;
  });
  afterAll(() => stack?.stop());

  const expectRefused = async (token: string) => {
    const response = await request(`${stack.authUrl}/users/me`, { headers: bearer(token) });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="ticketing", error="invalid_token"/);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
  };

  // In the one spelling the auth service signs (low s: lib/tokens/canonical.ts), so each token is refused for its own reason only.
  const sign = (payload: object, options: jwt.SignOptions, key = signingKey) =>
    withLowS(jwt.sign(payload, key, { algorithm: 'ES256', keyid: kid, issuer: 'ticketing-auth', audience: 'ticketing-api', subject: claims.sub, ...options }));

  it('accepts the genuine token (control)', async () => {
    expect((await request(`${stack.authUrl}/users/me`, { headers: bearer(account.accessToken) })).status).toBe(200);
    expect((await request(`${stack.authUrl}/users/me`, { headers: bearer(sign({ sid: claims.sid }, { expiresIn: 60 })) })).status).toBe(200);
  });

  it('refuses a token whose payload was changed', async () => {
    const [header, payload, signature] = account.accessToken.split('.');
    const changed = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    changed.sub = '00000000-0000-4000-8000-000000000000';
    await expectRefused(`${header}.${Buffer.from(JSON.stringify(changed)).toString('base64url')}.${signature}`);
  });

  it('refuses a token whose payload is no longer JSON, at the auth service and at the ticket service (found by the fuzz: a 500)', async () => {
    const [header, payload, signature] = account.accessToken.split('.');
    const garbled = `${header}.0${payload}.${signature}`;
    await expectRefused(garbled);
    const ticketRead = await request(`${stack.baseUrl}/ticket/00000000-0000-1000-8000-000000000000`, { headers: { ...bearer(garbled), 'If-Match': '*' } });
    expect(ticketRead.status).toBe(401);
  });

  it('refuses a token with a broken signature', async () => {
    const flipped = account.accessToken.slice(0, -2) + (account.accessToken.endsWith('AA') ? 'BB' : 'AA');
    await expectRefused(flipped);
  });

  it('refuses alg: none', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify({ ...(jwt.decode(account.accessToken) as object) })).toString('base64url');
    await expectRefused(`${header}.${payload}.`);
  });

  it('refuses HMAC keyed with the public key (algorithm confusion) and another curve', async () => {
    const publicPem = createPublicKey(signingKey).export({ type: 'spki', format: 'pem' }).toString();
    for (const algorithm of ['HS256', 'HS512'] as const) {
      await expectRefused(jwt.sign({ sid: claims.sid }, publicPem, { algorithm, keyid: kid, issuer: 'ticketing-auth', audience: 'ticketing-api', subject: claims.sub, expiresIn: 60 }));
    }
    const p384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).privateKey;
    await expectRefused(jwt.sign({ sid: claims.sid }, p384, { algorithm: 'ES384', keyid: kid, issuer: 'ticketing-auth', audience: 'ticketing-api', subject: claims.sub, expiresIn: 60 }));
  });

  it('refuses an expired token', async () => {
    await expectRefused(sign({ sid: claims.sid, exp: Math.floor(Date.now() / 1000) - 60 }, {}));
  });

  it('refuses a token without exp', async () => {
    await expectRefused(sign({ sid: claims.sid }, {}));
  });

  it('refuses the wrong audience and the wrong issuer', async () => {
    await expectRefused(sign({ sid: claims.sid }, { expiresIn: 60, audience: 'someone-else' }));
    await expectRefused(sign({ sid: claims.sid }, { expiresIn: 60, issuer: 'someone-else' }));
  });

  it('refuses a token signed with another key, under our kid or none', async () => {
    const another = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    await expectRefused(sign({ sid: claims.sid }, { expiresIn: 60 }, another));
    await expectRefused(jwt.sign({ sid: claims.sid }, signingKey, { algorithm: 'ES256', issuer: 'ticketing-auth', audience: 'ticketing-api', subject: claims.sub, expiresIn: 60 }));
  });

  it('refuses a well-signed token for a session that does not exist or of another user', async () => {
    await expectRefused(sign({ sid: '00000000-0000-4000-8000-000000000000' }, { expiresIn: 60 }));
    await expectRefused(sign({ sid: claims.sid }, { expiresIn: 60, subject: '00000000-0000-4000-8000-000000000000' }));
  });

  it('refuses garbage and other schemes', async () => {
    await expectRefused('not.a.jwt');
    const basic = await request(`${stack.authUrl}/users/me`, { headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` } });
    expect(basic.status).toBe(401);
    expect(basic.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });
});

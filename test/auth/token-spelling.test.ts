/**
 * Issue 32, item 9: one access token, one spelling. A token's signature with s replaced by
 * n - s, or any part re-spelled in base64url with other unused bits, is refused (401) by the
 * auth service and the ticket service alike; every token issued has the low s; and the
 * per-token rate limit counts a session, so neither another spelling nor a refreshed token gets
 * a fresh allowance.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCanonicalToken } from '../../lib/tokens/canonical.js';
import { bearer, passwordToken, request, signUpAndLogin, type Account } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/stack.js';

const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

const sOf = (token: string) => BigInt(`0x${Buffer.from(token.split('.')[2]!, 'base64url').subarray(32).toString('hex')}`);

/** The same token with s replaced by n - s: a signature that verifies as well. */
function highS(token: string): string {
  const [header, payload, encoded] = token.split('.');
  const signature = Buffer.from(encoded!, 'base64url');
  const flipped = Buffer.from((N - sOf(token)).toString(16).padStart(64, '0'), 'hex');
  return `${header}.${payload}.${Buffer.concat([signature.subarray(0, 32), flipped]).toString('base64url')}`;
}

/** Every other spelling of a part's last character that decodes to the same bytes (unused low bits set). */
function otherSpellings(part: string): string[] {
  const unusedBits = (part.length * 6) % 8;
  if (unusedBits === 0) return [];
  const last = ALPHABET.indexOf(part.at(-1)!);
  return Array.from({ length: 2 ** unusedBits - 1 }, (_, i) => `${part.slice(0, -1)}${ALPHABET[last + i + 1]}`);
}

/** The token with one part re-spelled, each way it can be. */
function respelled(token: string): string[] {
  const parts = token.split('.');
  return parts.flatMap((part, i) => otherSpellings(part).map((spelling) => parts.map((p, j) => (j === i ? spelling : p)).join('.')));
}

describe('one token, one spelling', () => {
  let stack: TestStack;
  let account: Account;
  beforeAll(async () => {
    stack = await startTestStack();
    account = await signUpAndLogin(stack);
  });
  afterAll(() => stack?.stop());

  const me = (token: string) => request(`${stack.authUrl}/users/me`, { headers: bearer(token) });
  const events = (token: string) => request(`${stack.baseUrl}/event`, { headers: bearer(token) });

  it('every token issued has the low s and canonical parts', async () => {
    for (let i = 0; i < 16; i++) {
      const { access_token } = await passwordToken(stack, account.email, account.password);
      expect(isCanonicalToken(access_token)).toBe(true);
      expect(sOf(access_token) <= N / 2n).toBe(true);
    }
  });

  it('the high-s twin of a token is refused by the auth service and the ticket service', async () => {
    const token = account.accessToken;
    expect((await me(token)).status).toBe(200);
    expect((await events(token)).status).toBe(200);
    const twin = highS(token);
    expect(twin).not.toBe(token);
    expect((await me(twin)).status).toBe(401);
    expect((await events(twin)).status).toBe(401);
  });

  it('a token re-spelled in base64url is refused', async () => {
    const spellings = respelled(account.accessToken);
    expect(spellings.length).toBeGreaterThan(0);
    for (const spelling of spellings) {
      expect(Buffer.from(spelling.split('.')[2]!, 'base64url')).toEqual(Buffer.from(account.accessToken.split('.')[2]!, 'base64url'));
      expect((await me(spelling)).status, spelling).toBe(401);
      expect((await events(spelling)).status, spelling).toBe(401);
    }
  });
});

describe('the per-token rate limit counts the session', () => {
  let stack: TestStack;
  let account: Account;
  beforeAll(async () => {
    stack = await startTestStack({ RATE_LIMIT_PER_TOKEN: '4', RATE_LIMIT_WINDOW_SECONDS: '60' });
    account = await signUpAndLogin(stack);
  });
  afterAll(() => stack?.stop());

  it('a refreshed token of the same session gets no fresh allowance; another session does', async () => {
    const call = (token: string) => request(`${stack.baseUrl}/event`, { headers: bearer(token) });
    for (let i = 0; i < 4; i++) expect((await call(account.accessToken)).status).toBe(200);
    expect((await call(account.accessToken)).status).toBe(429);
    const refreshed = await request(`${stack.authUrl}/tokens`, { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: account.refreshToken! }) });
    expect(refreshed.status).toBe(200);
    expect((await call(refreshed.body.access_token)).status).toBe(429);
    // Another spelling of the first token is counted with it too (and refused besides).
    expect((await call(highS(account.accessToken))).status).toBe(429);
    // A new sign-in is a new session with its own allowance.
    const other = await passwordToken(stack, account.email, account.password);
    expect((await call(other.access_token)).status).toBe(200);
  });
});

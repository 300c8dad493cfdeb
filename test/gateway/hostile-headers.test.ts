import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, type RawResponse } from '../support/raw-http.js';
import { signUpAndLogin, type Account } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/stack.js';

/** Header bytes gRPC metadata cannot carry are the client's error: 400/401, never a 500 (issue 7, finding 3). */
describe('headers the gateway cannot forward', () => {
  let stack: TestStack;
  let account: Account;
  let port: number;

  beforeAll(async () => {
    stack = await startTestStack();
    account = await signUpAndLogin(stack);
    port = stack.running.gatewayPort;
  });
  afterAll(async () => stack?.stop());

  const send = (method: string, path: string, headers: Array<[string, string]>, body?: string) =>
    rawRequest(port, { method, path, headers: body ? [...headers, ['Content-Type', 'application/json']] : headers, body });

  const expectProblemStatus = (res: RawResponse, status: number) => {
    expect(res.status, res.body).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json.status).toBe(status);
    expect(res.body).not.toContain(account.accessToken);
  };

  const apiRoutes: Array<[string, string, string?]> = [
    ['GET', '/event'],
    ['POST', '/event', '{"name":"x"}'],
    ['GET', '/ticket'],
    ['GET', '/ticket/0b7e7c4e-1f7a-4c2e-9d7e-3a1b2c3d4e5f'],
    ['PUT', '/ticket/0b7e7c4e-1f7a-4c2e-9d7e-3a1b2c3d4e5f', '{"name":"x"}'],
    ['GET', '/auth/users/me'],
    ['GET', '/auth/companies'],
    ['DELETE', '/auth/clients/x'],
  ];

  it.each(apiRoutes)('%s %s: a tab or non-ASCII byte in Authorization is 401 + WWW-Authenticate', async (method, path, body) => {
    for (const authorization of [`Bearer\t${account.accessToken}`, `Bearer ${account.accessToken}\u00e9`, `Bearer caf\u00e9`]) {
      const res = await send(method, path, [['Authorization', authorization]], body);
      expectProblemStatus(res, 401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="ticketing", error="invalid_token"/);
    }
  });

  it.each(apiRoutes)('%s %s: a tab or non-ASCII byte in Company is 400', async (method, path, body) => {
    for (const company of ['a\tb', '\u00ff', `${account.companyId}\u0080`]) {
      const res = await send(method, path, [['Authorization', `Bearer ${account.accessToken}`], ['Company', company]], body);
      expectProblemStatus(res, 400);
    }
  });

  it('the token endpoints answer such headers in RFC 6749 form', async () => {
    const form = 'grant_type=password&username=a%40b.c&password=x';
    for (const path of ['/auth/tokens', '/auth/tokens/revoke']) {
      for (const header of [['Authorization', 'Basic\tYTpi'], ['Authorization', 'Bearer \u00e9'], ['Company', '\u00ff']] as Array<[string, string]>) {
        const res = await rawRequest(port, { method: 'POST', path, headers: [header, ['Content-Type', 'application/x-www-form-urlencoded']], body: `${form}&token=t` });
        expect(res.status, `${path} ${header[0]}: ${res.body}`).toBe(400);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.headers['cache-control']).toBe('no-store');
        expect(res.json).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
      }
    }
  });

  it('no byte 0-255 in Authorization or Company gives a 5xx', async () => {
    for (let byte = 0; byte < 256; byte++) {
      const char = String.fromCharCode(byte);
      for (const headers of [
        [['Authorization', `Bearer ${account.accessToken}${char}x`]],
        [['Authorization', `Bearer ${account.accessToken}`], ['Company', `${account.companyId}${char}`]],
      ] as Array<Array<[string, string]>>) {
        const res = await rawRequest(port, { path: '/auth/companies', headers });
        expect(res.status, `byte ${byte} in ${headers.at(-1)![0]}: ${res.body}`).toBeLessThan(500);
      }
    }
  });

  it('a well-formed request still works, and repeated Company lines still narrow', async () => {
    const ok = await send('GET', '/auth/companies', [['Authorization', `Bearer ${account.accessToken}`], ['Company', account.companyId], ['Company', '*']]);
    expect(ok.status).toBe(200);
    expect(ok.json.map((c: { guid: string }) => c.guid)).toEqual([account.companyId]);
  });

  /** A request too large to forward is 431 in our words; grpc-js's own messages never reach a client (issue 7, finding 7). */
  describe('requests too large to forward', () => {
    const withToken = (): [string, string] => ['Authorization', `Bearer ${account.accessToken}`];

    it('300 Company lines (about 11 KB) are 431, not grpc-js "Bandwidth exhausted"', async () => {
      const companies = Array.from({ length: 300 }, (): [string, string] => ['Company', account.companyId]);
      for (const path of ['/event', '/auth/companies']) {
        const res = await rawRequest(port, { path, headers: [withToken(), ...companies] });
        expect(res.status, res.body).toBe(431);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(res.headers['retry-after']).toBeUndefined();
        expect(res.body).not.toMatch(/bandwidth|exhausted|RST_STREAM|grpc/i);
      }
    });

    it('many short Company lines within the size limit are forwarded and answered normally', async () => {
      const companies = Array.from({ length: 150 }, (): [string, string] => ['Company', '*']);
      const res = await rawRequest(port, { path: '/auth/companies', headers: [withToken(), ...companies] });
      expect(res.status, res.body).toBe(200);
      expect(res.json.map((c: { guid: string }) => c.guid)).toEqual([account.companyId]);
    });

    it("headers node's parser refuses are answered as problems: over 16 KiB is 431, a control byte 400", async () => {
      const big = await rawRequest(port, { path: '/event', headers: [withToken(), ['X-Padding', 'p'.repeat(20_000)]] });
      expect(big.status).toBe(431);
      expect(big.headers['content-type']).toBe('application/problem+json');
      expect(big.json.status).toBe(431);
      const control = await rawRequest(port, { path: '/event', headers: [['Authorization', `Bearer ${account.accessToken}\u0001`]] });
      expect(control.status).toBe(400);
      expect(control.json.status).toBe(400);
    });
  });
});

import http from 'node:http';
import http2 from 'node:http2';
import type { Metadata } from '@grpc/grpc-js';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../gateway/app.js';
import { createBackendClients } from '../../gateway/clients.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger, registerSecret } from '../../lib/logger.js';
import { signUpAndLogin, type Account } from '../support/http.js';
import { rawRequest } from '../support/raw-http.js';
import { startTestStack, type TestStack } from '../support/stack.js';

/** No token, secret or password reaches a log, error messages and stacks included (issue 7, finding 4). */
describe('secrets in logs', () => {
  const jwt = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLTEyMyIsImV4cCI6OTk5OTk5OTk5OX0.c2lnbmF0dXJlLW9mLXRoZS10b2tlbi1oZXJl';
  const refreshToken = 'q3J9m2xP0aZ7bT4cV8nW1eR5yU6iO_kL-sDfGhJkLzX';
  const signingKey = 'a-configured-signing-key-of-forty-characters';

  it('scrubs bearer tokens, JWTs, auth-service secrets, URL passwords and registered secrets from error messages and stacks', () => {
    const lines: string[] = [];
    const logger = createLogger('test', 'info', { write: (line: string) => void lines.push(line) });
    registerSecret(signingKey);
    const err = new Error(`Metadata string value "Bearer\t${jwt}" contains illegal characters; refresh ${refreshToken}; key ${signingKey}`);
    err.stack = `${err.message}\n    at connect (mysql://root:hunter2hunter2@db:3306/app)\n    at Basic dXNlcjpwYXNzd29yZA==`;
    logger.error({ err, note: `Authorization: Bearer ${jwt}` }, `failed for Bearer ${jwt}`);
    const text = lines.join('\n');
    expect(text).toContain('[redacted]');
    for (const secret of [jwt, refreshToken, signingKey, 'hunter2hunter2', 'dXNlcjpwYXNzd29yZA==', jwt.split('.')[2]!]) expect(text).not.toContain(secret);
    // What is not a secret stays readable.
    expect(text).toContain('contains illegal characters');
    expect(text).toContain('mysql://root:');
  });

  it('scrubs and redacts the readable lines of a terminal the same way (npm start on a TTY)', () => {
    const lines: string[] = [];
    const logger = createLogger('test', 'info', { write: (line: string) => void lines.push(line) }, { pretty: true });
    logger.error({ err: new Error(`denied Bearer ${jwt}`), password: 'hunter2hunter2', refresh_token: refreshToken }, `failed for Bearer ${jwt}`);
    const text = lines.join('\n');
    expect(text).not.toMatch(/^\{/); // readable, not JSON
    expect(text).toContain('ERROR (test): failed for Bearer [redacted]');
    expect(text).toContain('[redacted]');
    for (const secret of [jwt, refreshToken, 'hunter2hunter2']) expect(text).not.toContain(secret);
  });

  describe('over the running stack', () => {
    let stack: TestStack;
    let account: Account;
    const lines: string[] = [];

    beforeAll(async () => {
      const logger = createLogger('test', 'debug', { write: (line: string) => void lines.push(line) });
      stack = await startTestStack({ LOG_LEVEL: 'debug' }, { logger });
      account = await signUpAndLogin(stack);
    });
    afterAll(async () => stack?.stop());

    it('a token in a header value the gateway cannot forward is not logged (it used to 500 and log it)', async () => {
      for (const authorization of [`Bearer\t${account.accessToken}`, `Bearer ${account.accessToken}\u00e9`]) {
        const res = await rawRequest(stack.running.gatewayPort, { path: '/event', headers: [['Authorization', authorization]] });
        expect(res.status).toBeLessThan(500);
      }
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.join('\n')).not.toContain(account.accessToken);
    });

    it('grpc-js logs go through the logger, scrubbed: a token it drops from metadata is not printed', async () => {
      const session = http2.connect(`http://${stack.authGrpcAddress}`);
      try {
        const call = session.request({
          ':method': 'POST',
          ':path': '/auth.v1.AuthService/GetCurrentUser',
          'content-type': 'application/grpc',
          te: 'trailers',
          authorization: `Bearer ${account.accessToken}\u0080`,
        });
        call.end(Buffer.alloc(5));
        call.resume();
        await new Promise((resolve) => call.on('close', resolve));
      } finally {
        session.close();
      }
      const fromGrpc = lines.filter((line) => line.includes('"source":"grpc-js"'));
      expect(fromGrpc.join('\n')).toContain('Failed to add metadata entry authorization');
      expect(lines.join('\n')).not.toContain(account.accessToken);
    });
  });

  it('a forced error carrying the caller token in its message and stack is logged without it', async () => {
    const lines: string[] = [];
    const logger = createLogger('test', 'info', { write: (line: string) => void lines.push(line) });
    // A backend client that fails with the caller's own Authorization value in its message.
    const clients = createBackendClients('127.0.0.1:1', '127.0.0.1:1');
    Object.assign(clients.auth, {
      getCurrentUser: (_request: unknown, metadata: Metadata) => {
        throw new Error(`cannot send ${String(metadata.get('authorization')[0])}`);
      },
    });
    const app = createApp(loadConfig({ AUTH_PATH_PREFIX: '/auth' }), clients, logger);
    const server = http.createServer(app).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const res = await rawRequest(port, { path: '/auth/users/me', headers: [['Authorization', `Bearer ${jwt}`]] });
      expect(res.status).toBe(500);
      expect(res.body).not.toContain(jwt);
      const text = lines.join('\n');
      expect(text).toContain('unhandled gateway error');
      expect(text).toContain('cannot send Bearer [redacted]');
      expect(text).not.toContain(jwt.split('.')[1]!);
    } finally {
      server.close();
      clients.close();
    }
  });
});

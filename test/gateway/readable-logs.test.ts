import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, prettyLines } from '../../lib/logger.js';
import { bearer, request, signUpAndLogin, type Account } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/stack.js';

/**
 * Logs a person can read (issue 20 item 6): on a terminal (pretty mode) one line per request
 * with its status and, when refused, the reason the client was told (never a secret); the first
 * start says what it generated (the development JWT key: where, never what) and what it migrated.
 * JSON mode keeps its fields.
 */
describe('readable logs', () => {
  let stack: TestStack;
  let account: Account;
  const json: string[] = [];
  const logger = () => createLogger('stack', 'info', { write: (line: string) => void json.push(line) });
  // The same entries as a terminal shows them (createLogger's pretty mode formats each scrubbed JSON line so).
  const prettify = prettyLines();
  const pretty = () => json.map(prettify);
  const linesWith = (text: string) => pretty().filter((line) => line.includes(text));
  const jsonEntries = () => json.map((line) => JSON.parse(line) as Record<string, unknown>);

  beforeAll(async () => {
    // No AUTH_SIGNING_KEY: the first start generates the development key into DATA_DIR.
    stack = await startTestStack({ AUTH_SIGNING_KEY: '', LOG_LEVEL: 'info' }, { logger: logger() });
    account = await signUpAndLogin(stack);
  });
  afterAll(async () => stack?.stop());

  it('the first start says it generated the development signing key, where, but never the key; and what it migrated', () => {
    const file = path.join(stack.env.DATA_DIR!, 'dev-signing-key');
    const key = readFileSync(file, 'utf8').trim();
    expect(linesWith('generated a development AUTH_SIGNING_KEY')).toEqual([expect.stringContaining(JSON.stringify(file))]);
    // One line per entry on a terminal, its fields inline.
    for (const line of pretty()) expect(line.trimEnd().split('\n'), line).toHaveLength(1);
    expect(pretty().join('')).not.toContain(key);
    expect(json.join('')).not.toContain(key);
    for (const database of ['auth', 'ticket']) expect(linesWith(`migrated the ${database} database:`)).toEqual([expect.stringMatching(/\d+ migrations? applied .*"migrations":\["\d+_\w+"/)]);
  });

  it('a later start on the same data says neither: nothing was generated or migrated', async () => {
    const before = json.length;
    const same = ['DATA_DIR', 'AUTH_DATABASE_URL', 'TICKET_DATABASE_URL', 'REDIS_URL', 'REDIS_KEY_PREFIX'].filter((name) => stack.env[name] !== undefined);
    const again = await startTestStack({ AUTH_SIGNING_KEY: '', LOG_LEVEL: 'info', ...Object.fromEntries(same.map((name) => [name, stack.env[name]!])) }, { logger: logger() });
    try {
      const later = pretty().slice(before).join('');
      expect(later).toContain('gRPC listening'); // it did log its start
      expect(later).not.toContain('generated a development');
      expect(later).not.toContain('migrated the');
    } finally {
      await again.stop();
    }
  });

  it('pretty mode: one line per request, with its status; a refusal with the reason the client was told, no secret', async () => {
    const marker = `/event?marker=${Date.now()}`;
    await request(`${stack.baseUrl}${marker}`, { headers: bearer(account.accessToken) });
    const invalid = await request(`${stack.baseUrl}/event`, { method: 'POST', headers: bearer(account.accessToken), json: { name: '' } });
    expect(invalid.status).toBe(422);
    const wrong = await request(`${stack.authUrl}/tokens`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', username: account.email, password: 'a wrong password 1234' }) });
    expect(wrong.status).toBe(400);
    const forged = `${account.accessToken.slice(0, -4)}AAAA`;
    expect((await request(`${stack.baseUrl}/event`, { headers: bearer(forged) })).status).toBe(401);

    const requestLines = pretty().filter((line) => / (GET|POST|PUT|DELETE) \//.test(line));
    for (const line of requestLines) expect(line.trimEnd().split('\n'), line).toHaveLength(1);
    expect(requestLines.filter((line) => line.includes('GET /event 200 in '))).not.toEqual([]);
    expect(requestLines.some((line) => line.includes('marker='))).toBe(false); // the path, without its query string
    const refused = requestLines.filter((line) => / 4\d\d in \d+ ms/.test(line));
    expect(refused).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`POST /event 422 in \\d+ ms: ${escape(invalid.body.detail)} \\(name: ${escape(invalid.body.errors[0].message)}\\)`)),
        expect.stringMatching(new RegExp(`POST /auth/tokens 400 in \\d+ ms: invalid_grant: ${escape(wrong.body.error_description)}`)),
        expect.stringMatching(/GET \/event 401 in \d+ ms: \S/),
      ]),
    );
    const all = pretty().join('');
    for (const secret of [account.password, 'a wrong password 1234', account.accessToken, forged, account.refreshToken]) expect(all).not.toContain(secret);
  });

  it('createLogger on a terminal writes a request as that one line', () => {
    const lines: string[] = [];
    const terminal = createLogger('stack', 'info', { write: (line: string) => void lines.push(line) }, { pretty: true });
    terminal.child({ service: 'gateway' }).info({ requestId: 'r1', method: 'GET', route: 'unmatched', path: '/nowhere', status: 404, ms: 2, reason: 'No route for GET /nowhere.' }, 'request');
    terminal.info({ requestId: 'r2', method: 'GET', route: '/healthz', path: '/healthz', status: 200, ms: 1 }, 'request');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/INFO \(stack\): GET \/nowhere 404 in 2 ms: No route for GET \/nowhere\.\n$/);
    expect(lines[1]).toMatch(/INFO \(stack\): GET \/healthz 200 in 1 ms\n$/);
    for (const line of lines) expect(line.trimEnd().split('\n')).toHaveLength(1);
    expect(prettyLines()('not a JSON line\n')).toContain('not a JSON line'); // shown as it is
  });

  it('JSON mode keeps its fields, and adds the path and the reason of a refusal', async () => {
    const res = await request(`${stack.baseUrl}/event`, { method: 'POST', headers: bearer(account.accessToken, { 'x-request-id': 'json-mode-1' }), json: { name: '' } });
    expect(res.status).toBe(422);
    const entry = jsonEntries().find((e) => e.requestId === 'json-mode-1' && e.msg === 'request');
    expect(entry).toMatchObject({ name: 'stack', service: 'gateway', method: 'POST', route: '/event', path: '/event', status: 422, ms: expect.any(Number) });
    expect(entry!.reason).toEqual(expect.stringContaining(res.body.errors[0].message));
    const ok = jsonEntries().find((e) => e.msg === 'request' && e.status === 200);
    expect(ok).toBeDefined();
    expect(ok).not.toHaveProperty('reason');
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

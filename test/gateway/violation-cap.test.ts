/**
 * Issue 32, item 7: a refusal lists the first 20 invalid fields and how many there were
 * (`error_count`), however many the body had; a field name is repeated at most 200
 * characters long; and the request's log line stays small. Before, a 634 KB body of unknown
 * keys answered a 3.4 MB 422 and wrote a 2.2 MB log line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/logger.js';
import { createTicket, type Who } from '../support/api.js';
import { bearer, request } from '../support/http.js';
import { startSuite, type SuiteWithEvent } from '../support/suite.js';

const KEYS = 30_000;
const lines: string[] = [];
let suite: SuiteWithEvent;
let who: Who;

beforeAll(async () => {
  const logger = createLogger('test', 'info', { write: (line: string) => void lines.push(line) });
  suite = await startSuite({ event: { name: 'Many keys' }, stackOptions: { logger } });
  who = suite.who;
});
afterAll(() => suite?.stack.stop());

const manyUnknownKeys = (base: Record<string, unknown>) => ({ ...base, ...Object.fromEntries(Array.from({ length: KEYS }, (_, i) => [`unknown_key_${i}`, i])) });

/** The request log line of the request with this id. */
const logLineOf = (requestId: string) => lines.find((line) => line.includes(requestId));

describe('a refusal with many invalid fields', () => {
  it('creation (the gateway refuses the unknown keys): the first 20 and the count', async () => {
    const res = await request(`${who.stack.baseUrl}/event`, { method: 'POST', headers: bearer(who.token), json: manyUnknownKeys({ name: 'x' }) });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveLength(20);
    expect(res.body.errors[0]).toEqual({ field: 'unknown_key_0', message: 'is not a field of the event' });
    expect(res.body.error_count).toBe(KEYS);
    expect(res.text.length).toBeLessThan(10_000);
    const line = logLineOf(res.headers.get('x-request-id')!);
    expect(line).toBeDefined();
    expect(line!.length).toBeLessThan(5_000);
    expect(line).toContain(`${KEYS - 20} more`);
  });

  it('an update (the service refuses the unknown keys of the mask): the first 20 and the count', async () => {
    const ticket = await createTicket(who, suite.eventGuid, { name: 'T', vat_percentage: 21 });
    const res = await request(`${who.stack.baseUrl}/ticket/${ticket.guid}`, { method: 'PUT', headers: bearer(who.token), json: manyUnknownKeys({}) });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveLength(20);
    expect(res.body.error_count).toBe(KEYS);
    expect(res.text.length).toBeLessThan(10_000);
    expect(logLineOf(res.headers.get('x-request-id')!)!.length).toBeLessThan(5_000);
  });

  it('type errors and the service\'s own: counted together', async () => {
    const ticket = await createTicket(who, suite.eventGuid, { name: 'T2', vat_percentage: 21 });
    // One type error at the gateway (a name that is no string) and KEYS unknown keys the service refuses.
    const res = await request(`${who.stack.baseUrl}/ticket/${ticket.guid}`, { method: 'PUT', headers: bearer(who.token), json: manyUnknownKeys({ name: 12 }) });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveLength(20);
    expect(res.body.errors[0].field).toBe('name');
    expect(res.body.error_count).toBe(KEYS + 1);
  });

  it('20 or fewer: all listed, no count', async () => {
    const res = await request(`${who.stack.baseUrl}/event`, { method: 'POST', headers: bearer(who.token), json: { name: 'x', a: 1, b: 2 } });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: any) => e.field)).toEqual(['a', 'b']);
    expect(res.body).not.toHaveProperty('error_count');
  });

  it('a very long key is repeated cut short, in the answer and the log', async () => {
    const key = 'k'.repeat(500_000);
    const res = await request(`${who.stack.baseUrl}/event`, { method: 'POST', headers: bearer(who.token), json: { name: 'x', [key]: 1 } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ field: `${'k'.repeat(200)}...`, message: 'is not a field of the event' }]);
    expect(logLineOf(res.headers.get('x-request-id')!)!.length).toBeLessThan(5_000);
  });
});

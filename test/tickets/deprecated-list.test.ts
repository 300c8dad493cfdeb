/**
 * The deprecated GET /ticket: every live ticket of the effective company set and nothing
 * else, with Deprecation and Link headers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestStack } from '../support/stack.js';
import {
  ALL_FIELDS,
  createEvent,
  createTicket,
  expectProblem,
  h,
  keysOf,
  request,
  signUpAndLogin,
  sorted,
  startSuite,
  type Account,
  type Who,
} from './helpers.js';

let stack: TestStack;
let alice: Account;
let bob: Account;
let aliceWho: Who;
let bobWho: Who;
const aliceTickets: string[] = [];
const bobTickets: string[] = [];

beforeAll(async () => {
  ({ stack, account: alice, who: aliceWho } = await startSuite({ account: { companyName: 'Alice Co' } }));
  bob = await signUpAndLogin(stack, { companyName: 'Bob Co' });
  bobWho = { stack, token: bob.accessToken };
  // Interleaved across two events per company, so that order and filtering both matter.
  const [a1, a2] = [await createEvent(aliceWho, { name: 'A1' }), await createEvent(aliceWho, { name: 'A2' })];
  const [b1, b2] = [await createEvent(bobWho, { name: 'B1' }), await createEvent(bobWho, { name: 'B2' })];
  for (let i = 0; i < 3; i++) {
    aliceTickets.push((await createTicket(aliceWho, a1.guid, { name: `a1-${i}`, vat_percentage: 21 })).guid);
    bobTickets.push((await createTicket(bobWho, b1.guid, { name: `b1-${i}`, vat_percentage: 21 })).guid);
    aliceTickets.push((await createTicket(aliceWho, a2.guid, { name: `a2-${i}`, vat_percentage: 21 })).guid);
    bobTickets.push((await createTicket(bobWho, b2.guid, { name: `b2-${i}`, vat_percentage: 21 })).guid);
  }
});

afterAll(() => stack?.stop());

const list = (who: Who, extra: Record<string, string> = {}) => request(`${stack.baseUrl}/ticket`, { headers: h(who, extra) });

describe('GET /ticket (deprecated)', () => {
  it("returns exactly the caller's company's live tickets, in creation order, as full objects", async () => {
    const res = await list(aliceWho);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type') ?? '').toMatch(/^application\/json/);
    const guids = (res.body as Array<{ guid: string }>).map((t) => t.guid);
    expect(guids).toEqual(aliceTickets);
    for (const t of res.body) {
      expect(keysOf(t)).toEqual(sorted(ALL_FIELDS));
      expect(t.company_id).toBe(alice.companyId);
    }
    for (const foreign of bobTickets) expect(res.text).not.toContain(foreign);
    expect(res.text).not.toContain(bob.companyId);
  });

  it("the other user sees only theirs", async () => {
    const res = await list(bobWho);
    expect((res.body as Array<{ guid: string }>).map((t) => t.guid)).toEqual(bobTickets);
    for (const foreign of aliceTickets) expect(res.text).not.toContain(foreign);
    expect(res.text).not.toContain(alice.companyId);
  });

  it('carries Deprecation (RFC 9745) and a Link to the successor', async () => {
    const res = await list(aliceWho);
    expect(res.headers.get('deprecation')).toBe('@1767225600');
    const link = res.headers.get('link') ?? '';
    expect(link).toMatch(/<[^>]*\/event\/[^>]*\/ticket>\s*;\s*rel="?successor-version"?/);
  });

  it('a user without tickets gets [] with the same headers', async () => {
    const carol = await signUpAndLogin(stack);
    const res = await list({ stack, token: carol.accessToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect(res.headers.get('deprecation')).toBe('@1767225600');
    expect(res.headers.get('link')).toBeTruthy();
  });

  it('deleted tickets leave it', async () => {
    const event = await createEvent(aliceWho, { name: 'A3' });
    const t = await createTicket(aliceWho, event.guid);
    expect((await list(aliceWho)).text).toContain(t.guid);
    const del = await request(`${stack.baseUrl}/ticket/${t.guid}`, { method: 'DELETE', headers: h(aliceWho) });
    expect(del.status).toBe(204);
    expect((await list(aliceWho)).text).not.toContain(t.guid);
  });

  it('needs a token: 401 with WWW-Authenticate', async () => {
    const res = await request(`${stack.baseUrl}/ticket`);
    expectProblem(res, 401);
    expect(res.headers.get('www-authenticate') ?? '').toMatch(/^Bearer/);
  });

  it('a Company header naming the other user\'s company is 401, never their list', async () => {
    const res = await list(aliceWho, { company: bob.companyId });
    expectProblem(res, 401);
    for (const foreign of bobTickets) expect(res.text).not.toContain(foreign);
  });
});

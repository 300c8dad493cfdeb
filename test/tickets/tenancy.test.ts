/**
 * Tenancy matrix (spec 5 and 7, PRODUCT.md 4): every route x {no token, another company's
 * token, a token narrowed by Company to another of the user's own companies, a Company
 * header naming a foreign company, a malformed Company header, Company: * over two
 * companies}. No body ever carries another company's events or tickets.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestStack } from '../support/stack.js';
import {
  NIL_LIKE_GUID,
  bearer,
  createEvent,
  createTicket,
  expectProblem,
  request,
  startSuite,
  twoCompanyAccount,
  type Account,
  type JsonResponse,
  type TwoCompanyAccount,
  type Who,
} from './helpers.js';

type Co = 'A1' | 'A2' | 'B';
interface Fixture {
  event: string;
  ticket: string;
}

let stack: TestStack;
/** User A: companies A1 (default) and A2; accessToken covers A1 only, allToken both. */
let A: TwoCompanyAccount;
/** User B: company B. */
let B: Account;
const fixtures = {} as Record<Co, Fixture>;
/** Every event and ticket GUID made in each company, to check that no body leaks them. */
const owned: Record<Co, Set<string>> = { A1: new Set(), A2: new Set(), B: new Set() };

function writer(co: Co): Who {
  if (co === 'A1') return { stack, token: A.accessToken };
  if (co === 'A2') return { stack, token: A.allToken, headers: { company: A.secondCompanyId } };
  return { stack, token: B.accessToken };
}

async function fixture(co: Co, label: string): Promise<Fixture> {
  const event = await createEvent(writer(co), { name: `${co} ${label}` });
  const ticket = await createTicket(writer(co), event.guid, { name: `${co} ${label} ticket`, vat_percentage: 21 });
  expect(event.company_id).toBe(companyOf(co));
  expect(ticket.company_id).toBe(companyOf(co));
  owned[co].add(event.guid).add(ticket.guid);
  return { event: event.guid, ticket: ticket.guid };
}

function companyOf(co: Co): string {
  return co === 'A1' ? A.companyId : co === 'A2' ? A.secondCompanyId : B.companyId;
}

/** The text of a response never names an event or ticket of a company outside `visible`. */
function expectNoForeign(res: JsonResponse, visible: Co[], what: string): void {
  for (const co of ['A1', 'A2', 'B'] as Co[]) {
    if (visible.includes(co)) continue;
    for (const guid of owned[co]) expect(res.text, `${what}: leaks ${co} ${guid}`).not.toContain(guid);
  }
}

beforeAll(async () => {
  ({ stack, account: B } = await startSuite({ account: { companyName: 'B Co' } }));
  A = await twoCompanyAccount(stack);
  fixtures.A1 = await fixture('A1', 'shared');
  fixtures.A2 = await fixture('A2', 'shared');
  fixtures.B = await fixture('B', 'shared');
});

afterAll(() => stack?.stop());

type Kind = 'list' | 'single' | 'createEvent' | 'createTicket';
interface Route {
  name: string;
  kind: Kind;
  /** Changes or removes its target when allowed. */
  mutates?: boolean;
  op: (headers: Record<string, string>, target: Fixture) => Promise<JsonResponse>;
}

const url = (path: string) => `${stack.baseUrl}${path}`;
const ROUTES: Route[] = [
  { name: 'POST /event', kind: 'createEvent', op: (headers) => request(url('/event'), { method: 'POST', headers, json: { name: 'Tenancy probe event' } }) },
  { name: 'GET /event', kind: 'list', op: (headers) => request(url('/event'), { headers }) },
  { name: 'GET /event/:guid', kind: 'single', op: (headers, t) => request(url(`/event/${t.event}`), { headers }) },
  { name: 'PUT /event/:guid', kind: 'single', mutates: true, op: (headers, t) => request(url(`/event/${t.event}`), { method: 'PUT', headers, json: { name: 'Probed' } }) },
  { name: 'DELETE /event/:guid', kind: 'single', mutates: true, op: (headers, t) => request(url(`/event/${t.event}`), { method: 'DELETE', headers }) },
  {
    name: 'POST /event/:guid/ticket',
    kind: 'createTicket',
    op: (headers, t) => request(url(`/event/${t.event}/ticket`), { method: 'POST', headers, json: { name: 'Tenancy probe ticket', vat_percentage: 21 } }),
  },
  { name: 'GET /event/:guid/ticket', kind: 'single', op: (headers, t) => request(url(`/event/${t.event}/ticket`), { headers }) },
  { name: 'GET /ticket', kind: 'list', op: (headers) => request(url('/ticket'), { headers }) },
  { name: 'GET /ticket/:guid', kind: 'single', op: (headers, t) => request(url(`/ticket/${t.ticket}`), { headers }) },
  { name: 'PUT /ticket/:guid', kind: 'single', mutates: true, op: (headers, t) => request(url(`/ticket/${t.ticket}`), { method: 'PUT', headers, json: { name: 'Probed' } }) },
  { name: 'DELETE /ticket/:guid', kind: 'single', mutates: true, op: (headers, t) => request(url(`/ticket/${t.ticket}`), { method: 'DELETE', headers }) },
];

/** Records what a successful create made, so later leak checks know about it. */
function track(res: JsonResponse, co: Co): void {
  if (res.status === 201 && typeof res.body?.guid === 'string') owned[co].add(res.body.guid as string);
}

function listGuids(res: JsonResponse): string[] {
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  expect(Array.isArray(res.body)).toBe(true);
  return (res.body as Array<{ guid: string }>).map((x) => x.guid);
}

function expect401(res: JsonResponse): void {
  expectProblem(res, 401);
  expect(res.headers.get('www-authenticate') ?? '').toMatch(/^Bearer/);
}

describe.each(ROUTES)('$name', (route) => {
  it('no token: 401 with WWW-Authenticate', async () => {
    const res = await route.op({}, fixtures.A1);
    expect401(res);
    expectNoForeign(res, [], 'no token');
  });

  it("another company's token: 404 (lists: without the foreign data)", async () => {
    const res = await route.op(bearer(B.accessToken), fixtures.A1);
    expectNoForeign(res, ['B'], "B's token");
    if (route.kind === 'single' || route.kind === 'createTicket') {
      expectProblem(res, 404);
    } else if (route.kind === 'list') {
      const guids = listGuids(res);
      expect(guids).toContain(route.name === 'GET /event' ? fixtures.B.event : fixtures.B.ticket);
      for (const guid of guids) expect(owned.B.has(guid) || !owned.A1.has(guid)).toBe(true);
    } else {
      // creating an event with B's token lands in B's company, never in A's
      expect(res.status, res.text).toBe(201);
      expect(res.body.company_id).toBe(B.companyId);
      track(res, 'B');
    }
  });

  it("narrowed by Company to another of the user's own companies: 404 / not listed", async () => {
    const res = await route.op(bearer(A.allToken, { company: A.secondCompanyId }), fixtures.A1);
    expectNoForeign(res, ['A2'], 'narrowed to A2');
    if (route.kind === 'single' || route.kind === 'createTicket') {
      expectProblem(res, 404);
    } else if (route.kind === 'list') {
      const guids = listGuids(res);
      const [mine, hidden] = route.name === 'GET /event' ? [fixtures.A2.event, fixtures.A1.event] : [fixtures.A2.ticket, fixtures.A1.ticket];
      expect(guids).toContain(mine);
      expect(guids).not.toContain(hidden);
    } else {
      expect(res.status, res.text).toBe(201);
      expect(res.body.company_id).toBe(A.secondCompanyId);
      track(res, 'A2');
    }
  });

  it('Company naming a foreign company: 401', async () => {
    const res = await route.op(bearer(A.allToken, { company: B.companyId }), fixtures.B);
    expect401(res);
    expectNoForeign(res, [], 'foreign Company');
  });

  it('Company naming a company the token does not cover (own but not in the token, or unknown): 401', async () => {
    const notInToken = await route.op(bearer(A.accessToken, { company: A.secondCompanyId }), fixtures.A2);
    expect401(notInToken);
    expectNoForeign(notInToken, [], 'uncovered Company');
    const unknown = await route.op(bearer(A.accessToken, { company: NIL_LIKE_GUID }), fixtures.A1);
    expect401(unknown);
    const mixed = await route.op(bearer(A.allToken, { company: `${A.companyId},${B.companyId}` }), fixtures.A1);
    expect401(mixed);
  });

  it('malformed Company: 400', async () => {
    for (const company of ['not-a-guid', `${A.companyId},nope`, '12345']) {
      const res = await route.op(bearer(A.allToken, { company }), fixtures.A1);
      expectProblem(res, 400);
      expectNoForeign(res, [], 'malformed Company');
    }
  });

  it('a token of two companies with Company: * sees both companies', async () => {
    const headers = bearer(A.allToken, { company: '*' });
    if (route.kind === 'list') {
      const res = await route.op(headers, fixtures.A1);
      expectNoForeign(res, ['A1', 'A2'], 'Company: *');
      const guids = listGuids(res);
      const key = route.name === 'GET /event' ? 'event' : 'ticket';
      expect(guids).toContain(fixtures.A1[key]);
      expect(guids).toContain(fixtures.A2[key]);
      expect(guids).not.toContain(fixtures.B[key]);
      const noHeader = listGuids(await route.op(bearer(A.allToken), fixtures.A1));
      expect(new Set(noHeader)).toEqual(new Set(guids));
      const both = listGuids(await route.op(bearer(A.allToken, { company: ` ${A.companyId} , ${A.secondCompanyId} ` }), fixtures.A1));
      expect(new Set(both)).toEqual(new Set(guids));
    } else if (route.kind === 'createEvent') {
      // creating an event needs exactly one company: * over two is a 400 asking for Company
      const res = await route.op(headers, fixtures.A1);
      expectProblem(res, 400);
      expect(res.body.detail).toMatch(/company/i);
    } else if (route.kind === 'createTicket') {
      for (const co of ['A1', 'A2'] as const) {
        const res = await route.op(headers, fixtures[co]);
        expect(res.status, res.text).toBe(201);
        expect(res.body.company_id).toBe(companyOf(co));
        expect(res.body.event_id).toBe(fixtures[co].event);
        track(res, co);
        expectNoForeign(res, ['A1', 'A2'], 'Company: *');
      }
    } else {
      for (const co of ['A1', 'A2'] as const) {
        const target = route.mutates ? await fixture(co, `${route.name} target`) : fixtures[co];
        const res = await route.op(headers, target);
        expect(res.status, `${co}: ${res.text.slice(0, 300)}`).toBe(route.name.startsWith('DELETE') ? 204 : 200);
        expectNoForeign(res, ['A1', 'A2'], 'Company: *');
        if (route.name === 'GET /event/:guid/ticket') {
          const listed = res.body as Array<{ guid: string; event_id: string }>;
          expect(listed.map((x) => x.guid)).toContain(target.ticket);
          for (const x of listed) expect(x.event_id).toBe(target.event);
        }
      }
    }
  });
});

describe('Company header forms', () => {
  /** node:http lets one request carry the same header twice. */
  function rawGet(path: string, headers: Record<string, string | string[]>): Promise<JsonResponse> {
    return new Promise((resolve, reject) => {
      const req = http.request(url(path), { method: 'GET', headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h.set(k, v);
          resolve({ status: res.statusCode ?? 0, headers: h, text, body: /json/.test(res.headers['content-type'] ?? '') && text ? JSON.parse(text) : text });
        });
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('several Company headers with one GUID each equal one comma list', async () => {
    const res = await rawGet('/ticket', { authorization: `Bearer ${A.allToken}`, company: [A.companyId, A.secondCompanyId] });
    const guids = listGuids(res);
    expect(guids).toContain(fixtures.A1.ticket);
    expect(guids).toContain(fixtures.A2.ticket);
    const one = listGuids(await rawGet('/ticket', { authorization: `Bearer ${A.allToken}`, company: [A.secondCompanyId] }));
    expect(one).toContain(fixtures.A2.ticket);
    expect(one).not.toContain(fixtures.A1.ticket);
    const foreign = await rawGet('/ticket', { authorization: `Bearer ${A.allToken}`, company: [A.companyId, B.companyId] });
    expect(foreign.status).toBe(401);
    expectNoForeign(foreign, [], 'repeated with foreign');
  });

  it("no other company's event or ticket appears in any body seen by A's tokens", async () => {
    for (const headers of [bearer(A.accessToken), bearer(A.allToken), bearer(A.allToken, { company: '*' })]) {
      for (const path of ['/event', '/ticket', `/event/${fixtures.A1.event}/ticket`]) {
        expectNoForeign(await request(url(path), { headers }), ['A1', 'A2'], path);
      }
    }
  });

  it('the shared fixtures survived every refused attempt unchanged', async () => {
    for (const co of ['A1', 'A2', 'B'] as const) {
      const who = writer(co);
      const ticket = await request(url(`/ticket/${fixtures[co].ticket}`), { headers: bearer(who.token, who.headers) });
      expect(ticket.status).toBe(200);
      expect(ticket.body.name).toBe(`${co} shared ticket`);
      const event = await request(url(`/event/${fixtures[co].event}`), { headers: bearer(who.token, who.headers) });
      expect(event.status).toBe(200);
      expect(event.body.name).toBe(`${co} shared`);
    }
  });
});

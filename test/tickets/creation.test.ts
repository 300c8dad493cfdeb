/**
 * Ticket creation: POST /event/:eventGUID/ticket with the three body forms, the 18-field
 * creation response (spec 2.1 rule 1) with the table's defaults, required fields.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestStack } from '../support/stack.js';
import {
  CREATION_FIELDS,
  GUID,
  NIL_LIKE_GUID,
  STRONG_ETAG,
  TIMESTAMP,
  createEvent,
  expect422,
  expectFullTicket,
  expectProblem,
  h,
  keysOf,
  readTicket,
  request,
  signUpAndLogin,
  sorted,
  startSuite,
  twoCompanyAccount,
  type Account,
  type JsonResponse,
  type Who,
} from './helpers.js';

let stack: TestStack;
let account: Account;
let who: Who;
let eventGuid: string;

beforeAll(async () => {
  ({ stack, account, who, eventGuid } = await startSuite({ event: { name: 'Creation event' } }));
});

afterAll(() => stack?.stop());

function post(body: RequestInit['body'] | undefined, json?: unknown, event = eventGuid): Promise<JsonResponse> {
  return request(`${stack.baseUrl}/event/${event}/ticket`, { method: 'POST', headers: h(who), ...(json !== undefined ? { json } : { body }) });
}

/** Everything spec 2.1 rule 1 and the table say about a fresh creation response. */
function expectCreated(res: JsonResponse, name: string, vat: number): void {
  expect(res.status, res.text).toBe(201);
  expect(res.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  const t = res.body as Record<string, unknown>;
  expect(keysOf(t)).toEqual(sorted(CREATION_FIELDS));
  expect(res.headers.get('location')).toMatch(new RegExp(`/ticket/${t.guid as string}$`));
  expect(res.headers.get('etag')).toMatch(STRONG_ETAG);
  expect(t.guid).toMatch(GUID);
  expect(t.name).toBe(name);
  expect(t.vat_percentage).toBe(vat);
  expect(typeof t.vat_percentage).toBe('number');
  expect(t.event_id).toBe(eventGuid);
  expect(t.company_id).toBe(account.companyId);
  expect(t.status).toBeNull();
  expect(t.created_at).toMatch(TIMESTAMP);
  expect(t.updated_at).toMatch(TIMESTAMP);
  expect(t.increment).toBe(1);
  expect(t.min_orderable_amount_per_order).toBe(1);
  expect(t.max_orderable_amount_per_order).toBe(20);
  expect(t.availability_margin).toBe(0);
  expect(t.percentage_service_costs_in_ticket).toBe(0);
  expect(typeof t.percentage_service_costs_in_ticket).toBe('number');
  expect(t.swappable).toBe(true);
  expect(t.seated).toBe(false);
  expect(t.include_service_cost_in_price).toBe(false);
  expect(t.reserved_count).toBe(0);
  expect(t.pending_count).toBe(0);
  const created = Date.parse(t.created_at as string);
  expect(Math.abs(created - Date.now())).toBeLessThan(60_000);
}

describe('POST /event/:eventGUID/ticket', () => {
  it('JSON body: 201, Location, ETag and exactly the 18 creation fields with the defaults', async () => {
    expectCreated(await post(undefined, { name: 'Regular', vat_percentage: 21 }), 'Regular', 21);
  });

  it('multipart form body: same result, vat_percentage "21" comes back as the number 21', async () => {
    const form = new FormData();
    form.set('name', 'Multipart');
    form.set('vat_percentage', '21');
    expectCreated(await post(form), 'Multipart', 21);
  });

  it('URL-encoded form body: same result, numbers as strings', async () => {
    expectCreated(await post(new URLSearchParams({ name: 'Urlencoded', vat_percentage: '21' })), 'Urlencoded', 21);
    expectCreated(await post(new URLSearchParams({ name: 'Urlencoded decimal', vat_percentage: '9.5' })), 'Urlencoded decimal', 9.5);
  });

  it('JSON with vat_percentage as a numeric string gives a JSON number', async () => {
    const res = await post(undefined, { name: 'String vat', vat_percentage: '21' });
    expectCreated(res, 'String vat', 21);
    expect(res.text).toMatch(/"vat_percentage":\s*21[,}\s.]/);
  });

  it('the three body forms give the same ticket apart from guid and timestamps', async () => {
    const strip = (t: Record<string, unknown>) => ({ ...t, guid: undefined, created_at: undefined, updated_at: undefined, name: undefined });
    const json = await post(undefined, { name: 'Same', vat_percentage: 9 });
    const form = new FormData();
    form.set('name', 'Same');
    form.set('vat_percentage', '9');
    const multipart = await post(form);
    const urlencoded = await post(new URLSearchParams({ name: 'Same', vat_percentage: '9' }));
    for (const res of [json, multipart, urlencoded]) expect(res.status, res.text).toBe(201);
    expect(strip(multipart.body)).toEqual(strip(json.body));
    expect(strip(urlencoded.body)).toEqual(strip(json.body));
  });

  it('a later read of the created ticket has all 34 fields and a non-null status', async () => {
    const created = await post(undefined, { name: 'Read me', vat_percentage: 6 });
    expect(created.status).toBe(201);
    const ticket = await readTicket(who, created.body.guid);
    expectFullTicket(ticket);
    expect(ticket.status).not.toBeNull();
    expect(ticket.guid).toBe(created.body.guid);
    expect(ticket.created_at).toBe(created.body.created_at);
  });

  it('name is required (422 naming it)', async () => {
    expect422(await post(undefined, { vat_percentage: 21 }), ['name']);
  });

  it('vat_percentage is required (422 naming it)', async () => {
    expect422(await post(undefined, { name: 'No vat' }), ['vat_percentage']);
  });

  it('both missing: one 422 listing both, in every body form', async () => {
    expect422(await post(undefined, {}), ['name', 'vat_percentage']);
    expect422(await post(new URLSearchParams({ description: 'only this' })), ['name', 'vat_percentage']);
    const form = new FormData();
    form.set('description', 'only this');
    expect422(await post(form), ['name', 'vat_percentage']);
  });

  it('an empty string is not a value for a required field', async () => {
    expect422(await post(new URLSearchParams({ name: '', vat_percentage: '' })), ['name', 'vat_percentage']);
    expect422(await post(undefined, { name: '', vat_percentage: 21 }), ['name']);
  });

  it('other writable fields may be sent at creation: stored, validated, response still the 18 fields', async () => {
    const res = await post(undefined, { name: 'With extras', vat_percentage: 21, available_stock: 5, description: 'Front row', swappable: false });
    expect(res.status, res.text).toBe(201);
    expect(keysOf(res.body)).toEqual(sorted(CREATION_FIELDS));
    expect(res.body.swappable).toBe(false);
    const ticket = await readTicket(who, res.body.guid);
    expect(ticket.available_stock).toBe(5);
    expect(ticket.description).toBe('Front row');
    expect(ticket.swappable).toBe(false);
    expect(ticket.status).toBe('available');

    expect422(await post(undefined, { name: 'Bad extras', vat_percentage: 21, available_stock: -1 }), ['available_stock']);
    expect422(await post(undefined, { name: 'Bad vat', vat_percentage: 101 }), ['vat_percentage']);
  });

  it('an unknown field at creation is refused naming it', async () => {
    expect422(await post(undefined, { name: 'Unknown', vat_percentage: 21, colour: 'red' }), ['colour']);
  });

  it('an unknown, malformed or foreign event: 404, nothing created', async () => {
    expectProblem(await post(undefined, { name: 'x', vat_percentage: 21 }, NIL_LIKE_GUID), 404);
    expectProblem(await post(undefined, { name: 'x', vat_percentage: 21 }, 'not-a-guid'), 404);
    const other = await signUpAndLogin(stack);
    const foreignEvent = await createEvent({ stack, token: other.accessToken }, { name: 'Foreign' });
    expectProblem(await post(undefined, { name: 'x', vat_percentage: 21 }, foreignEvent.guid), 404);
    const list = await request(`${stack.baseUrl}/event/${foreignEvent.guid}/ticket`, { headers: h({ stack, token: other.accessToken }) });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);
  });

  it('the ticket path itself is not used for creation: POST /ticket creates nothing', async () => {
    const before = await request(`${stack.baseUrl}/ticket`, { headers: h(who) });
    const res = await request(`${stack.baseUrl}/ticket`, { method: 'POST', headers: h(who), json: { name: 'Wrong path', vat_percentage: 21, event_id: eventGuid } });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    const after = await request(`${stack.baseUrl}/ticket`, { headers: h(who) });
    expect((after.body as unknown[]).length).toBe((before.body as unknown[]).length);
  });

  it("company_id is the event's company, also when the token covers several companies", async () => {
    const two = await twoCompanyAccount(stack);
    const secondEvent = await createEvent({ stack, token: two.allToken, headers: { company: two.secondCompanyId } }, { name: 'Second co event' });
    expect(secondEvent.company_id).toBe(two.secondCompanyId);
    const res = await request(`${stack.baseUrl}/event/${secondEvent.guid}/ticket`, {
      method: 'POST',
      headers: h({ stack, token: two.allToken }),
      json: { name: 'In second', vat_percentage: 21 },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.company_id).toBe(two.secondCompanyId);
    expect(res.body.event_id).toBe(secondEvent.guid);
  });
});

/**
 * Stock moves over REST (PRODUCT.md 9): the whole life of a ticket, the reservation object,
 * expiry exact to the reader with no sweeper, every 409 code, 422s, company scope and
 * Idempotency-Key.
 */
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, signUpAndLogin } from '../support/http.js';
import type { TestStack } from '../support/stack.js';
import { expectConflict, expectInvariant, listReservations, moveRest, newTicket, reserve, RESERVATION_KEYS, scanRest, startStockSuite, type StockSuite } from '../support/stock.js';
import { h, readTicket, type Who } from '../support/api.js';

let suite: StockSuite;
let stack: TestStack;
let who: Who;
let db: Knex;

beforeAll(async () => {
  suite = await startStockSuite();
  ({ stack, who, db } = suite);
});

afterAll(async () => {
  await suite?.stop();
});

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;

describe('the life of a ticket over REST', () => {
  it('reserve (201 + Location), read, list, pending, confirm, scan: the counters and status move as PRODUCT 9 says', async () => {
    const { guid, eventGuid } = await newTicket(who, { available_stock: 4 });
    const created = await reserve(who, guid, { amount: 4 });
    expect(created.status, created.text).toBe(201);
    const r = created.body;
    expect(Object.keys(r).sort()).toEqual(RESERVATION_KEYS);
    expect(created.headers.get('location')).toBe(`/reservation/${r.guid}`);
    expect(r).toMatchObject({ ticket_id: guid, event_id: eventGuid, amount: 4, state: 'reserved', barcodes: [] });
    expect(r.expires_at).toMatch(TIMESTAMP);
    expect(Date.parse(r.expires_at) - Date.parse(r.created_at)).toBe(480_000);
    expect(await readTicket(who, guid)).toMatchObject({ reserved_count: 4, status: 'sold_out' });

    const read = await request(`${stack.baseUrl}/reservation/${r.guid}`, { headers: h(who) });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(r);
    expect((await listReservations(who, guid)).map((x) => x.guid)).toEqual([r.guid]);
    expect(await listReservations(who, guid, '?state=pending')).toEqual([]);

    const pending = await moveRest(who, r.guid, 'pending', { ttl_seconds: 600 });
    expect(pending.status, pending.text).toBe(200);
    expect(pending.body.state).toBe('pending');
    expect(Date.parse(pending.body.expires_at) - Date.parse(pending.body.updated_at)).toBe(600_000);
    expect(await readTicket(who, guid)).toMatchObject({ reserved_count: 0, pending_count: 4, sold_count: 0, status: 'sold_out' });
    expect((await listReservations(who, guid, '?state=pending')).map((x) => x.guid)).toEqual([r.guid]);

    const confirmed = await moveRest(who, r.guid, 'confirm');
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body).toMatchObject({ state: 'confirmed', expires_at: null });
    expect(confirmed.body.barcodes).toHaveLength(4);
    expect(await readTicket(who, guid)).toMatchObject({ reserved_count: 0, pending_count: 0, sold_count: 4, scanned_count: 0, status: 'sold_out' });

    const scan = await scanRest(who, eventGuid, confirmed.body.barcodes[2]);
    expect(scan.status, scan.text).toBe(201);
    // Section 9's fields, and section 12's order_id (the reservation's own guid when sold as one) and holder.
    expect(Object.keys(scan.body).sort()).toEqual(['barcode', 'cancelled_at', 'holder', 'order_id', 'reservation_id', 'scanned_at', 'ticket_id']);
    expect(scan.body).toMatchObject({ barcode: confirmed.body.barcodes[2], ticket_id: guid, reservation_id: r.guid, order_id: r.guid, holder: null });
    expect(scan.body.scanned_at).toMatch(TIMESTAMP);
    expect((await readTicket(who, guid)).scanned_count).toBe(1);
    await expectInvariant(who, db, guid);
  });

  it('release returns the stock; a form body works like JSON', async () => {
    const { guid } = await newTicket(who, { available_stock: 3 });
    const form = await request(`${stack.baseUrl}/ticket/${guid}/reservations`, { method: 'POST', headers: h(who), body: new URLSearchParams({ amount: '3', ttl_seconds: '60' }) });
    expect(form.status, form.text).toBe(201);
    expect((await readTicket(who, guid)).status).toBe('sold_out');
    const released = await moveRest(who, form.body.guid, 'release');
    expect(released.body).toMatchObject({ state: 'released', expires_at: null });
    expect(await readTicket(who, guid)).toMatchObject({ reserved_count: 0, status: 'available' });
    await expectInvariant(who, db, guid);
  });
});

describe('lists of reservations', () => {
  it('page with limit and a Link that keeps the ?state= filter; the whole list without limit', async () => {
    const { guid } = await newTicket(who, { available_stock: 10 });
    const made = [];
    for (let i = 0; i < 5; i++) made.push((await reserve(who, guid, { amount: 1 })).body.guid);
    await moveRest(who, made[1], 'release');
    expect((await listReservations(who, guid)).map((r) => r.guid)).toEqual(made);
    const first = await request(`${stack.baseUrl}/ticket/${guid}/reservations?state=reserved&limit=2`, { headers: h(who) });
    expect(first.body.map((r: any) => r.guid)).toEqual([made[0], made[2]]);
    const link = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')![1]!;
    expect(link).toContain('state=reserved');
    const second = await request(`${stack.baseUrl}${link}`, { headers: h(who) });
    expect(second.status, second.text).toBe(200);
    expect(second.body.map((r: any) => r.guid)).toEqual([made[3], made[4]]);
    expect((await listReservations(who, guid, '?state=released')).map((r) => r.guid)).toEqual([made[1]]);
  });
});

describe('expiry, exact to the reader without a sweeper', () => {
  it('after expires_at the stock is back in reads and reservable, and a move answers reservation_expired', async () => {
    const { guid } = await newTicket(who, { available_stock: 2 });
    // A ttl the checks before expiry cannot outlive on a slow machine; the stack's clock is moved past it.
    const first = (await reserve(who, guid, { amount: 2, ttl_seconds: 60 })).body;
    const pendingOne = (await reserve(who, guid, { amount: 1, ttl_seconds: 1 })).body;
    expect(pendingOne.code).toBe('insufficient_stock');
    expect(await readTicket(who, guid)).toMatchObject({ reserved_count: 2, status: 'sold_out' });
    stack.clock.advanceTo(Date.parse(first.expires_at) + 1000);

    expect(await readTicket(who, guid)).toMatchObject({ reserved_count: 0, status: 'available' });
    const read = await request(`${stack.baseUrl}/reservation/${first.guid}`, { headers: h(who) });
    expect(read.body).toMatchObject({ state: 'expired', expires_at: first.expires_at });
    expectConflict(await moveRest(who, first.guid, 'confirm'), 'reservation_expired');
    expectConflict(await moveRest(who, first.guid, 'release'), 'reservation_expired');
    const again = await reserve(who, guid, { amount: 2 });
    expect(again.status, again.text).toBe(201);
    await expectInvariant(who, db, guid);
  });

  it('the lists settle due reservations too: the per-event page, the whole event and the deprecated whole list show the stock back', async () => {
    const { guid, eventGuid } = await newTicket(who, { available_stock: 2 });
    const first = (await reserve(who, guid, { amount: 2, ttl_seconds: 1 })).body;
    stack.clock.advanceTo(Date.parse(first.expires_at) + 1000);

    for (const path of [`/event/${eventGuid}/ticket?limit=10`, `/event/${eventGuid}/ticket`, '/ticket']) {
      const list = await request(`${stack.baseUrl}${path}`, { headers: h(who) });
      expect(list.status, list.text).toBe(200);
      expect((list.body as Array<Record<string, unknown>>).find((ticket) => ticket.guid === guid), path).toMatchObject({ reserved_count: 0, status: 'available' });
    }
    const read = await request(`${stack.baseUrl}/reservation/${first.guid}`, { headers: h(who) });
    expect(read.body).toMatchObject({ state: 'expired' });
  });

  it('a pending reservation expires too, and the next reservation takes its stock even before any read', async () => {
    const { guid } = await newTicket(who, { available_stock: 1 });
    const r = (await reserve(who, guid, { amount: 1 })).body;
    // A ttl the check before expiry cannot outlive on a slow machine; the stack's clock is moved past it.
    const pending = (await moveRest(who, r.guid, 'pending', { ttl_seconds: 60 })).body;
    expectConflict(await reserve(who, guid, { amount: 1 }), 'insufficient_stock');
    stack.clock.advanceTo(Date.parse(pending.expires_at) + 1000);
    expect((await reserve(who, guid, { amount: 1 })).status).toBe(201);
    const states = (await listReservations(who, guid)).map((x) => x.state);
    expect(states).toEqual(['expired', 'reserved']);
    await expectInvariant(who, db, guid);
  });
});

describe('every 409 carries its code', () => {
  it('insufficient_stock, including a margin; not_on_sale by override and by sale window', async () => {
    const { guid } = await newTicket(who, { available_stock: 5, availability_margin: 2 });
    expectConflict(await reserve(who, guid, { amount: 4 }), 'insufficient_stock');
    expect((await reserve(who, guid, { amount: 3 })).status).toBe(201);
    expectConflict(await reserve(who, guid, { amount: 1 }), 'insufficient_stock');
    for (const fields of [{ status_overrule: 'sold_out' }, { status_overrule: 'unavailable' }, { available_from: '2099-01-01T00:00:00Z' }, { available_until: '2001-01-01T00:00:00Z' }]) {
      const closed = await newTicket(who, fields);
      expectConflict(await reserve(who, closed.guid, { amount: 1 }), 'not_on_sale');
    }
    // an override opens a sale outside its window, but never creates stock
    const forced = await newTicket(who, { status_overrule: 'available', available_stock: 1, available_until: '2001-01-01T00:00:00Z' });
    expect((await reserve(who, forced.guid, { amount: 1 })).status).toBe(201);
    expectConflict(await reserve(who, forced.guid, { amount: 1 }), 'insufficient_stock');
  });

  it('invalid_transition for every move from a state that does not allow it', async () => {
    const { guid } = await newTicket(who, { available_stock: 10 });
    const a = (await reserve(who, guid, { amount: 1 })).body;
    await moveRest(who, a.guid, 'pending');
    expectConflict(await moveRest(who, a.guid, 'pending'), 'invalid_transition');
    await moveRest(who, a.guid, 'confirm');
    for (const move of ['pending', 'confirm', 'release'] as const) expectConflict(await moveRest(who, a.guid, move), 'invalid_transition');
    const b = (await reserve(who, guid, { amount: 1 })).body;
    await moveRest(who, b.guid, 'release');
    for (const move of ['pending', 'confirm', 'release'] as const) expectConflict(await moveRest(who, b.guid, move), 'invalid_transition');
    await expectInvariant(who, db, guid);
  });

  it('barcode_taken for a predefined code already used within the event; already_scanned names the first scan', async () => {
    const { guid, eventGuid } = await newTicket(who, { available_stock: 10, barcode_type: 'predefined' });
    const a = (await reserve(who, guid, { amount: 2 })).body;
    const confirmed = await moveRest(who, a.guid, 'confirm', { barcodes: ['ABC-0001', 'abc-0001'] });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body.barcodes).toEqual(['ABC-0001', 'abc-0001']);
    // a second ticket of the same event cannot reuse it either
    const other = await newTicket(who, { available_stock: 10, barcode_type: 'predefined' }, eventGuid);
    const b = (await reserve(who, other.guid, { amount: 1 })).body;
    expectConflict(await moveRest(who, b.guid, 'confirm', { barcodes: ['ABC-0001'] }), 'barcode_taken');
    expect((await request(`${stack.baseUrl}/reservation/${b.guid}`, { headers: h(who) })).body.state).toBe('reserved');
    // another event may use the same code
    const elsewhere = await newTicket(who, { available_stock: 10, barcode_type: 'predefined' });
    const c = (await reserve(who, elsewhere.guid, { amount: 1 })).body;
    expect((await moveRest(who, c.guid, 'confirm', { barcodes: ['ABC-0001'] })).status).toBe(200);

    const first = await scanRest(who, eventGuid, 'ABC-0001');
    expect(first.status).toBe(201);
    const second = await scanRest(who, eventGuid, 'ABC-0001');
    expectConflict(second, 'already_scanned');
    expect(second.body.scanned_at).toBe(first.body.scanned_at);
    expect(second.body.detail).toContain(first.body.scanned_at);
    expect((await scanRest(who, eventGuid, 'NOPE-0001')).status).toBe(404);
    await expectInvariant(who, db, guid);
  });

  it('DELETE of a ticket or event holding reserved or pending stock: 409 stock_held; after release it goes', async () => {
    const { guid, eventGuid } = await newTicket(who, { available_stock: 10 });
    const r = (await reserve(who, guid, { amount: 1 })).body;
    expectConflict(await request(`${stack.baseUrl}/ticket/${guid}`, { method: 'DELETE', headers: h(who) }), 'stock_held');
    expectConflict(await request(`${stack.baseUrl}/event/${eventGuid}`, { method: 'DELETE', headers: h(who) }), 'stock_held');
    await moveRest(who, r.guid, 'pending');
    expectConflict(await request(`${stack.baseUrl}/ticket/${guid}`, { method: 'DELETE', headers: h(who) }), 'stock_held');
    await moveRest(who, r.guid, 'release');
    expect((await request(`${stack.baseUrl}/event/${eventGuid}`, { method: 'DELETE', headers: h(who) })).status).toBe(204);
  });

  it('an expired reservation does not hold a delete back', async () => {
    const { guid } = await newTicket(who, { available_stock: 10 });
    const r = (await reserve(who, guid, { amount: 1, ttl_seconds: 1 })).body;
    stack.clock.advanceTo(Date.parse(r.expires_at) + 1000);
    expect((await request(`${stack.baseUrl}/ticket/${guid}`, { method: 'DELETE', headers: h(who) })).status).toBe(204);
  });
});

describe('validation (422 naming the field)', () => {
  it('amount rules, ttl ranges, unknown fields, barcodes by barcode_type', async () => {
    const { guid } = await newTicket(who, { available_stock: 100, increment: 2, min_orderable_amount_per_order: 2, max_orderable_amount_per_order: 6 });
    const fields = async (res: Promise<any>) => {
      const r = await res;
      expect(r.status, r.text).toBe(422);
      return r.body.errors.map((e: { field: string }) => e.field);
    };
    expect(await fields(reserve(who, guid, {}))).toEqual(['amount']);
    expect(await fields(reserve(who, guid, { amount: 3 }))).toEqual(['amount']);
    expect(await fields(reserve(who, guid, { amount: 8 }))).toEqual(['amount']);
    expect(await fields(reserve(who, guid, { amount: 'two' }))).toEqual(['amount']);
    expect(await fields(reserve(who, guid, { amount: 2, ttl_seconds: 0 }))).toEqual(['ttl_seconds']);
    expect(await fields(reserve(who, guid, { amount: 2, ttl_seconds: 3601 }))).toEqual(['ttl_seconds']);
    expect(await fields(reserve(who, guid, { amount: 2, colour: 'red' }))).toEqual(['colour']);
    expect((await reserve(who, guid, { amount: 2, ttl_seconds: 3600 })).status).toBe(201);
    const r = (await reserve(who, guid, { amount: 4 })).body;
    expect(await fields(moveRest(who, r.guid, 'pending', { ttl_seconds: 0 }))).toEqual(['ttl_seconds']);
    expect(await fields(moveRest(who, r.guid, 'confirm', { barcodes: ['ABCD1234', 'ABCD1235', 'ABCD1236', 'ABCD1237'] }))).toEqual(['barcodes']);
    const predefined = await newTicket(who, { barcode_type: 'predefined' });
    const p = (await reserve(who, predefined.guid, { amount: 2 })).body;
    expect(await fields(moveRest(who, p.guid, 'confirm'))).toEqual(['barcodes']);
    expect(await fields(moveRest(who, p.guid, 'confirm', { barcodes: ['ABCD', 'ABCD'] }))).toEqual(['barcodes']);
    expect(await fields(moveRest(who, p.guid, 'confirm', { barcodes: ['ABC', 'ABCDE'] }))).toEqual(['barcodes']);
    expect(await fields(moveRest(who, p.guid, 'confirm', { barcodes: ['ABCD'] }))).toEqual(['barcodes']);
    const none = await newTicket(who, { barcode_type: 'none' });
    const n = (await reserve(who, none.guid, { amount: 1 })).body;
    const confirmed = await moveRest(who, n.guid, 'confirm');
    expect(confirmed.body).toMatchObject({ state: 'confirmed', barcodes: [] });
    const bad = await request(`${stack.baseUrl}/ticket/${guid}/reservations?state=sold`, { headers: h(who) });
    expect(bad.status).toBe(422);
  });
});

describe('company scope and idempotency', () => {
  it('another company\'s ticket, reservation and barcode are 404', async () => {
    const { guid, eventGuid } = await newTicket(who, { available_stock: 10 });
    const r = (await reserve(who, guid, { amount: 1 })).body;
    const confirmed = (await moveRest(who, r.guid, 'confirm')).body;
    const stranger = await signUpAndLogin(stack);
    const them: Who = { stack, token: stranger.accessToken };
    expect((await reserve(them, guid, { amount: 1 })).status).toBe(404);
    expect((await request(`${stack.baseUrl}/ticket/${guid}/reservations`, { headers: h(them) })).status).toBe(404);
    expect((await request(`${stack.baseUrl}/reservation/${r.guid}`, { headers: h(them) })).status).toBe(404);
    for (const move of ['pending', 'confirm', 'release'] as const) expect((await moveRest(them, r.guid, move)).status).toBe(404);
    expect((await scanRest(them, eventGuid, confirmed.barcodes[0])).status).toBe(404);
    expect((await readTicket(who, guid)).scanned_count).toBe(0);
  });

  it('Idempotency-Key: a retry returns the first reservation and takes stock once; another body with the key is 422', async () => {
    const { guid } = await newTicket(who, { available_stock: 10 });
    const key = { 'Idempotency-Key': `reserve-${Date.now()}` };
    const results = await Promise.all([1, 2, 3].map(() => reserve(who, guid, { amount: 2 }, key)));
    for (const res of results) expect(res.status, res.text).toBe(201);
    expect(new Set(results.map((res) => res.body.guid)).size).toBe(1);
    expect((await readTicket(who, guid)).reserved_count).toBe(2);
    expect((await reserve(who, guid, { amount: 3 }, key)).status).toBe(422);
    await expectInvariant(who, db, guid);
  });
});

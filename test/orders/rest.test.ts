/**
 * PRODUCT.md 12 over REST: POST /event/{guid}/orders (201 + Location, Idempotency-Key),
 * GET /order/{guid}, and the moves, with the errors of a reservation's (422 naming
 * lines[i].field, 409 with code and ticket_id). The rules themselves are the service's,
 * proven over gRPC in the other files here; this file proves the translation.
 */
import { describe, expect, it } from 'vitest';
import { expectConflict, expectInvariant, newEvent, newTicket } from '../support/stock.js';
import { h, readTicket, type Who } from '../support/api.js';
import { request, signUpAndLogin, type JsonResponse } from '../support/http.js';
import { createOrderRest, LINE_KEYS, ORDER_KEYS, orderMoveRest, orderSuiteOfFile, readOrderRest } from './helpers.js';

const suite = orderSuiteOfFile();

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;

/** An event with two tickets of 10 each (the first sold at the box office too, the second with `second`'s fields). */
async function cart(second: Record<string, unknown> = {}) {
  const event = await newEvent(suite.who);
  const adult = (await newTicket(suite.who, { available_stock: 10, available_in_cashr: true }, event)).guid;
  const child = (await newTicket(suite.who, { available_stock: 10, ...second }, event)).guid;
  return { event, adult, child };
}

describe('orders over REST', { timeout: 60_000 }, () => {
  it('create: 201 + Location + the order object, exactly its keys; GET reads the same', async () => {
    const { event, adult, child } = await cart();
    const created = await createOrderRest(suite.who, event, { lines: [{ ticket_id: adult, amount: 2 }, { ticket_id: child, amount: 1 }] });
    expect(created.status, created.text).toBe(201);
    const order = created.body;
    expect(created.headers.get('location')).toBe(`/order/${order.guid}`);
    expect(Object.keys(order)).toEqual(ORDER_KEYS);
    expect(order).toMatchObject({ event_id: event, channel: 'online', state: 'reserved' });
    // Free tickets (min_price null) at the default VAT of the cart's tickets: every amount 0.
    const free = { unit_price: 0, unit_discount: 0, unit_service_costs: 0, unit_total: 0, vat_percentage: 21, unit_vat: 0, discount: 0, service_costs: 0, vat: 0, total: 0 };
    expect(order.lines).toEqual([
      { ticket_id: adult, amount: 2, barcodes: [], price: free },
      { ticket_id: child, amount: 1, barcodes: [], price: free },
    ]);
    expect(order).toMatchObject({ currency: 'EUR', coupon_code: null, totals: { subtotal: 0, total: 0, vat: 0, vat_breakdown: [{ vat_percentage: 21, total: 0, vat: 0, net: 0 }] } });
    for (const line of order.lines) expect(Object.keys(line)).toEqual(LINE_KEYS);
    for (const at of [order.expires_at, order.created_at, order.updated_at]) expect(at).toMatch(TIMESTAMP);
    expect(Date.parse(order.expires_at) - Date.parse(order.created_at)).toBe(480_000);
    expect(await expectInvariant(suite.who, suite.db, adult)).toEqual({ sold: 0, reserved: 2, pending: 0 });

    const read = await readOrderRest(suite.who, order.guid);
    expect(read.status, read.text).toBe(200);
    expect(read.body).toEqual(order);
  });

  it('ttl_seconds and channel box_office are taken from the body', async () => {
    const { event, adult } = await cart();
    const created = await createOrderRest(suite.who, event, { lines: [{ ticket_id: adult, amount: 1 }], ttl_seconds: 60, channel: 'box_office' });
    expect(created.status, created.text).toBe(201);
    expect(created.body.channel).toBe('box_office');
    expect(Date.parse(created.body.expires_at) - Date.parse(created.body.created_at)).toBe(60_000);
  });

  it('pending, then confirm with predefined barcodes per line: every line moves; barcodes are {code, holder, cancelled_at}', async () => {
    const { event, adult, child } = await cart({ barcode_type: 'predefined' });
    const order = (await createOrderRest(suite.who, event, { lines: [{ ticket_id: adult, amount: 2 }, { ticket_id: child, amount: 1 }] })).body;
    const pending = await orderMoveRest(suite.who, order.guid, 'pending', { ttl_seconds: 600 });
    expect(pending.status, pending.text).toBe(200);
    expect(pending.body.state).toBe('pending');
    expect(Date.parse(pending.body.expires_at) - Date.parse(pending.body.updated_at)).toBe(600_000);
    expect(await readTicket(suite.who, child)).toMatchObject({ reserved_count: 0, pending_count: 1 });

    const missing = await orderMoveRest(suite.who, order.guid, 'confirm');
    expect(missing.status, missing.text).toBe(422);
    expect(missing.body.errors.map((e: { field: string }) => e.field)).toEqual(['lines[1].barcodes']);

    const confirmed = await orderMoveRest(suite.who, order.guid, 'confirm', { lines: [{ ticket_id: child, barcodes: ['GATE-0001'] }] });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body).toMatchObject({ state: 'confirmed', expires_at: null });
    expect(confirmed.body.lines[0].barcodes).toHaveLength(2);
    for (const barcode of confirmed.body.lines[0].barcodes) expect(barcode).toEqual({ code: expect.stringMatching(/^\w{16}$/), holder: null, cancelled_at: null });
    expect(confirmed.body.lines[1].barcodes).toEqual([{ code: 'GATE-0001', holder: null, cancelled_at: null }]);
    expect(await expectInvariant(suite.who, suite.db, adult)).toEqual({ sold: 2, reserved: 0, pending: 0 });
    expect(await expectInvariant(suite.who, suite.db, child)).toEqual({ sold: 1, reserved: 0, pending: 0 });
    expect((await readOrderRest(suite.who, order.guid)).body).toEqual(confirmed.body);

    expectConflict(await orderMoveRest(suite.who, order.guid, 'release'), 'invalid_transition');
  });

  it('release gives every line\'s stock back', async () => {
    const { event, adult, child } = await cart();
    const order = (await createOrderRest(suite.who, event, { lines: [{ ticket_id: adult, amount: 3 }, { ticket_id: child, amount: 4 }] })).body;
    const released = await orderMoveRest(suite.who, order.guid, 'release');
    expect(released.status, released.text).toBe(200);
    expect(released.body).toMatchObject({ state: 'released', expires_at: null });
    expect(await expectInvariant(suite.who, suite.db, adult)).toEqual({ sold: 0, reserved: 0, pending: 0 });
    expect(await expectInvariant(suite.who, suite.db, child)).toEqual({ sold: 0, reserved: 0, pending: 0 });
  });

  it('422 names the line: lines[1].amount (the ticket\'s rules), lines[0].ticket_id (not of the event); nothing is taken', async () => {
    const { event, adult, child } = await cart({ max_orderable_amount_per_order: 2 });
    const tooMany = await createOrderRest(suite.who, event, { lines: [{ ticket_id: adult, amount: 1 }, { ticket_id: child, amount: 3 }] });
    expect(tooMany.status, tooMany.text).toBe(422);
    expect(tooMany.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(tooMany.body.errors.map((e: { field: string }) => e.field)).toEqual(['lines[1].amount']);

    const other = (await newTicket(suite.who, { available_stock: 10 })).guid;
    const foreign = await createOrderRest(suite.who, event, { lines: [{ ticket_id: other, amount: 1 }] });
    expect(foreign.status, foreign.text).toBe(422);
    expect(foreign.body.errors.map((e: { field: string }) => e.field)).toEqual(['lines[0].ticket_id']);

    const none = await createOrderRest(suite.who, event, { lines: [] });
    expect(none.status, none.text).toBe(422);
    expect(none.body.errors.map((e: { field: string }) => e.field)).toEqual(['lines']);
    expect(await expectInvariant(suite.who, suite.db, adult)).toEqual({ sold: 0, reserved: 0, pending: 0 });
  });

  it('422 for wrong types, before the service: each named, a line\'s as lines[i].field', async () => {
    const { event, adult } = await cart();
    const res = await createOrderRest(suite.who, event, { lines: [{ ticket_id: adult, amount: 'two', colour: 'red' }], ttl_seconds: 'soon', channel: 7 });
    expect(res.status, res.text).toBe(422);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['channel', 'lines[0].amount', 'lines[0].colour', 'ttl_seconds']);
    const notList = await createOrderRest(suite.who, event, { lines: { ticket_id: adult, amount: 1 } });
    expect(notList.status, notList.text).toBe(422);
    expect(notList.body.errors.map((e: { field: string }) => e.field)).toEqual(['lines']);
    const unknownChannel = await createOrderRest(suite.who, event, { lines: [{ ticket_id: adult, amount: 1 }], channel: 'kiosk' });
    expect(unknownChannel.status, unknownChannel.text).toBe(422);
    expect(unknownChannel.body.errors.map((e: { field: string }) => e.field)).toEqual(['channel']);
    expect(await expectInvariant(suite.who, suite.db, adult)).toEqual({ sold: 0, reserved: 0, pending: 0 });
  });

  it('409 names the refused line\'s ticket: insufficient_stock with ticket_id and remaining; nothing is taken', async () => {
    const { event, adult, child } = await cart({ available_stock: 2 });
    const res = await createOrderRest(suite.who, event, { lines: [{ ticket_id: adult, amount: 1 }, { ticket_id: child, amount: 3 }] });
    expectConflict(res, 'insufficient_stock');
    expect(res.body).toMatchObject({ ticket_id: child, remaining: 2 });
    expect(await expectInvariant(suite.who, suite.db, adult)).toEqual({ sold: 0, reserved: 0, pending: 0 });
  });

  it('409 not_on_sale naming the ticket for a box_office order of a ticket not available_in_cashr', async () => {
    const { event, adult, child } = await cart({ available_in_cashr: false });
    const res = await createOrderRest(suite.who, event, { lines: [{ ticket_id: adult, amount: 1 }, { ticket_id: child, amount: 1 }], channel: 'box_office' });
    expectConflict(res, 'not_on_sale');
    expect(res.body.ticket_id).toBe(child);
  });

  it('409 barcode_taken names the line that sent the taken predefined code; nothing of the confirmation is kept', async () => {
    const { event, adult, child } = await cart({ barcode_type: 'predefined' });
    const first = (await createOrderRest(suite.who, event, { lines: [{ ticket_id: child, amount: 1 }] })).body;
    expect((await orderMoveRest(suite.who, first.guid, 'confirm', { lines: [{ ticket_id: child, barcodes: ['GATE-TAKEN'] }] })).status).toBe(200);
    const order = (await createOrderRest(suite.who, event, { lines: [{ ticket_id: adult, amount: 1 }, { ticket_id: child, amount: 1 }] })).body;
    const res = await orderMoveRest(suite.who, order.guid, 'confirm', { lines: [{ ticket_id: child, barcodes: ['GATE-TAKEN'] }] });
    expectConflict(res, 'barcode_taken');
    expect(res.body.ticket_id).toBe(child);
    expect((await readOrderRest(suite.who, order.guid)).body.state).toBe('reserved');
    expect(await expectInvariant(suite.who, suite.db, adult)).toEqual({ sold: 0, reserved: 1, pending: 0 });
  });

  it('Idempotency-Key: a retry returns the first order and takes stock once; another body with the key is 422', async () => {
    const { event, adult } = await cart();
    const key = { 'Idempotency-Key': `order-${Date.now()}-${Math.random()}` };
    const body = { lines: [{ ticket_id: adult, amount: 2 }] };
    const results = await Promise.all([1, 2, 3].map(() => createOrderRest(suite.who, event, body, key)));
    for (const res of results) expect(res.status, res.text).toBe(201);
    expect(new Set(results.map((res) => res.body.guid)).size).toBe(1);
    expect((await readTicket(suite.who, adult)).reserved_count).toBe(2);
    expect((await createOrderRest(suite.who, event, { lines: [{ ticket_id: adult, amount: 3 }] }, key)).status).toBe(422);
    await expectInvariant(suite.who, suite.db, adult);
  });

  it('another company\'s event and order are 404; unknown methods are 405', async () => {
    const { event, adult } = await cart();
    const order = (await createOrderRest(suite.who, event, { lines: [{ ticket_id: adult, amount: 1 }] })).body;
    const them: Who = { stack: suite.stack, token: (await signUpAndLogin(suite.stack)).accessToken };
    expect((await createOrderRest(them, event, { lines: [{ ticket_id: adult, amount: 1 }] })).status).toBe(404);
    expect((await readOrderRest(them, order.guid)).status).toBe(404);
    for (const move of ['pending', 'confirm', 'release'] as const) expect((await orderMoveRest(them, order.guid, move)).status).toBe(404);
    expect((await request(`${suite.stack.baseUrl}/order/${order.guid}`, { method: 'DELETE', headers: { authorization: `Bearer ${suite.who.token}` } })).status).toBe(405);
    expect(await expectInvariant(suite.who, suite.db, adult)).toEqual({ sold: 0, reserved: 1, pending: 0 });
  });
});

describe('GET /event/{guid}/orders: the orders of an event like other lists', { timeout: 60_000 }, () => {
  const list = (event: string, query = '') => request(`${suite.stack.baseUrl}/event/${event}/orders${query}`, { headers: h(suite.who) });

  it('in creation order, whole or page by page (Link keeps ?state=), filtered by state; due orders read as expired', async () => {
    const { event, adult, child } = await cart();
    const make = async (ttl?: number) => (await createOrderRest(suite.who, event, { lines: [{ ticket_id: adult, amount: 1 }, { ticket_id: child, amount: 1 }], ...(ttl ? { ttl_seconds: ttl } : {}) })).body;
    const first = await make();
    const second = await make();
    const third = await make();
    // A ttl the reads before the expiry cannot outlive on a slow machine; the stack's clock is moved past it.
    const due = await make(60);
    await orderMoveRest(suite.who, second.guid, 'confirm');
    await orderMoveRest(suite.who, third.guid, 'release');

    const whole = await list(event);
    expect(whole.status, whole.text).toBe(200);
    expect(whole.body.map((o: { guid: string }) => o.guid)).toEqual([first.guid, second.guid, third.guid, due.guid]);
    expect(whole.body[1]).toEqual((await readOrderRest(suite.who, second.guid)).body);

    const pageOne = await list(event, '?state=reserved&limit=1');
    expect(pageOne.status, pageOne.text).toBe(200);
    expect(pageOne.body.map((o: { guid: string }) => o.guid)).toEqual([first.guid]);
    expect(pageOne.headers.get('link')).toMatch(/[?&]state=reserved[&>]/);
    suite.stack.clock.advanceTo(Date.parse(due.expires_at) + 1000);
    const expired = await list(event, '?state=expired');
    expect(expired.body.map((o: { guid: string }) => o.guid)).toEqual([due.guid]);
    expect((await list(event, '?state=confirmed')).body.map((o: { guid: string }) => o.guid)).toEqual([second.guid]);

    const pages: string[] = [];
    let next: string | undefined = `${suite.stack.baseUrl}/event/${event}/orders?limit=3`;
    while (next) {
      const res: JsonResponse = await request(next, { headers: h(suite.who) });
      expect(res.status, res.text).toBe(200);
      pages.push(...res.body.map((o: { guid: string }) => o.guid));
      next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
      if (next && !next.startsWith('http')) next = `${suite.stack.baseUrl}${next}`;
    }
    expect(pages).toEqual([first.guid, second.guid, third.guid, due.guid]);
    expect(await expectInvariant(suite.who, suite.db, adult)).toEqual({ sold: 1, reserved: 1, pending: 0 });
  });

  it('422 for an unknown state or limit; 404 for another company\'s event', async () => {
    const { event } = await cart();
    const bad = await list(event, '?state=paid');
    expect(bad.status, bad.text).toBe(422);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['state']);
    expect((await list(event, '?limit=0')).status).toBe(422);
    const other = await cart();
    for (let i = 0; i < 2; i++) await createOrderRest(suite.who, other.event, { lines: [{ ticket_id: other.adult, amount: 1 }] });
    const cursor = /cursor=([^&>]+)/.exec((await list(other.event, '?limit=1')).headers.get('link') ?? '')?.[1];
    expect(cursor).toBeTruthy();
    expect((await list(event, `?limit=1&cursor=${cursor}`)).status).toBe(422);
    const them: Who = { stack: suite.stack, token: (await signUpAndLogin(suite.stack)).accessToken };
    expect((await request(`${suite.stack.baseUrl}/event/${event}/orders`, { headers: h(them) })).status).toBe(404);
  });
});

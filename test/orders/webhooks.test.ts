/**
 * PRODUCT.md 12 "Webhooks": order.created, .pending, .confirmed, .released, .expired, each
 * recorded in the outbox with the move (same transaction) and `data` = the order as REST reads
 * it. An order line is no reservation to the outside: it records no reservation.* event, and
 * an order expires with one order.expired, not one per line (docs/webhooks.md).
 */
import { describe, expect, it } from 'vitest';
import { moveEventTypes } from '../../lib/stock-moves.js';
import { grpcFailure, newEvent, newTicket } from '../support/stock.js';
import { h } from '../support/api.js';
import { request } from '../support/http.js';
import { createOrderRest, orderMoveRest, orderSuiteOfFile, readOrderRest } from './helpers.js';

const suite = orderSuiteOfFile();

interface Recorded {
  type: string;
  company_id: string;
  data: any;
}

/** The outbox events whose data names `guid` (an order's or a line's), in the order recorded. */
async function eventsNaming(guid: string): Promise<Recorded[]> {
  const rows = (await suite.db('webhook_events').whereRaw('data like ?', [`%${guid}%`]).orderBy('id').select('type', 'company_id', 'data')) as Array<{ type: string; company_id: string; data: string }>;
  return rows.map((row) => ({ type: row.type, company_id: row.company_id, data: JSON.parse(row.data) }));
}

async function lineGuids(orderGuid: string): Promise<string[]> {
  return (await suite.db('reservations').where('order_id', orderGuid).orderBy('id').pluck('guid')) as string[];
}

/** The events naming any of the order's lines by their own guid (a line's reservation event would). */
async function lineEvents(orderGuid: string): Promise<Recorded[]> {
  return (await Promise.all((await lineGuids(orderGuid)).map(eventsNaming))).flat();
}

async function twoTickets(second: Record<string, unknown> = {}) {
  const event = await newEvent(suite.who);
  const a = await newTicket(suite.who, { available_stock: 10 }, event);
  const b = await newTicket(suite.who, { available_stock: 10, ...second }, event);
  return { event, a: a.guid, b: b.guid };
}

describe('order webhooks', { timeout: 60_000 }, () => {
  it('subscribing to the order.* types is accepted; they are the move table\'s events', async () => {
    expect(moveEventTypes('order')).toEqual(['order.created', 'order.pending', 'order.confirmed', 'order.released', 'order.expired', 'order.cancelled']);
    const res = await request(`${suite.stack.baseUrl}/webhooks`, { method: 'POST', headers: h(suite.who), json: { url: 'https://hooks.example.com/orders', events: moveEventTypes('order') } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.events).toEqual(moveEventTypes('order'));
  });

  it('REST: created, pending, confirmed each record one event whose data is the order as REST reads it; the lines record none', async () => {
    const { event, a, b } = await twoTickets();
    const created = await createOrderRest(suite.who, event, { lines: [{ ticket_id: a, amount: 2 }, { ticket_id: b, amount: 1 }] });
    expect(created.status, created.text).toBe(201);
    const guid = created.body.guid as string;
    expect(await eventsNaming(guid)).toEqual([{ type: 'order.created', company_id: created.body.company_id, data: created.body }]);

    const pending = await orderMoveRest(suite.who, guid, 'pending');
    expect(pending.status, pending.text).toBe(200);
    const confirmed = await orderMoveRest(suite.who, guid, 'confirm');
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body.lines[0].barcodes).toHaveLength(2);
    const events = await eventsNaming(guid);
    expect(events.map((e) => e.type)).toEqual(['order.created', 'order.pending', 'order.confirmed']);
    expect(events[1]!.data).toEqual(pending.body);
    expect(events[2]!.data).toEqual(confirmed.body);
    expect(events[2]!.data).toEqual((await readOrderRest(suite.who, guid)).body);
    expect(await lineEvents(guid)).toEqual([]);
  });

  it('gRPC: release records order.released with the released order', async () => {
    const { event, a } = await twoTickets();
    const order = await suite.orders.create(event, [{ ticket_id: a, amount: 1 }]);
    await suite.orders.release(order.guid);
    const events = await eventsNaming(order.guid);
    expect(events.map((e) => e.type)).toEqual(['order.created', 'order.released']);
    expect(events[1]!.data).toEqual((await readOrderRest(suite.who, order.guid)).body);
    expect(events[1]!.data.state).toBe('released');
  });

  it('a refused move records nothing: confirm without a predefined line\'s codes', async () => {
    const { event, a, b } = await twoTickets({ barcode_type: 'predefined' });
    const order = await suite.orders.create(event, [{ ticket_id: a, amount: 1 }, { ticket_id: b, amount: 1 }]);
    await grpcFailure(suite.orders.confirm(order.guid));
    expect((await eventsNaming(order.guid)).map((e) => e.type)).toEqual(['order.created']);
  });

  it('expiry of an order of two lines: one order.expired with the expired order, no reservation.expired of its lines', async () => {
    const { event, a, b } = await twoTickets();
    const order = await suite.orders.create(event, [{ ticket_id: a, amount: 2 }, { ticket_id: b, amount: 3 }], { ttl_seconds: 1 });
    suite.stack.clock.advanceTo(order.expires_at!.getTime() + 1000);
    const read = await readOrderRest(suite.who, order.guid);
    expect(read.body.state).toBe('expired');
    // Reads of both tickets settle whatever else is due: still one event.
    await request(`${suite.stack.baseUrl}/ticket/${a}`, { headers: h(suite.who) });
    await request(`${suite.stack.baseUrl}/ticket/${b}`, { headers: h(suite.who) });
    const events = await eventsNaming(order.guid);
    expect(events.map((e) => e.type)).toEqual(['order.created', 'order.expired']);
    expect(events[1]!.data).toEqual(read.body);
    expect(await lineEvents(order.guid)).toEqual([]);
  });

  it('barcode.holder_changed: recorded with a holder change, data the order with the new holder; none for the same holder again or a refusal', async () => {
    const { event, a, b } = await twoTickets({ late_personalization: true, swappable: false });
    const order = await suite.orders.create(event, [{ ticket_id: a, amount: 1 }, { ticket_id: b, amount: 1 }]);
    const confirmed = await suite.orders.confirm(order.guid);
    const [fixedCode, lateCode] = confirmed.lines.map((line) => line.barcodes[0]!.code);
    const put = (code: string, holder: unknown) =>
      request(`${suite.stack.baseUrl}/order/${order.guid}/barcodes/${code}`, { method: 'PUT', headers: h(suite.who), json: { holder } });

    const named = await put(lateCode!, { name: 'Ada Lovelace', email: 'ada@example.com' });
    expect(named.status, named.text).toBe(200);
    expect((await put(lateCode!, { name: 'Ada Lovelace', email: 'ada@example.com' })).status).toBe(200);
    expect((await put(fixedCode!, { name: 'Ada Lovelace', email: 'ada@example.com' })).status).toBe(409);
    // Not swappable: clearing is refused too.
    expect((await put(lateCode!, null)).status).toBe(409);

    const events = await eventsNaming(order.guid);
    expect(events.map((e) => e.type)).toEqual(['order.created', 'order.confirmed', 'barcode.holder_changed']);
    expect(events[2]!.data).toEqual(named.body);
    expect(events[2]!.data.lines[1].barcodes[0].holder).toEqual({ name: 'Ada Lovelace', email: 'ada@example.com' });
    const subscribed = await request(`${suite.stack.baseUrl}/webhooks`, { method: 'POST', headers: h(suite.who), json: { url: 'https://hooks.example.com/holders', events: ['barcode.holder_changed'] } });
    expect(subscribed.status, subscribed.text).toBe(201);
  });
});

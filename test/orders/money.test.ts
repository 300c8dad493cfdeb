/**
 * Money of orders (docs/orders.md "Money"), over REST and gRPC, on both backends: the worked
 * examples row by row, totals and the VAT per rate, expected_total on create and confirm, the
 * event's currency and its lock, and prices fixed when an order is made.
 */
import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { readErrorDetails } from '../../lib/grpc/errors.js';
import { request } from '../support/http.js';
import { expectConflict, expectInvariant, grpcFailure, newTicket } from '../support/stock.js';
import { h } from '../support/api.js';
import { createOrderRest, orderMoveRest, orderSuiteOfFile, readOrderRest } from './helpers.js';

const suite = orderSuiteOfFile();

async function eventIn(currency?: string): Promise<string> {
  const res = await request(`${suite.who.stack.baseUrl}/event`, { method: 'POST', headers: h(suite.who), json: { name: 'Priced event', ...(currency ? { currency } : {}) } });
  expect(res.status, res.text).toBe(201);
  return res.body.guid as string;
}

const putEvent = (guid: string, body: Record<string, unknown>) => request(`${suite.who.stack.baseUrl}/event/${guid}`, { method: 'PUT', headers: h(suite.who), json: body });
const putTicket = (guid: string, body: Record<string, unknown>) => request(`${suite.who.stack.baseUrl}/ticket/${guid}`, { method: 'PUT', headers: h(suite.who), json: body });
const fields = (res: { body: { errors?: Array<{ field: string }> } }) => res.body.errors?.map((e) => e.field);

/** The worked examples: min_price, p, included, v -> unit_service_costs, unit_total, unit_vat (gRPC strings with the currency's digits). */
const WORKED = [
  { currency: 'EUR', min_price: 100, p: 0, included: false, v: 21, costs: '0.00', total: '100.00', vat: '17.36' },
  { currency: 'EUR', min_price: 20, p: 5, included: false, v: 21, costs: '1.00', total: '21.00', vat: '3.64' },
  { currency: 'EUR', min_price: 20, p: 5, included: true, v: 9, costs: '1.00', total: '20.00', vat: '1.65' },
  { currency: 'EUR', min_price: 9.99, p: 2.5, included: false, v: 21, costs: '0.25', total: '10.24', vat: '1.78' },
  { currency: 'EUR', min_price: 0.5, p: 1, included: false, v: 21, costs: '0.01', total: '0.51', vat: '0.09' },
  { currency: 'JPY', min_price: 1500, p: 10, included: false, v: 10, costs: '150', total: '1650', vat: '150' },
  { currency: 'EUR', min_price: null, p: 5, included: false, v: 21, costs: '0.00', total: '0.00', vat: '0.00' },
];

describe('the price of a line: the worked examples', { timeout: 60_000 }, () => {
  it.each(WORKED)('$min_price $currency, service costs $p% (included $included), VAT $v%: $costs, $total, $vat a unit; three units three times that', async (row) => {
    const event = await eventIn(row.currency);
    const { guid } = await newTicket(
      suite.who,
      { min_price: row.min_price, percentage_service_costs_in_ticket: row.p, include_service_cost_in_price: row.included, vat_percentage: row.v, available_stock: 10 },
      event,
    );
    const order = await suite.orders.create(event, [{ ticket_id: guid, amount: 3 }]);
    const price = order.lines[0]!.price!;
    expect(order.currency).toBe(row.currency);
    expect({ costs: price.unit_service_costs, total: price.unit_total, vat: price.unit_vat }).toEqual({ costs: row.costs, total: row.total, vat: row.vat });
    const times3 = (text: string) => (row.currency === 'JPY' ? String(Number(text) * 3) : (Math.round(Number(text) * 100) * 3 / 100).toFixed(2));
    expect({ costs: price.service_costs, total: price.total, vat: price.vat }).toEqual({ costs: times3(row.costs), total: times3(row.total), vat: times3(row.vat) });
    expect(order.totals).toMatchObject({ total: times3(row.total), vat: times3(row.vat), service_costs: times3(row.costs) });
    // REST: the same amounts as JSON numbers.
    const read = await readOrderRest(suite.who, order.guid);
    expect(read.body.lines[0].price).toMatchObject({ unit_service_costs: Number(row.costs), unit_total: Number(row.total), unit_vat: Number(row.vat) });
    expect(read.body.totals.total).toBe(Number(times3(row.total)));
  });
});

describe('totals', { timeout: 60_000 }, () => {
  it('sum the lines; the VAT per rate, ordered by rate, net + vat = total; the webhook carries them', async () => {
    const event = await eventIn();
    const adult = await newTicket(suite.who, { min_price: 20, percentage_service_costs_in_ticket: 5, vat_percentage: 21 }, event);
    const child = await newTicket(suite.who, { min_price: 9.99, vat_percentage: 9 }, event);
    const parking = await newTicket(suite.who, { min_price: 5, vat_percentage: 21 }, event);
    const created = await createOrderRest(suite.who, event, {
      lines: [
        { ticket_id: adult.guid, amount: 2 },
        { ticket_id: child.guid, amount: 1 },
        { ticket_id: parking.guid, amount: 1 },
      ],
    });
    expect(created.status, created.text).toBe(201);
    // 2 x 21.00 + 9.99 + 5.00; VAT 2 x 3.64 + 0.82 + 0.87.
    expect(created.body.totals).toEqual({
      subtotal: 54.99,
      discount: 0,
      service_costs: 2,
      vat: 8.97,
      total: 56.99,
      vat_breakdown: [
        { vat_percentage: 9, total: 9.99, vat: 0.82, net: 9.17 },
        { vat_percentage: 21, total: 47, vat: 8.15, net: 38.85 },
      ],
    });
    const events = (await suite.db('webhook_events').where('type', 'order.created').where('data', 'like', `%${created.body.guid}%`).pluck('data')) as string[];
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]!).totals).toEqual(created.body.totals);
  });
});

describe('expected_total', { timeout: 60_000 }, () => {
  it('create: a different total is 409 price_changed with the actual total, nothing taken; the shown one sells', async () => {
    const event = await eventIn();
    const { guid } = await newTicket(suite.who, { min_price: 20, percentage_service_costs_in_ticket: 5, vat_percentage: 21, available_stock: 10 }, event);
    const refused = await createOrderRest(suite.who, event, { lines: [{ ticket_id: guid, amount: 2 }], expected_total: 40 });
    expectConflict(refused, 'price_changed');
    expect(refused.body).toMatchObject({ total: 42, currency: 'EUR' });
    expect(await expectInvariant(suite.who, suite.db, guid)).toEqual({ sold: 0, reserved: 0, pending: 0 });
    const tooPrecise = await createOrderRest(suite.who, event, { lines: [{ ticket_id: guid, amount: 2 }], expected_total: '42.001' });
    expect(tooPrecise.status).toBe(422);
    expect(fields(tooPrecise)).toEqual(['expected_total']);
    const notAnAmount = await createOrderRest(suite.who, event, { lines: [{ ticket_id: guid, amount: 2 }], expected_total: 'forty-two' });
    expect(notAnAmount.status).toBe(422);
    expect(fields(notAnAmount)).toEqual(['expected_total']);
    const sold = await createOrderRest(suite.who, event, { lines: [{ ticket_id: guid, amount: 2 }], expected_total: 42 });
    expect(sold.status, sold.text).toBe(201);
    expect(sold.body.totals.total).toBe(42);
  });

  it('confirm: a different total is 409 price_changed and nothing is confirmed (gRPC too); the right one confirms', async () => {
    const event = await eventIn('JPY');
    const { guid } = await newTicket(suite.who, { min_price: 1500, percentage_service_costs_in_ticket: 10, vat_percentage: 10, available_stock: 10 }, event);
    const order = await suite.orders.create(event, [{ ticket_id: guid, amount: 2 }]);
    expect(order.totals!.total).toBe('3300');
    const rest = await orderMoveRest(suite.who, order.guid, 'confirm', { expected_total: 3000 });
    expectConflict(rest, 'price_changed');
    const grpc = await grpcFailure(suite.orders.confirm(order.guid, [], '3000'));
    expect(grpc.code).toBe(status.FAILED_PRECONDITION);
    expect(readErrorDetails(grpc)).toMatchObject({ reason: 'price_changed', reasonMetadata: { total: '3300' } });
    const decimals = await orderMoveRest(suite.who, order.guid, 'confirm', { expected_total: 3300.5 });
    expect(fields(decimals)).toEqual(['expected_total']);
    expect((await readOrderRest(suite.who, order.guid)).body.state).toBe('reserved');
    const confirmed = await orderMoveRest(suite.who, order.guid, 'confirm', { expected_total: 3300 });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body).toMatchObject({ state: 'confirmed', totals: { total: 3300 } });
  });
});

describe('the event\'s currency', { timeout: 60_000 }, () => {
  it('is EUR unless sent; one the table lacks (3 digits, unknown, lower case) is 422 naming currency', async () => {
    const plain = await request(`${suite.who.stack.baseUrl}/event/${await eventIn()}`, { headers: h(suite.who) });
    expect(plain.body.currency).toBe('EUR');
    for (const currency of ['BHD', 'XYZ', 'eur', 'EURO', '']) {
      const res = await request(`${suite.who.stack.baseUrl}/event`, { method: 'POST', headers: h(suite.who), json: { name: 'x', currency } });
      expect(res.status, currency).toBe(422);
      expect(fields(res), currency).toEqual(['currency']);
    }
  });

  it('a min_price with more digits than the currency is 422 naming min_price, at creation and update', async () => {
    const event = await eventIn('JPY');
    const refused = await request(`${suite.who.stack.baseUrl}/event/${event}/ticket`, { method: 'POST', headers: h(suite.who), json: { name: 'x', vat_percentage: 10, min_price: 1500.5 } });
    expect(refused.status).toBe(422);
    expect(fields(refused)).toEqual(['min_price']);
    const { guid } = await newTicket(suite.who, { min_price: 1500, vat_percentage: 10 }, event);
    const update = await putTicket(guid, { min_price: 9.99 });
    expect(update.status).toBe(422);
    expect(fields(update)).toEqual(['min_price']);
  });

  it('cannot change while a sale is live or confirmed (409 currency_locked), nor to fewer digits than a min_price has (422); it can when nothing is sold', async () => {
    const event = await eventIn();
    const { guid } = await newTicket(suite.who, { min_price: 9.99, vat_percentage: 21, available_stock: 5 }, event);
    expect(fields(await putEvent(event, { currency: 'JPY' }))).toEqual(['currency']);
    const changed = await putEvent(event, { currency: 'USD' });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.currency).toBe('USD');
    const order = await suite.orders.create(event, [{ ticket_id: guid, amount: 1 }]);
    expect(order.currency).toBe('USD');
    expectConflict(await putEvent(event, { currency: 'GBP' }), 'currency_locked');
    await suite.orders.confirm(order.guid);
    expectConflict(await putEvent(event, { currency: 'GBP' }), 'currency_locked');
    expect((await putEvent(event, { currency: 'USD', name: 'Same currency' })).status).toBe(200);
  });
});

describe('fixed when made', { timeout: 120_000 }, () => {
  it('price changes while orders are confirmed change none of them: each confirms and reads at the total it was made with', async () => {
    const event = await eventIn();
    const { guid } = await newTicket(suite.who, { min_price: 10, vat_percentage: 21, available_stock: 100 }, event);
    const orders = [];
    for (let i = 0; i < 10; i++) orders.push(await suite.orders.create(event, [{ ticket_id: guid, amount: 1 }]));
    const prices = [11, 12.5, 13, 14.99, 15];
    const [confirmed] = await Promise.all([
      Promise.all(orders.map((order) => suite.orders.confirm(order.guid, [], '10.00'))),
      (async () => {
        for (const price of prices) expect((await putTicket(guid, { min_price: price })).status).toBe(200);
      })(),
    ]);
    for (const order of confirmed) expect(order.totals!.total).toBe('10.00');
    for (const order of orders) expect((await suite.orders.get(order.guid)).totals).toEqual(order.totals);
    const later = await suite.orders.create(event, [{ ticket_id: guid, amount: 1 }]);
    expect(later.totals!.total).toBe('15.00');
  });
});

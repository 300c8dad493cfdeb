/**
 * PRODUCT.md 15 "Use", "Discount", "hide_without_coupon" and "Refusals" (docs/coupons.md), on
 * both backends, over REST and gRPC: an order's coupon_code, each discount type and
 * applies_to_count, hidden tickets, the refusals (no oracle for a code that does not work), uses
 * given back by release, expiry and full cancellation, and never more uses than usage_count
 * under any concurrency. The coupons and codes are written into the ticket database as the
 * coupon catalogue stores them, so this file tests the use alone.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { toDbTime } from '../../lib/db.js';
import { readTicket } from '../support/api.js';
import { signUpAndLogin, type JsonResponse } from '../support/http.js';
import { WRONG_CODES_PER_TOKEN } from '../../gateway/coupon-tries.js';
import { expectConflict, expectInvariant, newEvent, newTicket, reserve, restPatiently } from '../support/stock.js';
import { createOrderRest, orderMoveRest, orderSuiteOfFile } from '../orders/helpers.js';

const suite = orderSuiteOfFile();

interface CouponFixture {
  discount_type?: 'percentage' | 'fixed' | 'price' | 'none';
  value?: string | null;
  ticket_ids?: string[] | null;
  valid_from?: Date | null;
  valid_until?: Date | null;
  deleted?: boolean;
  code?: string;
  usage_count?: number | null;
  applies_to_count?: number | null;
}

/** A coupon of `event` with one code, stored as the catalogue stores them; the code. */
const coupon = (event: string, fixture: CouponFixture = {}): Promise<string> => couponOf(event, fixture);

/** The same for an event of any company (the company is the event's). */
async function couponOf(event: string, fixture: CouponFixture = {}): Promise<string> {
  const { company_id } = (await suite.db('events').where('guid', event).first('company_id')) as { company_id: string };
  const guid = randomUUID();
  const now = toDbTime(new Date());
  const time = (value: Date | null | undefined) => (value ? toDbTime(value) : null);
  await suite.db('coupons').insert({
    guid,
    company_id,
    event_id: event,
    name: 'Members',
    discount_type: fixture.discount_type ?? 'percentage',
    value: fixture.value === undefined ? '25' : fixture.value,
    ticket_ids: fixture.ticket_ids ? JSON.stringify(fixture.ticket_ids) : null,
    valid_from: time(fixture.valid_from),
    valid_until: time(fixture.valid_until),
    created_at: now,
    updated_at: now,
    deleted_at: fixture.deleted ? now : null,
    version: 1,
  });
  const code = fixture.code ?? `Code-${randomUUID().slice(0, 8)}`;
  await suite.db('coupon_codes').insert({
    coupon_id: guid,
    event_id: event,
    code,
    code_key: code.toLowerCase(),
    usage_count: fixture.usage_count === undefined ? 1 : fixture.usage_count,
    applies_to_count: fixture.applies_to_count === undefined ? 1 : fixture.applies_to_count,
    used_count: 0,
    created_at: now,
  });
  return code;
}

const usedCount = async (code: string) => Number(((await suite.db('coupon_codes').where('code', code).first('used_count')) as { used_count: unknown }).used_count);
const order = (event: string, lines: Array<[string, number]>, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  createOrderRest(suite.who, event, { lines: lines.map(([ticket_id, amount]) => ({ ticket_id, amount })), ...extra }, headers);
/**
 * An order as a shop in a rush sends it: with an Idempotency-Key, retried on 503 (busy) and 504
 * (the gateway's deadline passed on a loaded machine: the retry answers what the first did).
 */
const orderPatiently = (event: string, lines: Array<[string, number]>, extra: Record<string, unknown>) => {
  const key = { 'Idempotency-Key': randomUUID() };
  return restPatiently(() => order(event, lines, extra, key), [503, 504]);
};
const fields = (res: JsonResponse) => (res.body.errors as Array<{ field: string }> | undefined)?.map((e) => e.field);

/** 20.00 a unit, 5 % service costs on top, 21 % VAT. */
const PRICED = { min_price: 20, percentage_service_costs_in_ticket: 5, vat_percentage: 21, available_stock: 50, max_orderable_amount_per_order: 50 };

describe('the discount', { timeout: 90_000 }, () => {
  it.each([
    { type: 'percentage', value: '25', unit_discount: 5, unit_service_costs: 0.75, unit_total: 15.75 },
    { type: 'fixed', value: '30', unit_discount: 20, unit_service_costs: 0, unit_total: 0 },
    { type: 'fixed', value: '2.5', unit_discount: 2.5, unit_service_costs: 0.88, unit_total: 18.38 },
    { type: 'price', value: '12.5', unit_discount: 7.5, unit_service_costs: 0.63, unit_total: 13.13 },
    { type: 'price', value: '25', unit_discount: 0, unit_service_costs: 1, unit_total: 21 },
    { type: 'none', value: null, unit_discount: 0, unit_service_costs: 1, unit_total: 21 },
  ] as const)('$type $value on 20.00: $unit_discount off a unit, service costs after it, the code as stored, the use taken', async (row) => {
    const event = await newEvent(suite.who);
    const { guid: ticket } = await newTicket(suite.who, PRICED, event);
    const code = await coupon(event, { discount_type: row.type, value: row.value, applies_to_count: null });
    const created = await order(event, [[ticket, 2]], { coupon_code: code.toUpperCase() });
    expect(created.status, created.text).toBe(201);
    expect(created.body.coupon_code).toBe(code);
    expect(created.body.lines[0].price).toMatchObject({ unit_price: 20, unit_discount: row.unit_discount, unit_service_costs: row.unit_service_costs, unit_total: row.unit_total });
    expect(created.body.totals).toMatchObject({ subtotal: 40, discount: row.unit_discount * 2 });
    expect(await usedCount(code)).toBe(1);
  });

  it('applies_to_count: whole lines in line order; a line it would discount in part is refused naming its amount; lines it does not apply to pay full price', async () => {
    const event = await newEvent(suite.who);
    const adult = (await newTicket(suite.who, PRICED, event)).guid;
    const child = (await newTicket(suite.who, { ...PRICED, min_price: 10 }, event)).guid;
    const parking = (await newTicket(suite.who, { ...PRICED, min_price: 5 }, event)).guid;
    const code = await coupon(event, { applies_to_count: 2, usage_count: null, ticket_ids: [adult, child] });
    const two = await order(event, [[adult, 2], [child, 1], [parking, 1]], { coupon_code: code });
    expect(two.status, two.text).toBe(201);
    expect(two.body.lines.map((l: any) => l.price.unit_discount)).toEqual([5, 0, 0]);
    const split = await order(event, [[child, 1], [adult, 2]], { coupon_code: code });
    expect(split.status, split.text).toBe(422);
    expect(fields(split)).toEqual(['lines[1].amount']);
    expect(await readTicket(suite.who, adult)).toMatchObject({ reserved_count: 2 });
  });
});

describe('hidden tickets', { timeout: 90_000 }, () => {
  it('sold only with a coupon that names them, on both channels; a coupon for every ticket (ticket_ids null) never unlocks one; never reserved alone', async () => {
    const event = await newEvent(suite.who);
    const visible = (await newTicket(suite.who, PRICED, event)).guid;
    const vip = (await newTicket(suite.who, { ...PRICED, hide_without_coupon: true, available_in_cashr: true }, event)).guid;
    const everyTicket = await coupon(event, { ticket_ids: null, usage_count: null, applies_to_count: null });
    const naming = await coupon(event, { ticket_ids: [vip], discount_type: 'none', value: null, usage_count: null });

    const without = await order(event, [[vip, 1]]);
    expectConflict(without, 'coupon_required');
    expect(without.body.ticket_id).toBe(vip);
    expectConflict(await order(event, [[visible, 1], [vip, 1]], { coupon_code: everyTicket }), 'coupon_required');
    // A coupon of every ticket applies to no line of an order of the hidden ticket alone: the same 422 as an unknown code.
    expect(fields(await order(event, [[vip, 1]], { coupon_code: everyTicket }))).toEqual(['coupon_code']);
    expectConflict(await reserve(suite.who, vip, { amount: 1 }), 'coupon_required');
    // A coupon of another event, even one naming the hidden ticket (which the catalogue would refuse), is no code of this event.
    const otherEvents = await coupon(await newEvent(suite.who), { ticket_ids: [vip], discount_type: 'none', value: null });
    expect(fields(await order(event, [[vip, 1]], { coupon_code: otherEvents }))).toEqual(['coupon_code']);
    // Nor is a coupon of another company on this very event (stored with the other company's id).
    const foreign = await coupon(event, { ticket_ids: [vip], discount_type: 'none', value: null });
    await suite.db('coupons').whereIn('guid', suite.db('coupon_codes').where('code', foreign).select('coupon_id')).update({ company_id: randomUUID() });
    expect(fields(await order(event, [[vip, 1]], { coupon_code: foreign }))).toEqual(['coupon_code']);

    for (const channel of ['online', 'box_office']) {
      const sold = await order(event, [[vip, 1]], { coupon_code: naming, channel });
      expect(sold.status, sold.text).toBe(201);
    }
    expect((await readTicket(suite.who, vip)).reserved_count).toBe(2);
  });
});

describe('refusals', { timeout: 90_000 }, () => {
  it('unknown, another event\'s, deleted, or for none of the lines: one 422 naming coupon_code; outside the window 409 coupon_not_valid; used up 409 coupon_exhausted; none takes stock', async () => {
    const event = await newEvent(suite.who);
    const ticket = (await newTicket(suite.who, PRICED, event)).guid;
    const other = (await newTicket(suite.who, PRICED, event)).guid;
    const elsewhere = await coupon(await newEvent(suite.who));
    const deleted = await coupon(event, { deleted: true });
    const forOther = await coupon(event, { ticket_ids: [other] });
    const answers = await Promise.all(['NO-SUCH-CODE', elsewhere, deleted, forOther].map((code) => order(event, [[ticket, 1]], { coupon_code: code })));
    for (const res of answers) {
      expect(res.status, res.text).toBe(422);
      expect(res.body.errors).toEqual([{ field: 'coupon_code', message: 'is not a coupon code of this event for these tickets' }]);
    }
    expectConflict(await order(event, [[ticket, 1]], { coupon_code: await coupon(event, { valid_from: new Date(Date.now() + 3_600_000) }) }), 'coupon_not_valid');
    expectConflict(await order(event, [[ticket, 1]], { coupon_code: await coupon(event, { valid_until: new Date(Date.now() - 1000) }) }), 'coupon_not_valid');
    const once = await coupon(event);
    expect((await order(event, [[ticket, 1]], { coupon_code: once })).status).toBe(201);
    expectConflict(await order(event, [[ticket, 1]], { coupon_code: once }), 'coupon_exhausted');
    expect(await readTicket(suite.who, ticket)).toMatchObject({ reserved_count: 1 });
    expect(await usedCount(once)).toBe(1);
  });
});

describe('guessing', { timeout: 90_000 }, () => {
  it(`wrong codes count per access token: after ${WRONG_CODES_PER_TOKEN}, its orders with a code are 429 + Retry-After, a right code too; orders without one and other tokens go on`, async () => {
    const event = await newEvent(suite.who);
    const ticket = (await newTicket(suite.who, PRICED, event)).guid;
    const right = await coupon(event, { usage_count: null });
    const guesser = { stack: suite.stack, token: (await signUpAndLogin(suite.stack)).accessToken };
    // The guesser's own company cannot see the event: give it one of its own with the same code.
    const own = await newEvent(guesser);
    const ownTicket = (await newTicket(guesser, PRICED, own)).guid;
    const ownCode = await couponOf(own, { usage_count: null, code: right });
    const guess = (code: string) => createOrderRest(guesser, own, { lines: [{ ticket_id: ownTicket, amount: 1 }], coupon_code: code });
    for (let i = 0; i < WRONG_CODES_PER_TOKEN; i++) expect(fields(await guess(`WRONG-${i}-${randomUUID().slice(0, 4)}`))).toEqual(['coupon_code']);
    const refused = await guess(ownCode);
    expect(refused.status, refused.text).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await createOrderRest(guesser, own, { lines: [{ ticket_id: ownTicket, amount: 1 }] })).status).toBe(201);
    expect((await order(event, [[ticket, 1]], { coupon_code: right })).status).toBe(201);
  });
});

describe('uses given back', { timeout: 90_000 }, () => {
  it('by a release, an expiry and a full cancellation, not by a partial one', async () => {
    const event = await newEvent(suite.who);
    const ticket = (await newTicket(suite.who, PRICED, event)).guid;
    const code = await coupon(event, { usage_count: 1, applies_to_count: null });
    const take = async () => {
      const res = await order(event, [[ticket, 2]], { coupon_code: code, ttl_seconds: 60 });
      expect(res.status, res.text).toBe(201);
      expectConflict(await order(event, [[ticket, 1]], { coupon_code: code }), 'coupon_exhausted');
      return res.body;
    };
    const released = await take();
    expect((await orderMoveRest(suite.who, released.guid, 'release')).status).toBe(200);
    expect(await usedCount(code)).toBe(0);

    const expiring = await take();
    suite.stack.clock.advanceTo(Date.parse(expiring.expires_at) + 1000);
    expect((await readTicket(suite.who, ticket)).reserved_count).toBe(0);
    expect(await usedCount(code)).toBe(0);

    const sold = await take();
    const confirmed = await orderMoveRest(suite.who, sold.guid, 'confirm');
    const [first, second] = confirmed.body.lines[0].barcodes.map((b: any) => b.code);
    expect((await orderMoveRest(suite.who, sold.guid, 'cancel', { barcodes: [first] })).status).toBe(200);
    expect(await usedCount(code)).toBe(1);
    const whole = await orderMoveRest(suite.who, sold.guid, 'cancel', { barcodes: [second] });
    expect(whole.body.state).toBe('cancelled');
    expect(await usedCount(code)).toBe(0);
    expect((await order(event, [[ticket, 1]], { coupon_code: code })).status).toBe(201);
    await expectInvariant(suite.who, suite.db, ticket);
  });
});

describe('never more uses than usage_count', { timeout: 180_000 }, () => {
  it('100 concurrent orders of a code for 5, on a hot ticket (batched) and on pairs of other tickets (alone): exactly 5 orders hold it', async () => {
    const event = await newEvent(suite.who);
    const hot = (await newTicket(suite.who, { ...PRICED, available_stock: 500 }, event)).guid;
    const others = await Promise.all([1, 2, 3, 4].map(async () => (await newTicket(suite.who, { ...PRICED, available_stock: 500 }, event)).guid));
    const code = await coupon(event, { usage_count: 5, applies_to_count: null });
    const answers = await Promise.all(
      // Odd: the hot ticket alone (its moves batch); even: two of four other tickets (run alone, the code's row the only thing they share).
      Array.from({ length: 100 }, (_, i) => orderPatiently(event, i % 2 ? [[hot, 1]] : [[others[(i / 2) % 4]!, 1], [others[(i / 2 + 1) % 4]!, 1]], { coupon_code: code })),
    );
    const statuses = answers.map((res) => (res.status === 201 ? '201' : `${res.status} ${res.body.code}`));
    expect(statuses.filter((s) => s === '201')).toHaveLength(5);
    expect(statuses.filter((s) => s !== '201').every((s) => s === '409 coupon_exhausted'), statuses.join(', ')).toBe(true);
    expect(await usedCount(code)).toBe(5);
    const holding = await suite.db('orders').where('coupon_code', code).count({ n: '*' });
    expect(Number(holding[0]!.n)).toBe(5);
    for (const ticket of [hot, ...others]) await expectInvariant(suite.who, suite.db, ticket);
  });

  it('releases racing new orders: the uses held never pass the limit, and the count is the live orders holding the code', async () => {
    const event = await newEvent(suite.who);
    const ticket = (await newTicket(suite.who, { ...PRICED, available_stock: 500 }, event)).guid;
    const code = await coupon(event, { usage_count: 3, applies_to_count: null });
    const held = await Promise.all([1, 2, 3].map(() => order(event, [[ticket, 1]], { coupon_code: code })));
    for (const res of held) expect(res.status, res.text).toBe(201);
    const raced = await Promise.all([
      ...held.map((res) => restPatiently(() => orderMoveRest(suite.who, res.body.guid, 'release'))),
      ...Array.from({ length: 20 }, () => orderPatiently(event, [[ticket, 1]], { coupon_code: code })),
    ]);
    for (const res of raced.slice(0, 3)) expect(res.status, res.text).toBe(200);
    const created = raced.slice(3).filter((res) => res.status === 201);
    for (const res of raced.slice(3)) if (res.status !== 201) expectConflict(res, 'coupon_exhausted');
    expect(created.length).toBeLessThanOrEqual(3);
    const live = await suite.db('orders').join('reservations', 'reservations.order_id', 'orders.guid').where('orders.coupon_code', code).whereIn('reservations.state', ['reserved', 'pending', 'confirmed']).countDistinct({ n: 'orders.guid' });
    expect(Number(live[0]!.n)).toBe(created.length);
    expect(await usedCount(code)).toBe(created.length);
    await expectInvariant(suite.who, suite.db, ticket);
  });
});

describe('expiries racing new orders', { timeout: 120_000 }, () => {
  it('the uses of expired orders come back as the new orders settle them: never more than the limit, the count the live holders', async () => {
    const event = await newEvent(suite.who);
    const tickets = await Promise.all([1, 2].map(async () => (await newTicket(suite.who, { ...PRICED, available_stock: 500 }, event)).guid));
    const code = await coupon(event, { usage_count: 4, applies_to_count: null });
    const held = await Promise.all([0, 1, 2, 3].map((i) => order(event, [[tickets[i % 2]!, 1]], { coupon_code: code, ttl_seconds: 60 })));
    for (const res of held) expect(res.status, res.text).toBe(201);
    suite.stack.clock.advanceTo(Math.max(...held.map((res) => Date.parse(res.body.expires_at))) + 1000);
    // Each new order locks its ticket and expires what is due there first: the uses come back ticket by ticket as they race.
    const raced = await Promise.all(Array.from({ length: 24 }, (_, i) => orderPatiently(event, [[tickets[i % 2]!, 1]], { coupon_code: code })));
    for (const res of raced) if (res.status !== 201) expectConflict(res, 'coupon_exhausted');
    const created = raced.filter((res) => res.status === 201);
    expect(created.length).toBeLessThanOrEqual(4);
    expect(created.length).toBeGreaterThan(0);
    const live = await suite.db('orders').join('reservations', 'reservations.order_id', 'orders.guid').where('orders.coupon_code', code).whereIn('reservations.state', ['reserved', 'pending', 'confirmed']).countDistinct({ n: 'orders.guid' });
    expect(Number(live[0]!.n)).toBe(created.length);
    expect(await usedCount(code)).toBe(created.length);
    for (const ticket of tickets) await expectInvariant(suite.who, suite.db, ticket);
  });
});

describe('over gRPC', { timeout: 60_000 }, () => {
  it('CreateOrder takes coupon_code; the discount as decimal strings', async () => {
    const event = await newEvent(suite.who);
    const { guid: ticket } = await newTicket(suite.who, PRICED, event);
    const code = await coupon(event, { discount_type: 'percentage', value: '10' });
    const created = await suite.orders.create(event, [{ ticket_id: ticket, amount: 1 }], { coupon_code: code.toLowerCase() } as never);
    expect(created.coupon_code).toBe(code);
    expect(created.lines[0]!.price).toMatchObject({ unit_discount: '2.00', unit_service_costs: '0.90', unit_total: '18.90' });
  });
});

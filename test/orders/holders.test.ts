/**
 * PRODUCT.md 12 "Holders": holders at confirm (one per barcode, in order) and
 * PUT /order/:guid/barcodes/:code / SetBarcodeHolder afterwards: a first holder only with the
 * ticket's late_personalization, a different one (or none) only when it is swappable, else 409
 * not_personalizable; the same one again is no change. Over REST and gRPC.
 */
import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import type { Holder } from '../../lib/gen/ticketing/v1/holder.js';
import type { Order } from '../../lib/gen/ticketing/v1/order.js';
import { readErrorDetails } from '../../lib/grpc/errors.js';
import { expectConflict, grpcCall, grpcFailure, meta, newEvent, newTicket } from '../support/stock.js';
import { h } from '../support/api.js';
import { request, signUpAndLogin, type JsonResponse } from '../support/http.js';
import { createOrderRest, orderMoveRest, orderSuiteOfFile, readOrderRest } from './helpers.js';

const suite = orderSuiteOfFile();

const ADA = { name: 'Ada Lovelace', email: 'ada@example.com' };
const GRACE = { name: 'Grace Hopper', email: 'grace@example.com' };

function putHolder(orderGuid: string, code: string, body: unknown): Promise<JsonResponse> {
  return request(`${suite.stack.baseUrl}/order/${orderGuid}/barcodes/${encodeURIComponent(code)}`, { method: 'PUT', headers: h(suite.who), json: body });
}

function setHolderGrpc(guid: string, code: string, holder?: Holder): Promise<Order> {
  return grpcCall(suite.client.setBarcodeHolder.bind(suite.client), { guid, code, holder }, meta(suite.who.token));
}

/** A confirmed order of one line of `amount` of a new ticket with these fields; its REST answer. */
async function soldOrder(ticket: Record<string, unknown>, amount = 2, holders?: unknown[]): Promise<JsonResponse> {
  const event = await newEvent(suite.who);
  const { guid } = await newTicket(suite.who, { available_stock: 10, ...ticket }, event);
  const created = await createOrderRest(suite.who, event, { lines: [{ ticket_id: guid, amount }] });
  expect(created.status, created.text).toBe(201);
  const confirmed = await orderMoveRest(suite.who, created.body.guid, 'confirm', holders ? { lines: [{ ticket_id: guid, holders }] } : undefined);
  expect(confirmed.status, confirmed.text).toBe(200);
  return confirmed;
}

const holdersOf = (order: any) => (order.lines as any[]).flatMap((line) => (line.barcodes as any[]).map((barcode) => barcode.holder));

describe('holders at confirm', { timeout: 60_000 }, () => {
  it('REST: one per barcode in order, trimmed; fewer leave the rest without one; every read shows them', async () => {
    const confirmed = await soldOrder({}, 3, [{ name: '  Ada Lovelace ', email: ' ada@example.com' }, GRACE]);
    expect(holdersOf(confirmed.body)).toEqual([ADA, GRACE, null]);
    expect(holdersOf((await readOrderRest(suite.who, confirmed.body.guid)).body)).toEqual([ADA, GRACE, null]);
    const list = await request(`${suite.stack.baseUrl}/event/${confirmed.body.event_id}/orders`, { headers: h(suite.who) });
    expect(holdersOf(list.body[0])).toEqual([ADA, GRACE, null]);
  });

  it('gRPC: holders travel as Holder messages; a barcode without one has it unset', async () => {
    const event = await newEvent(suite.who);
    const { guid } = await newTicket(suite.who, { available_stock: 10 }, event);
    const order = await suite.orders.create(event, [{ ticket_id: guid, amount: 2 }]);
    const confirmed = await suite.orders.confirm(order.guid, [{ ticket_id: guid, barcodes: [], holders: [ADA] }]);
    expect(confirmed.lines[0]!.barcodes.map((b) => b.holder)).toEqual([ADA, undefined]);
  });

  it('more holders than barcodes, a bad e-mail, a blank name: 422 naming each, nothing confirmed', async () => {
    const event = await newEvent(suite.who);
    const { guid } = await newTicket(suite.who, { available_stock: 10 }, event);
    const created = await createOrderRest(suite.who, event, { lines: [{ ticket_id: guid, amount: 1 }] });
    const tooMany = await orderMoveRest(suite.who, created.body.guid, 'confirm', { lines: [{ ticket_id: guid, holders: [ADA, GRACE] }] });
    expect(tooMany.status, tooMany.text).toBe(422);
    expect(tooMany.body.errors.map((e: any) => e.field)).toEqual(['lines[0].holders']);
    const bad = await orderMoveRest(suite.who, created.body.guid, 'confirm', { lines: [{ ticket_id: guid, holders: [{ name: '  ', email: 'not-an-address' }] }] });
    expect(bad.status, bad.text).toBe(422);
    expect(bad.body.errors.map((e: any) => e.field).sort()).toEqual(['lines[0].holders[0].email', 'lines[0].holders[0].name']);
    const long = await orderMoveRest(suite.who, created.body.guid, 'confirm', { lines: [{ ticket_id: guid, holders: [{ name: 'x'.repeat(201), email: 'a@b.example' }] }] });
    expect(long.body.errors.map((e: any) => e.field)).toEqual(['lines[0].holders[0].name']);
    expect((await readOrderRest(suite.who, created.body.guid)).body.state).toBe('reserved');
  });

  it('a ticket of barcode_type none issues no barcode: any holder is one too many', async () => {
    const event = await newEvent(suite.who);
    const { guid } = await newTicket(suite.who, { available_stock: 10, barcode_type: 'none' }, event);
    const created = await createOrderRest(suite.who, event, { lines: [{ ticket_id: guid, amount: 1 }] });
    const res = await orderMoveRest(suite.who, created.body.guid, 'confirm', { lines: [{ ticket_id: guid, holders: [ADA] }] });
    expect(res.status, res.text).toBe(422);
    expect(res.body.errors.map((e: any) => e.field)).toEqual(['lines[0].holders']);
  });
});

describe('PUT /order/:guid/barcodes/:code', { timeout: 60_000 }, () => {
  it('a first holder: 409 not_personalizable without late_personalization; with it, 200 and every read shows it', async () => {
    const plain = await soldOrder({ late_personalization: false, swappable: true });
    const code = plain.body.lines[0].barcodes[0].code as string;
    expectConflict(await putHolder(plain.body.guid, code, { holder: ADA }), 'not_personalizable');
    expect(holdersOf((await readOrderRest(suite.who, plain.body.guid)).body)).toEqual([null, null]);

    const late = await soldOrder({ late_personalization: true, swappable: false });
    const lateCode = late.body.lines[0].barcodes[1].code as string;
    const set = await putHolder(late.body.guid, lateCode, { holder: { name: ' Ada Lovelace', email: 'ada@example.com ' } });
    expect(set.status, set.text).toBe(200);
    expect(holdersOf(set.body)).toEqual([null, ADA]);
    expect((await readOrderRest(suite.who, late.body.guid)).body).toEqual(set.body);
  });

  it('a different holder or null: only when swappable; the same holder again is 200 with no change', async () => {
    const fixed = await soldOrder({ late_personalization: true, swappable: false }, 1, [ADA]);
    const code = fixed.body.lines[0].barcodes[0].code as string;
    expectConflict(await putHolder(fixed.body.guid, code, { holder: GRACE }), 'not_personalizable');
    expectConflict(await putHolder(fixed.body.guid, code, { holder: null }), 'not_personalizable');
    const same = await putHolder(fixed.body.guid, code, { holder: ADA });
    expect(same.status, same.text).toBe(200);
    expect(same.body).toEqual(fixed.body);

    const swappable = await soldOrder({ late_personalization: false, swappable: true }, 1, [ADA]);
    const swapCode = swappable.body.lines[0].barcodes[0].code as string;
    suite.stack.clock.advance(1100);
    const swapped = await putHolder(swappable.body.guid, swapCode, { holder: GRACE });
    expect(swapped.status, swapped.text).toBe(200);
    expect(holdersOf(swapped.body)).toEqual([GRACE]);
    // A change of the order as read: its updated_at moves (timestamps are read to the second, hence the clock moved on by 1.1 s).
    expect(Date.parse(swapped.body.updated_at)).toBeGreaterThan(Date.parse(swappable.body.updated_at));
    const cleared = await putHolder(swappable.body.guid, swapCode, { holder: null });
    expect(cleared.status, cleared.text).toBe(200);
    expect(holdersOf(cleared.body)).toEqual([null]);
    // None again, and no late_personalization: a first holder is refused.
    expectConflict(await putHolder(swappable.body.guid, swapCode, { holder: ADA }), 'not_personalizable');
    expect((await putHolder(swappable.body.guid, swapCode, { holder: null })).status).toBe(200);
  });

  it('a code not of this order, or an order not confirmed (no barcodes): 404; another company\'s order: 404', async () => {
    const sold = await soldOrder({ late_personalization: true });
    expect((await putHolder(sold.body.guid, 'NOT-A-CODE', { holder: ADA })).status).toBe(404);
    const other = await soldOrder({ late_personalization: true });
    expect((await putHolder(sold.body.guid, other.body.lines[0].barcodes[0].code, { holder: ADA })).status).toBe(404);
    const event = await newEvent(suite.who);
    const { guid } = await newTicket(suite.who, { available_stock: 10, late_personalization: true }, event);
    const open = await createOrderRest(suite.who, event, { lines: [{ ticket_id: guid, amount: 1 }] });
    expect((await putHolder(open.body.guid, 'ANY-CODE', { holder: ADA })).status).toBe(404);
    const account = await signUpAndLogin(suite.stack);
    const theirs = await request(`${suite.stack.baseUrl}/order/${sold.body.guid}/barcodes/${sold.body.lines[0].barcodes[0].code}`, {
      method: 'PUT',
      headers: h({ stack: suite.stack, token: account.accessToken }),
      json: { holder: ADA },
    });
    expect(theirs.status).toBe(404);
  });

  it('the body: holder is required (null clears), its members by their rules, no other field: 422', async () => {
    const sold = await soldOrder({ late_personalization: true, swappable: true });
    const code = sold.body.lines[0].barcodes[0].code as string;
    const missing = await putHolder(sold.body.guid, code, {});
    expect(missing.status, missing.text).toBe(422);
    expect(missing.body.errors.map((e: any) => e.field)).toEqual(['holder']);
    const bad = await putHolder(sold.body.guid, code, { holder: { name: 'Ada', email: 'ada' } });
    expect(bad.status, bad.text).toBe(422);
    expect(bad.body.errors.map((e: any) => e.field)).toEqual(['holder.email']);
    const wrongType = await putHolder(sold.body.guid, code, { holder: 'Ada' });
    expect(wrongType.status, wrongType.text).toBe(422);
    const extra = await putHolder(sold.body.guid, code, { holder: ADA, note: 'x' });
    expect(extra.body.errors.map((e: any) => e.field)).toEqual(['note']);
  });

  it('a form cannot carry a holder: `holder=` (empty) is 422 naming holder, and the holder stays', async () => {
    const sold = await soldOrder({ late_personalization: true, swappable: true }, 1, [ADA]);
    const code = sold.body.lines[0].barcodes[0].code as string;
    const form = await request(`${suite.stack.baseUrl}/order/${sold.body.guid}/barcodes/${code}`, {
      method: 'PUT',
      headers: { ...h(suite.who), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'holder=',
    });
    expect(form.status, form.text).toBe(422);
    expect(form.body.errors.map((e: any) => e.field)).toEqual(['holder']);
    expect((await readOrderRest(suite.who, sold.body.guid)).body.lines[0].barcodes[0].holder).toEqual(ADA);
  });
});

describe('SetBarcodeHolder over gRPC', { timeout: 60_000 }, () => {
  it('FAILED_PRECONDITION not_personalizable; a first holder with late_personalization; unset clears when swappable', async () => {
    const event = await newEvent(suite.who);
    const fixed = await newTicket(suite.who, { available_stock: 10 }, event);
    const late = await newTicket(suite.who, { available_stock: 10, late_personalization: true, swappable: true }, event);
    const order = await suite.orders.create(event, [{ ticket_id: fixed.guid, amount: 1 }, { ticket_id: late.guid, amount: 1 }]);
    const confirmed = await suite.orders.confirm(order.guid);
    const [fixedCode, lateCode] = confirmed.lines.map((line) => line.barcodes[0]!.code);

    const refused = await grpcFailure(setHolderGrpc(order.guid, fixedCode!, ADA));
    expect([refused.code, readErrorDetails(refused).reason]).toEqual([status.FAILED_PRECONDITION, 'not_personalizable']);

    const named = await setHolderGrpc(order.guid, lateCode!, ADA);
    expect(named.lines[1]!.barcodes[0]!.holder).toEqual(ADA);
    const cleared = await setHolderGrpc(order.guid, lateCode!);
    expect(cleared.lines[1]!.barcodes[0]!.holder).toBeUndefined();

    const invalid = await grpcFailure(setHolderGrpc(order.guid, lateCode!, { name: '', email: 'ada@example.com' }));
    expect(invalid.code).toBe(status.INVALID_ARGUMENT);
    expect(readErrorDetails(invalid).fieldViolations?.map((v) => v.field)).toEqual(['holder.name']);
    expect((await grpcFailure(setHolderGrpc(order.guid, 'NOPE', ADA))).code).toBe(status.NOT_FOUND);
  });
});

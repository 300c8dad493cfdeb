/**
 * PRODUCT.md 14, cancelling a sale (docs/cancellations.md), over REST and gRPC on both
 * backends: a whole sale or some of its barcodes, return_stock, the fee and the refund, the
 * cancelled state, the door refusing a cancelled barcode, the refusals that cancel nothing,
 * Idempotency-Key, and one webhook per cancellation.
 */
import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { readErrorDetails } from '../../lib/grpc/errors.js';
import { ReservationServiceClient } from '../../lib/gen/ticketing/v1/reservation.js';
import { h, readTicket } from '../support/api.js';
import { request, type JsonResponse } from '../support/http.js';
import { expectConflict, expectInvariant, grpcCall, grpcFailure, meta, moveRest, newEvent, newTicket, reserve, scanRest } from '../support/stock.js';
import { createOrderRest, orderMoveRest, orderSuiteOfFile, readOrderRest } from './helpers.js';

const suite = orderSuiteOfFile();

const fields = (res: JsonResponse) => (res.body.errors as Array<{ field: string }> | undefined)?.map((e) => e.field);

/** A confirmed order of these lines (ticket fields, amount) of one new event; its REST answer. */
async function soldOrder(lines: Array<{ ticket?: Record<string, unknown>; amount: number }>, event?: string): Promise<{ order: any; tickets: string[]; event: string }> {
  const eventGuid = event ?? (await newEvent(suite.who));
  const tickets: string[] = [];
  for (const line of lines) tickets.push((await newTicket(suite.who, { available_stock: 10, ...line.ticket }, eventGuid)).guid);
  const created = await createOrderRest(suite.who, eventGuid, { lines: lines.map((line, i) => ({ ticket_id: tickets[i], amount: line.amount })) });
  expect(created.status, created.text).toBe(201);
  const confirmed = await orderMoveRest(suite.who, created.body.guid, 'confirm');
  expect(confirmed.status, confirmed.text).toBe(200);
  return { order: confirmed.body, tickets, event: eventGuid };
}

/** A confirmed reservation of `amount` of a new ticket with these fields; its REST answer and ticket. */
async function soldReservation(amount: number, ticket: Record<string, unknown> = {}): Promise<{ reservation: any; ticket: string; event: string }> {
  const { guid, eventGuid } = await newTicket(suite.who, { available_stock: 10, ...ticket });
  const reserved = await reserve(suite.who, guid, { amount });
  expect(reserved.status, reserved.text).toBe(201);
  const confirmed = await moveRest(suite.who, reserved.body.guid, 'confirm');
  expect(confirmed.status, confirmed.text).toBe(200);
  return { reservation: confirmed.body, ticket: guid, event: eventGuid };
}

const codesOf = (order: any): string[] => (order.lines as any[]).flatMap((line) => (line.barcodes as any[]).map((barcode) => barcode.code as string));
const cancelledOf = (order: any): Array<string | null> => (order.lines as any[]).flatMap((line) => (line.barcodes as any[]).map((barcode) => barcode.cancelled_at as string | null));

async function outboxOf(type: string, guid: string): Promise<any[]> {
  const rows = (await suite.db('webhook_events').where('type', type).whereRaw('data like ?', [`%${guid}%`]).orderBy('id').select('data')) as Array<{ data: string }>;
  return rows.map((row) => JSON.parse(row.data));
}

describe('cancelling an order over REST', { timeout: 90_000 }, () => {
  it('some barcodes, then the rest: refund from the fixed unit_total less the fee, refunded_total, the state, the counters, the webhook', async () => {
    // 20.00 + 5% service costs on top = 21.00 a unit; 9.99 a unit.
    const { order, tickets } = await soldOrder([
      { ticket: { min_price: 20, percentage_service_costs_in_ticket: 5, vat_percentage: 21 }, amount: 2 },
      { ticket: { min_price: 9.99, vat_percentage: 9 }, amount: 1 },
    ]);
    const [adult, child] = tickets as [string, string];
    const [a0, a1, c0] = codesOf(order) as [string, string, string];
    expect(order.cancellations).toEqual([]);
    expect(order.refunded_total).toBe(0);
    expect(cancelledOf(order)).toEqual([null, null, null]);

    const first = await orderMoveRest(suite.who, order.guid, 'cancel', { barcodes: [a1], cancellation_fee: 2.5, reason: 'Refunded by the shop' });
    expect(first.status, first.text).toBe(200);
    expect(first.body.state).toBe('confirmed');
    expect(first.body.totals).toEqual(order.totals);
    expect(first.body.cancellations).toHaveLength(1);
    const [one] = first.body.cancellations;
    expect(Object.keys(one)).toEqual(['guid', 'barcodes', 'reason', 'cancellation_fee', 'refund_amount', 'stock_returned', 'created_at']);
    expect(one).toMatchObject({ barcodes: [a1], reason: 'Refunded by the shop', cancellation_fee: 2.5, refund_amount: 18.5, stock_returned: true });
    expect(first.body.refunded_total).toBe(18.5);
    const states = cancelledOf(first.body);
    expect(states[0]).toBeNull();
    expect(states[1]).toBe(one.created_at);
    expect(states[2]).toBeNull();
    expect((await readTicket(suite.who, adult)).sold_count).toBe(1);
    expect((await readOrderRest(suite.who, order.guid)).body).toEqual(first.body);

    const rest = await orderMoveRest(suite.who, order.guid, 'cancel', { return_stock: false });
    expect(rest.status, rest.text).toBe(200);
    expect(rest.body.state).toBe('cancelled');
    expect(rest.body.cancellations).toHaveLength(2);
    expect(rest.body.cancellations[1]).toMatchObject({ barcodes: [a0, c0], reason: null, cancellation_fee: 0, refund_amount: 30.99, stock_returned: false });
    expect(rest.body.refunded_total).toBe(49.49);
    expect(cancelledOf(rest.body).every((at) => at !== null)).toBe(true);
    // return_stock false: the places are gone too.
    expect(await readTicket(suite.who, adult)).toMatchObject({ sold_count: 0, available_stock: 9 });
    expect(await readTicket(suite.who, child)).toMatchObject({ sold_count: 0, available_stock: 9 });
    for (const ticket of tickets) await expectInvariant(suite.who, suite.db, ticket);

    const events = await outboxOf('order.cancelled', order.guid);
    expect(events).toEqual([first.body, rest.body]);
    // A cancelled order takes no other move.
    for (const move of ['pending', 'confirm', 'release', 'cancel'] as const) expectConflict(await orderMoveRest(suite.who, order.guid, move), 'invalid_transition');
  });

  it('a cancelled barcode is refused at the door with its time; the others still open it; its holder cannot change', async () => {
    const { order, event } = await soldOrder([{ ticket: { late_personalization: true, swappable: true }, amount: 2 }]);
    const [keep, drop] = codesOf(order) as [string, string];
    const cancelled = await orderMoveRest(suite.who, order.guid, 'cancel', { barcodes: [drop] });
    expect(cancelled.status, cancelled.text).toBe(200);
    const at = cancelled.body.cancellations[0].created_at as string;

    const refused = await scanRest(suite.who, event, drop);
    expectConflict(refused, 'barcode_cancelled');
    expect(refused.body.cancelled_at).toBe(at);
    const admitted = await scanRest(suite.who, event, keep);
    expect(admitted.status, admitted.text).toBe(201);
    expect(admitted.body.cancelled_at).toBeNull();

    const holder = await request(`${suite.stack.baseUrl}/order/${order.guid}/barcodes/${drop}`, { method: 'PUT', headers: h(suite.who), json: { holder: { name: 'Ada Lovelace', email: 'ada@example.com' } } });
    expectConflict(holder, 'barcode_cancelled');
  });

  it('refusals cancel nothing: a code not of this sale, repeated, a scanned or cancelled one, a fee out of bounds, a long reason, an empty list, an unconfirmed order', async () => {
    const { order, event, tickets } = await soldOrder([{ ticket: { min_price: 10 }, amount: 3 }]);
    const [b0, b1, b2] = codesOf(order) as [string, string, string];
    const other = await soldOrder([{ amount: 1 }], event);
    const cancel = (body: unknown) => orderMoveRest(suite.who, order.guid, 'cancel', body);

    const foreign = await cancel({ barcodes: [b0, codesOf(other.order)[0]] });
    expect(foreign.status, foreign.text).toBe(422);
    expect(fields(foreign)).toEqual(['barcodes[1]']);
    expect(fields(await cancel({ barcodes: [b0, b0] }))).toEqual(['barcodes[1]']);
    const empty = await cancel({ barcodes: [] });
    expect(empty.status).toBe(422);
    expect(fields(empty)).toEqual(['barcodes']);
    expect(fields(await cancel({ reason: 'x'.repeat(256) }))).toEqual(['reason']);
    expect(fields(await cancel({ barcodes: [b0], cancellation_fee: 10.01 }))).toEqual(['cancellation_fee']);
    expect(fields(await cancel({ barcodes: [b0], cancellation_fee: 1.005 }))).toEqual(['cancellation_fee']);
    expect(fields(await cancel({ barcodes: [b0], cancellation_fee: -1 }))).toEqual(['cancellation_fee']);
    expect(fields(await cancel({ barcodes: [b0], lines: [] }))).toEqual(['lines']);

    const scanned = await scanRest(suite.who, event, b1);
    expect(scanned.status, scanned.text).toBe(201);
    const refusedScan = await cancel({});
    expectConflict(refusedScan, 'already_scanned');
    expect(refusedScan.body.barcode).toBe(b1);
    expect((await cancel({ barcodes: [b2] })).status).toBe(200);
    const again = await cancel({ barcodes: [b0, b2] });
    expectConflict(again, 'barcode_cancelled');
    expect(again.body.barcode).toBe(b2);

    // Only the one accepted cancellation happened; a fee of the whole unit price is allowed.
    const read = (await readOrderRest(suite.who, order.guid)).body;
    expect(read.cancellations).toHaveLength(1);
    expect(cancelledOf(read).map((at: string | null) => at !== null)).toEqual([false, false, true]);
    expect((await readTicket(suite.who, tickets[0]!)).sold_count).toBe(2);
    const wholeFee = await cancel({ barcodes: [b0], cancellation_fee: 10 });
    expect(wholeFee.status, wholeFee.text).toBe(200);
    expect(wholeFee.body.cancellations[1]).toMatchObject({ cancellation_fee: 10, refund_amount: 0 });
    await expectInvariant(suite.who, suite.db, tickets[0]!);

    // Not confirmed: nothing to cancel.
    const { guid: ticket } = await newTicket(suite.who, { available_stock: 5 }, event);
    const open = await createOrderRest(suite.who, event, { lines: [{ ticket_id: ticket, amount: 1 }] });
    expectConflict(await orderMoveRest(suite.who, open.body.guid, 'cancel'), 'invalid_transition');
    expect((await readTicket(suite.who, ticket)).reserved_count).toBe(1);
  });

  it('JPY: the fee in whole yen; barcode_type none cancels the whole amount; Idempotency-Key answers a retry with the first answer', async () => {
    const event = await request(`${suite.stack.baseUrl}/event`, { method: 'POST', headers: h(suite.who), json: { name: 'Yen', currency: 'JPY' } });
    const { order, tickets } = await soldOrder([{ ticket: { min_price: 1500, barcode_type: 'none' }, amount: 2 }], event.body.guid);
    expect(codesOf(order)).toEqual([]);
    expect(fields(await orderMoveRest(suite.who, order.guid, 'cancel', { cancellation_fee: 1.5 }))).toEqual(['cancellation_fee']);
    const headers = h(suite.who, { 'Idempotency-Key': `cancel-${order.guid}` });
    const send = () => request(`${suite.stack.baseUrl}/order/${order.guid}/cancel`, { method: 'POST', headers, json: { cancellation_fee: 300 } });
    const first = await send();
    expect(first.status, first.text).toBe(200);
    expect(first.body.state).toBe('cancelled');
    expect(first.body.cancellations[0]).toMatchObject({ barcodes: [], cancellation_fee: 300, refund_amount: 2700 });
    expect(first.body.refunded_total).toBe(2700);
    const retry = await send();
    expect(retry.status, retry.text).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(await outboxOf('order.cancelled', order.guid)).toHaveLength(1);
    expect((await readTicket(suite.who, tickets[0]!)).sold_count).toBe(0);
    await expectInvariant(suite.who, suite.db, tickets[0]!);
  });
});

describe('cancelling a reservation over REST', { timeout: 90_000 }, () => {
  it('some barcodes, then the rest: the reservation object stays as it was (barcodes strings), the state, the counters, the webhook', async () => {
    const { reservation, ticket, event } = await soldReservation(3);
    const [b0, b1, b2] = reservation.barcodes as [string, string, string];
    const first = await moveRest(suite.who, reservation.guid, 'cancel', { barcodes: [b0], reason: 'Wrong ticket' });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ state: 'confirmed', barcodes: [b0, b1, b2] });
    expect(Object.keys(first.body).sort()).toEqual(Object.keys(reservation).sort());
    expect((await readTicket(suite.who, ticket)).sold_count).toBe(2);
    expectConflict(await scanRest(suite.who, event, b0), 'barcode_cancelled');
    // A cancellation fee is an order's: a reservation carries no money.
    expect(fields(await moveRest(suite.who, reservation.guid, 'cancel', { cancellation_fee: 1 }))).toEqual(['cancellation_fee']);

    const rest = await moveRest(suite.who, reservation.guid, 'cancel', {});
    expect(rest.status, rest.text).toBe(200);
    expect(rest.body.state).toBe('cancelled');
    expect(await readTicket(suite.who, ticket)).toMatchObject({ sold_count: 0, available_stock: 10 });
    const listed = await request(`${suite.stack.baseUrl}/ticket/${ticket}/reservations?state=cancelled`, { headers: h(suite.who) });
    expect(listed.body.map((r: any) => r.guid)).toEqual([reservation.guid]);
    expect(await outboxOf('reservation.cancelled', reservation.guid)).toEqual([first.body, rest.body]);
    await expectInvariant(suite.who, suite.db, ticket);
    // The stock came back: it sells again.
    expect((await reserve(suite.who, ticket, { amount: 10 })).status).toBe(201);
  });

  it('barcode_type none: the whole amount; a code named is not of this sale', async () => {
    const { reservation, ticket } = await soldReservation(4, { barcode_type: 'none' });
    expect(fields(await moveRest(suite.who, reservation.guid, 'cancel', { barcodes: ['NOPE-1234'] }))).toEqual(['barcodes[0]']);
    const cancelled = await moveRest(suite.who, reservation.guid, 'cancel', { return_stock: false });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.state).toBe('cancelled');
    expect(await readTicket(suite.who, ticket)).toMatchObject({ sold_count: 0, available_stock: 6 });
    await expectInvariant(suite.who, suite.db, ticket);
  });
});

describe('cancelling over gRPC', { timeout: 90_000 }, () => {
  it('CancelOrder: decimal strings, ErrorInfo reasons, field violations', async () => {
    const { order, tickets } = await soldOrder([{ ticket: { min_price: 12.5 }, amount: 2 }]);
    const [b0, b1] = codesOf(order) as [string, string];
    const cancelled = await suite.orders.cancel(order.guid, { barcodes: [b0], cancellation_fee: '0.50', reason: 'Partial refund' });
    expect(cancelled.state).toBe(3);
    expect(cancelled.refunded_total).toBe('12.00');
    expect(cancelled.cancellations[0]).toMatchObject({ barcodes: [b0], reason: 'Partial refund', cancellation_fee: '0.50', refund_amount: '12.00', stock_returned: true });
    expect(cancelled.lines[0]!.barcodes[0]!.cancelled_at).toBeInstanceOf(Date);
    expect(cancelled.lines[0]!.barcodes[1]!.cancelled_at).toBeUndefined();

    const again = await grpcFailure(suite.orders.cancel(order.guid, { barcodes: [b0] }));
    expect(again.code).toBe(status.FAILED_PRECONDITION);
    expect(readErrorDetails(again).reason).toBe('barcode_cancelled');
    expect(readErrorDetails(again).reasonMetadata).toMatchObject({ barcode: b0 });
    const fee = await grpcFailure(suite.orders.cancel(order.guid, { barcodes: [b1], cancellation_fee: '12.51' }));
    expect(fee.code).toBe(status.INVALID_ARGUMENT);
    expect(readErrorDetails(fee).fieldViolations?.map((v) => v.field)).toEqual(['cancellation_fee']);

    const rest = await suite.orders.cancel(order.guid);
    expect(rest.state).toBe(6);
    expect(rest.refunded_total).toBe('24.50');
    expect((await readTicket(suite.who, tickets[0]!)).sold_count).toBe(0);
  });

  it('CancelReservation and the scan refusal carry their reasons', async () => {
    const client = new ReservationServiceClient(suite.stack.ticketGrpcAddress, (await import('@grpc/grpc-js')).credentials.createInsecure());
    try {
      const { reservation, event } = await soldReservation(2);
      const [b0] = reservation.barcodes as [string];
      const md = () => meta(suite.who.token);
      const cancelled = await grpcCall(client.cancelReservation.bind(client), { guid: reservation.guid, barcodes: [b0], reason: 'gRPC' }, md());
      expect(cancelled.state).toBe(3);
      const scan = await grpcFailure(grpcCall(client.scanBarcode.bind(client), { event_id: event, barcode: b0 }, md()));
      expect(scan.code).toBe(status.FAILED_PRECONDITION);
      expect(readErrorDetails(scan).reason).toBe('barcode_cancelled');
      expect(readErrorDetails(scan).reasonMetadata?.cancelled_at).toMatch(/^\d{4}-/);
      const whole = await grpcCall(client.cancelReservation.bind(client), { guid: reservation.guid, barcodes: [] }, md());
      expect(whole.state).toBe(6);
      const after = await grpcFailure(grpcCall(client.cancelReservation.bind(client), { guid: reservation.guid, barcodes: [] }, md()));
      expect(readErrorDetails(after).reason).toBe('invalid_transition');
    } finally {
      client.close();
    }
  });
});

/**
 * PRODUCT.md 12 "Moves", over gRPC: pending, confirm (each line's barcodes by its ticket's
 * barcode_type), release and expiry, for all lines at once, by the same table as a
 * reservation's (lib/stock-moves.ts).
 */
import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { ReservationState } from '../../lib/gen/ticketing/v1/reservation.js';
import { readErrorDetails } from '../../lib/grpc/errors.js';
import { expectInvariant, grpcFailure, newEvent, newTicket } from '../support/stock.js';
import { readTicket } from '../support/api.js';
import { signUpAndLogin } from '../support/http.js';
import { orderSuiteOfFile, ordersOf } from './helpers.js';

const suite = orderSuiteOfFile();

const { RESERVATION_STATE_PENDING: PENDING, RESERVATION_STATE_CONFIRMED: CONFIRMED, RESERVATION_STATE_RELEASED: RELEASED, RESERVATION_STATE_EXPIRED: EXPIRED } = ReservationState;

async function twoTickets(second: Record<string, unknown> = {}) {
  const event = await newEvent(suite.who);
  const a = await newTicket(suite.who, { available_stock: 10 }, event);
  const b = await newTicket(suite.who, { available_stock: 10, ...second }, event);
  return { event, a: a.guid, b: b.guid };
}

describe('the moves of an order, all lines at once', { timeout: 60_000 }, () => {
  it('pending then confirm: counters move on both tickets; generated and predefined barcodes per line', async () => {
    const { event, a, b } = await twoTickets({ barcode_type: 'predefined' });
    const order = await suite.orders.create(event, [{ ticket_id: a, amount: 2 }, { ticket_id: b, amount: 2 }]);
    const pending = await suite.orders.pending(order.guid);
    expect(pending.state).toBe(PENDING);
    expect((pending.expires_at!.getTime() - pending.updated_at!.getTime()) / 1000).toBe(1800);
    expect(await readTicket(suite.who, a)).toMatchObject({ reserved_count: 0, pending_count: 2 });

    const missing = await grpcFailure(suite.orders.confirm(order.guid));
    expect(readErrorDetails(missing).fieldViolations?.map((v) => v.field)).toEqual(['lines[1].barcodes']);
    expect((await suite.orders.get(order.guid)).state).toBe(PENDING);

    const confirmed = await suite.orders.confirm(order.guid, [{ ticket_id: b, barcodes: ['GATE-A1', 'GATE-A2'] }]);
    expect(confirmed.state).toBe(CONFIRMED);
    expect(confirmed.expires_at).toBeUndefined();
    expect(confirmed.lines[0]!.barcodes).toHaveLength(2);
    for (const barcode of confirmed.lines[0]!.barcodes) expect(barcode.code).toMatch(/^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{16}$/);
    expect(confirmed.lines[1]!.barcodes.map((x) => x.code)).toEqual(['GATE-A1', 'GATE-A2']);
    expect(await expectInvariant(suite.who, suite.db, a)).toEqual({ sold: 2, reserved: 0, pending: 0 });
    expect(await expectInvariant(suite.who, suite.db, b)).toEqual({ sold: 2, reserved: 0, pending: 0 });

    const again = await grpcFailure(suite.orders.release(order.guid));
    expect([again.code, readErrorDetails(again).reason]).toEqual([status.FAILED_PRECONDITION, 'invalid_transition']);
  });

  it('a taken predefined code on one line: 409 barcode_taken; nothing of the confirmation kept', async () => {
    const { event, a, b } = await twoTickets({ barcode_type: 'predefined' });
    const first = await suite.orders.create(event, [{ ticket_id: b, amount: 1 }]);
    await suite.orders.confirm(first.guid, [{ ticket_id: b, barcodes: ['TAKEN-1'] }]);
    const order = await suite.orders.create(event, [{ ticket_id: a, amount: 1 }, { ticket_id: b, amount: 1 }]);
    const err = await grpcFailure(suite.orders.confirm(order.guid, [{ ticket_id: b, barcodes: ['TAKEN-1'] }]));
    expect(readErrorDetails(err)).toMatchObject({ reason: 'barcode_taken' });
    expect((await suite.orders.get(order.guid)).state).toBe(ReservationState.RESERVATION_STATE_RESERVED);
    expect(await expectInvariant(suite.who, suite.db, a)).toEqual({ sold: 0, reserved: 1, pending: 0 });
  });

  it('barcode_taken names the line that sent the taken code (ticket_id in ErrorInfo), beside a line of generated codes', async () => {
    const { event, a, b } = await twoTickets({ barcode_type: 'predefined' });
    await suite.orders.confirm((await suite.orders.create(event, [{ ticket_id: b, amount: 1 }])).guid, [{ ticket_id: b, barcodes: ['TAKEN-2'] }]);
    const order = await suite.orders.create(event, [{ ticket_id: a, amount: 1 }, { ticket_id: b, amount: 1 }]);
    const err = await grpcFailure(suite.orders.confirm(order.guid, [{ ticket_id: b, barcodes: ['TAKEN-2'] }]));
    expect(err.code).toBe(status.ALREADY_EXISTS);
    expect(readErrorDetails(err)).toMatchObject({ reason: 'barcode_taken', reasonMetadata: { ticket_id: b } });
    expect((await suite.orders.get(order.guid)).state).toBe(ReservationState.RESERVATION_STATE_RESERVED);
  });

  it('release gives every line\'s stock back', async () => {
    const { event, a, b } = await twoTickets();
    const order = await suite.orders.create(event, [{ ticket_id: a, amount: 3 }, { ticket_id: b, amount: 4 }]);
    const released = await suite.orders.release(order.guid);
    expect(released.state).toBe(RELEASED);
    expect(released.expires_at).toBeUndefined();
    expect(await expectInvariant(suite.who, suite.db, a)).toEqual({ sold: 0, reserved: 0, pending: 0 });
    expect(await expectInvariant(suite.who, suite.db, b)).toEqual({ sold: 0, reserved: 0, pending: 0 });
  });

  it('expiry: within a second of expires_at the order reads expired, every line\'s stock is back, a move is reservation_expired', async () => {
    const { event, a, b } = await twoTickets();
    const order = await suite.orders.create(event, [{ ticket_id: a, amount: 3 }, { ticket_id: b, amount: 4 }], { ttl_seconds: 1 });
    suite.stack.clock.advanceTo(order.expires_at!.getTime() + 1000);
    expect((await suite.orders.get(order.guid)).state).toBe(EXPIRED);
    expect(await expectInvariant(suite.who, suite.db, a)).toEqual({ sold: 0, reserved: 0, pending: 0 });
    expect(await expectInvariant(suite.who, suite.db, b)).toEqual({ sold: 0, reserved: 0, pending: 0 });
    const err = await grpcFailure(suite.orders.confirm(order.guid));
    expect(readErrorDetails(err).reason).toBe('reservation_expired');
  });

  it('expiry settled through one ticket expires the order whole: its line on the other ticket too, in the database', async () => {
    const { event, a, b } = await twoTickets();
    const order = await suite.orders.create(event, [{ ticket_id: a, amount: 2 }, { ticket_id: b, amount: 1 }], { ttl_seconds: 1 });
    suite.stack.clock.advanceTo(order.expires_at!.getTime() + 1000);
    // A read of ticket a settles a's due lines only; nothing has read b since.
    expect(await readTicket(suite.who, a)).toMatchObject({ reserved_count: 0 });
    const states = (await suite.db('reservations').where('order_id', order.guid).select('ticket_id', 'state')) as Array<{ ticket_id: string; state: string }>;
    expect(states.map((line) => line.state)).toEqual(['expired', 'expired']);
    const counters = (await suite.db('tickets').where('guid', b).first('reserved_count', 'pending_count')) as { reserved_count: number; pending_count: number };
    expect({ reserved: Number(counters.reserved_count), pending: Number(counters.pending_count) }).toEqual({ reserved: 0, pending: 0 });
    expect(await expectInvariant(suite.who, suite.db, b)).toEqual({ sold: 0, reserved: 0, pending: 0 });
  });

  it('another company\'s order is NOT_FOUND naming ticketing.v1.Order', async () => {
    const { event, a } = await twoTickets();
    const order = await suite.orders.create(event, [{ ticket_id: a, amount: 1 }]);
    const stranger = await signUpAndLogin(suite.stack);
    const theirs = ordersOf(suite.client, { stack: suite.stack, token: stranger.accessToken });
    const err = await grpcFailure(theirs.get(order.guid));
    expect(err.code).toBe(status.NOT_FOUND);
    expect(readErrorDetails(err).resource).toEqual({ type: 'ticketing.v1.Order', name: order.guid });
    expect((await grpcFailure(theirs.release(order.guid))).code).toBe(status.NOT_FOUND);
  });
});

/**
 * Stock moves over gRPC (ReservationService, PRODUCT.md 8 and 9): the whole life of a
 * ticket, the refusals with their google.rpc.ErrorInfo reason, and the rush: no oversell
 * under 200 concurrent buyers, with mixed amounts, releases and expiries racing.
 */
import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { ReservationState } from '../../lib/gen/ticketing/v1/reservation.js';
import { readErrorDetails } from '../../lib/grpc/errors.js';
import { signUpAndLogin } from '../support/http.js';
import { expectInvariant, grpcCall, grpcFailure, grpcPatiently, meta, newTicket, reservationSuiteOfFile } from '../support/stock.js';
import { readTicket } from '../support/api.js';

const suite = reservationSuiteOfFile();

const md = () => meta(suite.who.token);
const reserveTicket = (ticket_id: string, amount: number, ttl_seconds?: number, request_id = '') =>
  grpcCall(suite.client.reserveTicket.bind(suite.client), { ticket_id, amount, ttl_seconds, request_id }, md());
const reserveTicketAs = (metadata: ReturnType<typeof md>, ticket_id: string) =>
  grpcCall(suite.client.reserveTicket.bind(suite.client), { ticket_id, amount: 1, ttl_seconds: undefined, request_id: '' }, metadata);
/** With its own request id (Idempotency-Key), retried on UNAVAILABLE, as a careful shop does under load. */
const reservePatiently = (ticket_id: string, amount: number, ttl_seconds?: number) => {
  const requestId = randomUUID();
  return grpcPatiently(() => reserveTicket(ticket_id, amount, ttl_seconds, requestId));
};

// The rush tests make hundreds of concurrent calls: a longer limit than the default.
describe('ReservationService over gRPC', { timeout: 120_000 }, () => {
  it('runs the whole life: reserve, get, list, pending, confirm with generated barcodes, scan', async () => {
    const { guid, eventGuid } = await newTicket(suite.who, { available_stock: 10 });
    const reserved = await reserveTicket(guid, 3);
    expect(reserved).toMatchObject({ ticket_id: guid, event_id: eventGuid, amount: 3, state: ReservationState.RESERVATION_STATE_RESERVED, barcodes: [] });
    const ttl = (reserved.expires_at!.getTime() - reserved.created_at!.getTime()) / 1000;
    expect(ttl).toBe(480);
    expect(await readTicket(suite.who, guid)).toMatchObject({ reserved_count: 3, pending_count: 0, sold_count: 0, status: 'available' });

    expect(await grpcCall(suite.client.getReservation.bind(suite.client), { guid: reserved.guid }, md())).toEqual(reserved);
    const list = await grpcCall(suite.client.listReservations.bind(suite.client), { ticket_id: guid, page_size: 0, page_token: '' }, md());
    expect(list.reservations.map((r) => r.guid)).toEqual([reserved.guid]);
    const byState = (state: ReservationState) => grpcCall(suite.client.listReservations.bind(suite.client), { ticket_id: guid, page_size: 0, page_token: '', state }, md());
    expect((await byState(ReservationState.RESERVATION_STATE_RESERVED)).reservations.map((r) => r.guid)).toEqual([reserved.guid]);
    expect((await byState(ReservationState.RESERVATION_STATE_PENDING)).reservations).toEqual([]);
    // A filter set to UNSPECIFIED is refused, not read as "every state".
    const unspecified = await grpcFailure(byState(ReservationState.RESERVATION_STATE_UNSPECIFIED));
    expect(unspecified.code).toBe(status.INVALID_ARGUMENT);
    expect(readErrorDetails(unspecified).fieldViolations?.map((v) => v.field)).toEqual(['state']);

    const pending = await grpcCall(suite.client.markReservationPending.bind(suite.client), { guid: reserved.guid, ttl_seconds: undefined }, md());
    expect(pending.state).toBe(ReservationState.RESERVATION_STATE_PENDING);
    expect((pending.expires_at!.getTime() - pending.updated_at!.getTime()) / 1000).toBe(1800);
    expect(await readTicket(suite.who, guid)).toMatchObject({ reserved_count: 0, pending_count: 3, sold_count: 0 });

    const confirmed = await grpcCall(suite.client.confirmReservation.bind(suite.client), { guid: reserved.guid, barcodes: [] }, md());
    expect(confirmed.state).toBe(ReservationState.RESERVATION_STATE_CONFIRMED);
    expect(confirmed.expires_at).toBeUndefined();
    expect(confirmed.barcodes).toHaveLength(3);
    for (const code of confirmed.barcodes) expect(code).toMatch(/^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{12,}$/);
    expect(new Set(confirmed.barcodes).size).toBe(3);
    expect(await readTicket(suite.who, guid)).toMatchObject({ reserved_count: 0, pending_count: 0, sold_count: 3, scanned_count: 0 });

    const scan = await grpcCall(suite.client.scanBarcode.bind(suite.client), { event_id: eventGuid, barcode: confirmed.barcodes[0]! }, md());
    expect(scan).toMatchObject({ barcode: confirmed.barcodes[0], ticket_id: guid, reservation_id: reserved.guid });
    expect(scan.scanned_at).toBeInstanceOf(Date);
    expect((await readTicket(suite.who, guid)).scanned_count).toBe(1);
    const again = await grpcFailure(grpcCall(suite.client.scanBarcode.bind(suite.client), { event_id: eventGuid, barcode: confirmed.barcodes[0]! }, md()));
    expect([again.code, again.reason]).toEqual([status.ALREADY_EXISTS, 'already_scanned']);

    const final = await grpcFailure(grpcCall(suite.client.releaseReservation.bind(suite.client), { guid: reserved.guid }, md()));
    expect([final.code, final.reason]).toEqual([status.FAILED_PRECONDITION, 'invalid_transition']);
    await expectInvariant(suite.who, suite.db, guid);
  });

  it('refuses with ErrorInfo reasons: insufficient_stock, not_on_sale, and 422 field violations', async () => {
    const { guid } = await newTicket(suite.who, { available_stock: 2 });
    const short = await grpcFailure(reserveTicket(guid, 3));
    expect([short.code, short.reason]).toEqual([status.FAILED_PRECONDITION, 'insufficient_stock']);
    const closed = await newTicket(suite.who, { status_overrule: 'unavailable' });
    const notOnSale = await grpcFailure(reserveTicket(closed.guid, 1));
    expect([notOnSale.code, notOnSale.reason]).toEqual([status.FAILED_PRECONDITION, 'not_on_sale']);
    const bad = await grpcFailure(reserveTicket(guid, 0, 3601));
    expect(bad.code).toBe(status.INVALID_ARGUMENT);
  });

  it('refuses with ErrorInfo reasons: barcode_taken, reservation_expired', async () => {
    const { guid } = await newTicket(suite.who, { available_stock: 5, barcode_type: 'predefined' });
    const first = await reserveTicket(guid, 1);
    await grpcCall(suite.client.confirmReservation.bind(suite.client), { guid: first.guid, barcodes: ['GATE-0001'] }, md());
    // A ttl the barcode_taken check cannot outlive on a slow machine; the stack's clock is moved past it.
    const second = await reserveTicket(guid, 1, 60);
    const taken = await grpcFailure(grpcCall(suite.client.confirmReservation.bind(suite.client), { guid: second.guid, barcodes: ['GATE-0001'] }, md()));
    expect([taken.code, taken.reason]).toEqual([status.ALREADY_EXISTS, 'barcode_taken']);
    suite.stack.clock.advanceTo(second.expires_at!.getTime() + 1000);
    const expired = await grpcFailure(grpcCall(suite.client.confirmReservation.bind(suite.client), { guid: second.guid, barcodes: ['GATE-0002'] }, md()));
    expect([expired.code, expired.reason]).toEqual([status.FAILED_PRECONDITION, 'reservation_expired']);
    expect(await grpcCall(suite.client.getReservation.bind(suite.client), { guid: second.guid }, md())).toMatchObject({ state: ReservationState.RESERVATION_STATE_EXPIRED, barcodes: [] });
    await expectInvariant(suite.who, suite.db, guid);
  });

  it('200 concurrent reservations of 1 against 50 in stock: exactly 50 succeed, 150 insufficient_stock', async () => {
    const { guid } = await newTicket(suite.who, { available_stock: 50 });
    const results = await Promise.allSettled(Array.from({ length: 200 }, () => reservePatiently(guid, 1)));
    const ok = results.filter((r) => r.status === 'fulfilled');
    const reasons = await Promise.all(results.filter((r) => r.status === 'rejected').map((r) => grpcFailure(Promise.reject(r.reason))));
    expect(ok).toHaveLength(50);
    expect(reasons.map((e) => e.reason ?? `${status[e.code]}: ${e.details}`)).toEqual(Array(150).fill('insufficient_stock'));
    const counters = await expectInvariant(suite.who, suite.db, guid);
    expect(counters).toEqual({ sold: 0, reserved: 50, pending: 0 });
    expect((await readTicket(suite.who, guid)).status).toBe('sold_out');
  });

  it('mixed amounts, confirms, releases and expiries racing: never more than the stock, counters equal the sums', async () => {
    const stock = 40;
    const { guid } = await newTicket(suite.who, { available_stock: stock, availability_margin: 2 });
    const outcome = { confirmed: 0 };
    const buyer = async (i: number) => {
      const amount = 1 + (i % 4);
      const expiring = i % 5 === 0;
      let reservation;
      try {
        reservation = await reservePatiently(guid, amount, expiring ? 1 : 60);
      } catch (err) {
        const failure = await grpcFailure(Promise.reject(err));
        expect(failure.reason, `${status[failure.code]}: ${failure.details}`).toBe('insufficient_stock');
        return;
      }
      if (expiring) return;
      const reservationGuid = reservation.guid;
      if (i % 3 === 0) {
        await grpcPatiently(() => grpcCall(suite.client.releaseReservation.bind(suite.client), { guid: reservationGuid }, md()));
        return;
      }
      await grpcPatiently(() => grpcCall(suite.client.markReservationPending.bind(suite.client), { guid: reservationGuid, ttl_seconds: 60 }, md()));
      await grpcPatiently(() => grpcCall(suite.client.confirmReservation.bind(suite.client), { guid: reservationGuid, barcodes: [] }, md()));
      outcome.confirmed += amount;
    };
    await Promise.all(Array.from({ length: 120 }, (_, i) => buyer(i)));
    const first = await expectInvariant(suite.who, suite.db, guid);
    expect(first.sold).toBe(outcome.confirmed);
    // a second wave while the 1-second reservations of the first expire (the stack's clock moved past them)
    suite.stack.clock.advance(1200);
    await Promise.all(Array.from({ length: 80 }, (_, i) => buyer(i + 1)));
    const second = await expectInvariant(suite.who, suite.db, guid);
    expect(second.sold).toBe(outcome.confirmed);
    expect(second.sold + second.reserved + second.pending).toBeLessThanOrEqual(stock - 2);
  });

  it('another company\'s reservation is NOT_FOUND, with google.rpc.ResourceInfo naming what was asked for', async () => {
    const { guid, eventGuid } = await newTicket(suite.who, { available_stock: 5 });
    const reservation = await reserveTicket(guid, 1);
    const stranger = await signUpAndLogin(suite.stack);
    const them = () => meta(stranger.accessToken);
    const err = await grpcFailure(grpcCall(suite.client.getReservation.bind(suite.client), { guid: reservation.guid }, them()));
    expect(err.code).toBe(status.NOT_FOUND);
    expect(readErrorDetails(err).resource).toEqual({ type: 'ticketing.v1.Reservation', name: reservation.guid });
    const release = await grpcFailure(grpcCall(suite.client.releaseReservation.bind(suite.client), { guid: reservation.guid }, them()));
    expect(release.code).toBe(status.NOT_FOUND);
    expect(readErrorDetails(release).resource).toEqual({ type: 'ticketing.v1.Reservation', name: reservation.guid });
    const ticket = await grpcFailure(reserveTicketAs(them(), guid));
    expect(readErrorDetails(ticket).resource).toEqual({ type: 'ticketing.v1.Ticket', name: guid });
    const scan = await grpcFailure(grpcCall(suite.client.scanBarcode.bind(suite.client), { event_id: eventGuid, barcode: 'NOSUCHCODE' }, md()));
    expect(scan.code).toBe(status.NOT_FOUND);
    expect(readErrorDetails(scan).resource).toEqual({ type: 'ticketing.v1.Barcode', name: 'NOSUCHCODE' });
  });
});

/**
 * PRODUCT.md 12 "Create" and "All or nothing", over gRPC (OrderService): every line is
 * checked as a reservation of its ticket, the stock of all lines is taken in one step, and
 * a refused line takes nothing and is named.
 */
import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { ReservationState } from '../../lib/gen/ticketing/v1/reservation.js';
import { readErrorDetails } from '../../lib/grpc/errors.js';
import { expectInvariant, grpcFailure, newEvent, newTicket } from '../support/stock.js';
import { signUpAndLogin } from '../support/http.js';
import { OrderChannel, orderSuiteOfFile } from './helpers.js';

const suite = orderSuiteOfFile();

const violations = (err: Parameters<typeof readErrorDetails>[0]) => readErrorDetails(err).fieldViolations?.map((v) => v.field);


/** The lines' stock, without their money (test/orders/money.test.ts is about that). */
const withoutPrices = <L extends { price?: unknown }>(lines: L[]) => lines.map(({ price: _price, ...line }) => line);
describe('an order of several tickets', () => {
  it('takes the stock of every line at once: two adults, a child, a parking pass', async () => {
    const event = await newEvent(suite.who);
    const adult = await newTicket(suite.who, { available_stock: 10 }, event);
    const child = await newTicket(suite.who, { available_stock: 10 }, event);
    const parking = await newTicket(suite.who, { available_stock: 10 }, event);
    const order = await suite.orders.create(event, [
      { ticket_id: adult.guid, amount: 2 },
      { ticket_id: child.guid, amount: 1 },
      { ticket_id: parking.guid, amount: 1 },
    ]);
    expect(order).toMatchObject({ event_id: event, channel: OrderChannel.ORDER_CHANNEL_ONLINE, state: ReservationState.RESERVATION_STATE_RESERVED });
    expect(withoutPrices(order.lines)).toEqual([
      { ticket_id: adult.guid, amount: 2, barcodes: [] },
      { ticket_id: child.guid, amount: 1, barcodes: [] },
      { ticket_id: parking.guid, amount: 1, barcodes: [] },
    ]);
    expect((order.expires_at!.getTime() - order.created_at!.getTime()) / 1000).toBe(480);
    expect(await suite.orders.get(order.guid)).toEqual(order);
    expect(await expectInvariant(suite.who, suite.db, adult.guid)).toEqual({ sold: 0, reserved: 2, pending: 0 });
    expect(await expectInvariant(suite.who, suite.db, parking.guid)).toEqual({ sold: 0, reserved: 1, pending: 0 });
  });

  it('one line short of stock: 409 insufficient_stock naming its ticket, nothing taken on any line', async () => {
    const event = await newEvent(suite.who);
    const plenty = await newTicket(suite.who, { available_stock: 10 }, event);
    const short = await newTicket(suite.who, { available_stock: 1 }, event);
    const err = await grpcFailure(suite.orders.create(event, [{ ticket_id: plenty.guid, amount: 3 }, { ticket_id: short.guid, amount: 2 }]));
    expect(err.code).toBe(status.FAILED_PRECONDITION);
    expect(readErrorDetails(err)).toMatchObject({ reason: 'insufficient_stock', reasonMetadata: { ticket_id: short.guid } });
    expect(await expectInvariant(suite.who, suite.db, plenty.guid)).toEqual({ sold: 0, reserved: 0, pending: 0 });
    expect(await expectInvariant(suite.who, suite.db, short.guid)).toEqual({ sold: 0, reserved: 0, pending: 0 });
  });

  it('one line not on sale: 409 not_on_sale naming its ticket, nothing taken', async () => {
    const event = await newEvent(suite.who);
    const open = await newTicket(suite.who, { available_stock: 10 }, event);
    const closed = await newTicket(suite.who, { available_stock: 10, status_overrule: 'unavailable' }, event);
    const err = await grpcFailure(suite.orders.create(event, [{ ticket_id: open.guid, amount: 1 }, { ticket_id: closed.guid, amount: 1 }]));
    expect(readErrorDetails(err)).toMatchObject({ reason: 'not_on_sale', reasonMetadata: { ticket_id: closed.guid } });
    expect(await expectInvariant(suite.who, suite.db, open.guid)).toEqual({ sold: 0, reserved: 0, pending: 0 });
  });

  it('an amount outside the second line\'s ticket rules: 422 naming lines[1].amount', async () => {
    const event = await newEvent(suite.who);
    const a = await newTicket(suite.who, { available_stock: 10 }, event);
    const b = await newTicket(suite.who, { available_stock: 10, increment: 2 }, event);
    const err = await grpcFailure(suite.orders.create(event, [{ ticket_id: a.guid, amount: 1 }, { ticket_id: b.guid, amount: 3 }]));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(violations(err)).toEqual(['lines[1].amount']);
    expect(await expectInvariant(suite.who, suite.db, a.guid)).toEqual({ sold: 0, reserved: 0, pending: 0 });
  });

  it('a ticket of another event, another company, deleted or unknown: 422 naming lines[i].ticket_id, all alike', async () => {
    const event = await newEvent(suite.who);
    const mine = await newTicket(suite.who, { available_stock: 10 }, event);
    const otherEvent = await newTicket(suite.who, { available_stock: 10 });
    const stranger = await signUpAndLogin(suite.stack);
    const theirs = await newTicket({ stack: suite.stack, token: stranger.accessToken }, { available_stock: 10 });
    const deleted = await newTicket(suite.who, { available_stock: 10 }, event);
    await suite.db('tickets').where('guid', deleted.guid).update({ deleted_at: '2026-01-01 00:00:00.000' });
    for (const ticketId of [otherEvent.guid, theirs.guid, deleted.guid, '00000000-0000-4000-8000-000000000000']) {
      const err = await grpcFailure(suite.orders.create(event, [{ ticket_id: mine.guid, amount: 1 }, { ticket_id: ticketId, amount: 1 }]));
      expect(violations(err), ticketId).toEqual(['lines[1].ticket_id']);
    }
    expect(await expectInvariant(suite.who, suite.db, mine.guid)).toEqual({ sold: 0, reserved: 0, pending: 0 });
  });

  it('0 or 21 lines, a ticket twice, more than 1,000 units: 422 naming lines', async () => {
    const event = await newEvent(suite.who);
    const a = await newTicket(suite.who, { available_stock: 2000, max_orderable_amount_per_order: 1000 }, event);
    const b = await newTicket(suite.who, { available_stock: 2000, max_orderable_amount_per_order: 1000 }, event);
    expect(violations(await grpcFailure(suite.orders.create(event, [])))).toEqual(['lines']);
    const many = Array.from({ length: 21 }, () => ({ ticket_id: a.guid, amount: 1 }));
    expect(violations(await grpcFailure(suite.orders.create(event, many)))).toContain('lines');
    expect(violations(await grpcFailure(suite.orders.create(event, [{ ticket_id: a.guid, amount: 1 }, { ticket_id: a.guid, amount: 1 }])))).toEqual(['lines[1].ticket_id']);
    expect(violations(await grpcFailure(suite.orders.create(event, [{ ticket_id: a.guid, amount: 600 }, { ticket_id: b.guid, amount: 401 }])))).toEqual(['lines']);
    expect((await suite.orders.create(event, [{ ticket_id: a.guid, amount: 600 }, { ticket_id: b.guid, amount: 400 }])).lines).toHaveLength(2);
    await expectInvariant(suite.who, suite.db, a.guid);
  });

  it('combines_products false: an order of it and any other ticket is 422 naming lines; alone it sells', async () => {
    const event = await newEvent(suite.who);
    const solo = await newTicket(suite.who, { available_stock: 10, combines_products: false }, event);
    const other = await newTicket(suite.who, { available_stock: 10 }, event);
    const err = await grpcFailure(suite.orders.create(event, [{ ticket_id: other.guid, amount: 1 }, { ticket_id: solo.guid, amount: 1 }]));
    expect(violations(err)).toEqual(['lines']);
    expect(await expectInvariant(suite.who, suite.db, other.guid)).toEqual({ sold: 0, reserved: 0, pending: 0 });
    expect(withoutPrices((await suite.orders.create(event, [{ ticket_id: solo.guid, amount: 2 }])).lines)).toEqual([{ ticket_id: solo.guid, amount: 2, barcodes: [] }]);
    await expectInvariant(suite.who, suite.db, solo.guid);
  });

  it('box office: a ticket not available_in_cashr is 409 not_on_sale naming it; online ignores the flag', async () => {
    const event = await newEvent(suite.who);
    const counter = await newTicket(suite.who, { available_stock: 10, available_in_cashr: true }, event);
    const webOnly = await newTicket(suite.who, { available_stock: 10, available_in_cashr: false }, event);
    const err = await grpcFailure(
      suite.orders.create(event, [{ ticket_id: counter.guid, amount: 1 }, { ticket_id: webOnly.guid, amount: 1 }], { channel: OrderChannel.ORDER_CHANNEL_BOX_OFFICE }),
    );
    expect(readErrorDetails(err)).toMatchObject({ reason: 'not_on_sale', reasonMetadata: { ticket_id: webOnly.guid } });
    const online = await suite.orders.create(event, [{ ticket_id: counter.guid, amount: 1 }, { ticket_id: webOnly.guid, amount: 1 }]);
    expect(online.channel).toBe(OrderChannel.ORDER_CHANNEL_ONLINE);
    await expectInvariant(suite.who, suite.db, webOnly.guid);
  });
});

/**
 * PRODUCT.md 12 "All or nothing" under concurrency (issue 19 item 2): orders that share
 * tickets, taken in any order, never oversell, never take part of their lines and never
 * deadlock into an error; the counters equal the sums of the live lines after each test.
 */
import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import type { Order } from '../../lib/gen/ticketing/v1/order.js';
import { ReservationState } from '../../lib/gen/ticketing/v1/reservation.js';
import { readErrorDetails } from '../../lib/grpc/errors.js';
import { expectInvariant, grpcPatiently, newEvent, newTicket } from '../support/stock.js';
import { orderSuiteOfFile } from './helpers.js';

const suite = orderSuiteOfFile();

/** How a settled create ended: the order, or its refusal's reason. */
const reasonOf = (result: PromiseSettledResult<Order>) => {
  if (result.status === 'fulfilled') return 'ok';
  const err = result.reason as Parameters<typeof readErrorDetails>[0] & { code: number; details: string };
  return readErrorDetails(err).reason ?? `${status[err.code]}: ${err.details}`;
};

describe('concurrent orders sharing tickets', { timeout: 180_000 }, () => {
  it('200 concurrent two-line orders against stock for 50 of one ticket: exactly 50 succeed, the rest insufficient_stock naming it', async () => {
    const event = await newEvent(suite.who);
    const scarce = await newTicket(suite.who, { available_stock: 50 }, event);
    const plenty = await newTicket(suite.who, { available_stock: 1000 }, event);
    // Half list the scarce ticket first, half last: the lock order must not depend on the lines' order.
    const create = (i: number) => {
      const lines = [{ ticket_id: scarce.guid, amount: 1 }, { ticket_id: plenty.guid, amount: 1 }];
      const request_id = randomUUID();
      return grpcPatiently(() => suite.orders.create(event, i % 2 ? lines : [...lines].reverse(), { request_id }));
    };
    const results = await Promise.allSettled(Array.from({ length: 200 }, (_, i) => create(i)));
    const reasons = results.map(reasonOf);
    expect(reasons.filter((r) => r === 'ok')).toHaveLength(50);
    expect(reasons.filter((r) => r !== 'ok')).toEqual(Array(150).fill('insufficient_stock'));
    expect(await expectInvariant(suite.who, suite.db, scarce.guid)).toEqual({ sold: 0, reserved: 50, pending: 0 });
    expect(await expectInvariant(suite.who, suite.db, plenty.guid)).toEqual({ sold: 0, reserved: 50, pending: 0 });
  });

  it('orders racing releases, confirms and 1-second expiries on three shared tickets: counters equal the sums of the live lines', async () => {
    const event = await newEvent(suite.who);
    const tickets = await Promise.all([30, 30, 30].map((stock) => newTicket(suite.who, { available_stock: stock }, event)));
    const buyer = async (i: number) => {
      const picked = [tickets[i % 3]!, tickets[(i + 1) % 3]!];
      const lines = picked.map((t, j) => ({ ticket_id: t.guid, amount: 1 + ((i + j) % 3) }));
      let order: Order;
      try {
        const request_id = randomUUID();
        order = await grpcPatiently(() => suite.orders.create(event, i % 2 ? lines : [...lines].reverse(), { request_id, ttl_seconds: i % 5 === 0 ? 1 : 60 }));
      } catch (err) {
        expect(readErrorDetails(err as Parameters<typeof readErrorDetails>[0]).reason).toBe('insufficient_stock');
        return;
      }
      if (i % 5 === 0) return;
      if (i % 3 === 0) {
        // A confirm racing a release of the same order: exactly one wins.
        const [confirm, release] = await Promise.allSettled([suite.orders.confirm(order.guid), suite.orders.release(order.guid)]);
        const won = [confirm, release].filter((r) => r.status === 'fulfilled');
        expect(won).toHaveLength(1);
        const lost = [confirm, release].find((r) => r.status === 'rejected') as PromiseRejectedResult;
        expect(readErrorDetails(lost.reason).reason).toBe('invalid_transition');
        return;
      }
      await grpcPatiently(() => suite.orders.pending(order.guid, 60));
      const confirmed = await grpcPatiently(() => suite.orders.confirm(order.guid));
      expect(confirmed.state).toBe(ReservationState.RESERVATION_STATE_CONFIRMED);
    };
    await Promise.all(Array.from({ length: 80 }, (_, i) => buyer(i)));
    // Past the 1-second orders of the first wave: the stack's clock moves, no wait.
    suite.stack.clock.advance(1200);
    await Promise.all(Array.from({ length: 40 }, (_, i) => buyer(i + 80)));
    for (const t of tickets) {
      const counters = await expectInvariant(suite.who, suite.db, t.guid);
      expect(counters.sold + counters.reserved + counters.pending).toBeLessThanOrEqual(30);
    }
  });
});

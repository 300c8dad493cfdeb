/**
 * The one stock engine (docs/stock-moves.md "One engine"): the database refuses oversell by
 * itself behind the check in memory; an order's line is no reservation to move; a confirmation
 * names every line it sends; two holder changes of one barcode run one after the other.
 */
import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { readErrorDetails } from '../../lib/grpc/errors.js';
import { newLine } from '../../services/ticket/stock/sale.js';
import { StockEngine } from '../../services/ticket/stock/stock-engine.js';
import { orderClient, orderMoveRest, ordersOf } from '../orders/helpers.js';
import { expectInvariant, grpcCall, grpcFailure, meta, moveRest, newEvent, newTicket, reservationSuiteOfFile } from '../support/stock.js';
import { readTicket } from '../support/api.js';

const suite = reservationSuiteOfFile();
const md = () => meta(suite.who.token);

function orders() {
  const client = orderClient(suite.stack);
  return { client, orders: ordersOf(client, suite.who) };
}

describe('the database is the second guard', { timeout: 60_000 }, () => {
  it('a move whose check in memory is wrong (it believes 1,000 in stock) cannot take more than is left: insufficient_stock, nothing taken', async () => {
    const { guid } = await newTicket(suite.who, { available_stock: 5 });
    const company = (await readTicket(suite.who, guid)).company_id as string;
    const engine = new StockEngine(suite.db);
    const taking = (amount: number) =>
      engine.run({
        tickets: [guid],
        takesStock: true,
        plan: (draft) => {
          const ticket = draft.ticket(guid, [company]);
          if (!ticket) throw new Error('the ticket is not locked');
          // A bug in the check in memory: the ticket seems to have far more stock than it has.
          ticket.available_stock = 1000;
          return draft.create({ kind: 'reservation', line: newLine(randomUUID(), ticket, amount, 60, draft.now, null) });
        },
      });
    const refused = await taking(6).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toMatchObject({ code: status.FAILED_PRECONDITION, details: { reason: 'insufficient_stock', reasonMetadata: { remaining: '5' } } });
    expect(await suite.db('reservations').where('ticket_id', guid).select('guid')).toEqual([]);
    expect(await suite.db('webhook_events').where('data', 'like', `%${guid}%`).where('type', 'reservation.created').select('guid')).toEqual([]);
    // What is there can still be taken, and the counters stay the sums of the reservations.
    await taking(5);
    expect(await expectInvariant(suite.who, suite.db, guid)).toEqual({ sold: 0, pending: 0, reserved: 5 });
  });
});

describe('an order line is no reservation to move', { timeout: 60_000 }, () => {
  it('confirm, pending and release of a line by its guid are 404 over gRPC and REST; the order stays whole and moves as one', async () => {
    const event = await newEvent(suite.who);
    const a = await newTicket(suite.who, { available_stock: 10 }, event);
    const b = await newTicket(suite.who, { available_stock: 10 }, event);
    const { client, orders: o } = orders();
    try {
      const order = await o.create(event, [
        { ticket_id: a.guid, amount: 1 },
        { ticket_id: b.guid, amount: 2 },
      ]);
      const [line] = (await suite.db('reservations').where('order_id', order.guid).orderBy('id').pluck('guid')) as string[];
      for (const move of [
        () => grpcCall(suite.client.confirmReservation.bind(suite.client), { guid: line!, barcodes: [] }, md()),
        () => grpcCall(suite.client.markReservationPending.bind(suite.client), { guid: line!, ttl_seconds: undefined }, md()),
        () => grpcCall(suite.client.releaseReservation.bind(suite.client), { guid: line! }, md()),
      ]) {
        expect((await grpcFailure(move())).code).toBe(status.NOT_FOUND);
      }
      for (const move of ['confirm', 'pending', 'release']) {
        const res = await moveRest(suite.who, line!, move as 'confirm');
        expect(res.status).toBe(404);
      }
      expect(new Set((await suite.db('reservations').where('order_id', order.guid).pluck('state')) as string[])).toEqual(new Set(['reserved']));
      expect((await o.confirm(order.guid)).lines.map((l) => l.barcodes.length)).toEqual([1, 2]);
      expect(await expectInvariant(suite.who, suite.db, b.guid)).toEqual({ sold: 2, pending: 0, reserved: 0 });
    } finally {
      client.close();
    }
  });
});

describe('a confirmation names every line it sends', { timeout: 60_000 }, () => {
  it('a line for a ticket the order does not hold, or a second line for one it does, is 422 naming lines[i].ticket_id; nothing moves', async () => {
    const event = await newEvent(suite.who);
    const a = await newTicket(suite.who, { available_stock: 10 }, event);
    const other = await newTicket(suite.who, { available_stock: 10 }, event);
    const { client, orders: o } = orders();
    try {
      const order = await o.create(event, [{ ticket_id: a.guid, amount: 2 }]);
      const alien = await grpcFailure(o.confirm(order.guid, [{ ticket_id: other.guid, barcodes: [] }]));
      expect(alien.code).toBe(status.INVALID_ARGUMENT);
      expect(readErrorDetails(alien).fieldViolations?.map((v) => v.field)).toEqual(['lines[0].ticket_id']);
      const twice = await grpcFailure(
        o.confirm(order.guid, [
          { ticket_id: a.guid, barcodes: [], holders: [{ name: 'Ada', email: 'ada@example.com' }] },
          { ticket_id: a.guid, barcodes: [] },
        ]),
      );
      expect(readErrorDetails(twice).fieldViolations?.map((v) => v.field)).toEqual(['lines[1].ticket_id']);
      expect(await expectInvariant(suite.who, suite.db, a.guid)).toEqual({ sold: 0, pending: 0, reserved: 2 });
      const rest = await orderMoveRest(suite.who, order.guid, 'confirm', { lines: [{ ticket_id: other.guid }] });
      expect(rest.status).toBe(422);
      expect(rest.body.errors.map((e: { field: string }) => e.field)).toEqual(['lines[0].ticket_id']);
      expect((await o.confirm(order.guid, [{ ticket_id: a.guid, barcodes: [] }])).lines[0]!.barcodes).toHaveLength(2);
    } finally {
      client.close();
    }
  });
});

describe('holder changes of one barcode run one after the other', { timeout: 120_000 }, () => {
  it('on a ticket that is not swappable, of two concurrent first holders exactly one wins, every round', async () => {
    const event = await newEvent(suite.who);
    const { guid } = await newTicket(suite.who, { available_stock: 100, late_personalization: true, swappable: false }, event);
    const { client, orders: o } = orders();
    try {
      for (let round = 0; round < 12; round++) {
        const order = await o.create(event, [{ ticket_id: guid, amount: 1 }]);
        const code = (await o.confirm(order.guid)).lines[0]!.barcodes[0]!.code;
        const name = (who: string) => grpcCall(client.setBarcodeHolder.bind(client), { guid: order.guid, code, holder: { name: who, email: `${who}@example.com` } }, md());
        const results = await Promise.allSettled([name('ada'), name('grace')]);
        const won = results.filter((r) => r.status === 'fulfilled');
        expect(won).toHaveLength(1);
        const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
        expect((await grpcFailure(Promise.reject(lost.reason))).reason).toBe('not_personalizable');
        const holder = (await o.get(order.guid)).lines[0]!.barcodes[0]!.holder;
        expect(holder).toEqual((won[0] as PromiseFulfilledResult<{ lines: Array<{ barcodes: Array<{ holder: unknown }> }> }>).value.lines[0]!.barcodes[0]!.holder);
      }
    } finally {
      client.close();
    }
  });
});

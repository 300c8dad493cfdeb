/**
 * Past the cliff (issue 22 item 5, docs/stock-moves.md "Past the cliff"): with a small
 * STOCK_MOVE_QUEUE_MAX and hundreds of buyers on one ticket over gRPC and REST, every
 * reservation is either served or refused at once as busy (RESOURCE_EXHAUSTED ticket_busy,
 * 503 + Retry-After), never another error; no confirm and no read fails; a read never shows
 * fewer sales than were already confirmed; the ticket ends sold out with nothing stranded
 * and nothing oversold.
 */
import type { StockMove } from '../../services/ticket/stock/stock-engine.js';
import { status } from '@grpc/grpc-js';
import { describe, expect, it, vi } from 'vitest';
import { readErrorDetails } from '../../lib/grpc/errors.js';
import type { JsonResponse } from '../support/http.js';
import { oversold, runRush } from '../support/rush.js';
import { grpcRushShop, restRushShop, type ReserveAnswer, type RushShop } from '../support/rush-shops.js';
import { expectProblem } from '../tickets/helpers.js';
import { expectInvariant, grpcCall, grpcFailure, meta, newTicket, reservationSuiteOfFile, reserve } from '../support/stock.js';
import { readTicket } from '../support/api.js';

/** Small: a rush of 300 buyers meets the bound now and then (the default is 2,000). */
const QUEUE_MAX = 40;

// A stock suite keeps the sweeper out of the way: nothing expires during a test (reservations live 480 s).
const suite = reservationSuiteOfFile({ STOCK_MOVE_QUEUE_MAX: String(QUEUE_MAX) });

const shopsOf = (): RushShop[] => [grpcRushShop(suite.stack.ticketGrpcAddress, suite.who.token), restRushShop(suite.stack.baseUrl, suite.who.token)];

/**
 * The seam that makes a busy refusal happen whatever the timing: just before each move that
 * takes stock of `ticketGuid` reaches the ticket's queue (through either entry of the
 * batcher: `transaction` or `plan`), QUEUE_MAX moves of another caller (empty transactions,
 * taking no stock) queue first, so the move finds the queue full. (A batch held open in
 * `beforeCommit` would not do on SQLite: its one connection would hold back the
 * reservations' own reads before they reach the queue.)
 */
function fillQueueBeforeEachReservation(ticketGuid: string): { settled(): Promise<unknown>; restore(): void } {
  const engine = suite.stack.running.ticket.engine;
  const run = engine.run.bind(engine);
  const fillers: Array<Promise<unknown>> = [];
  const spy = vi.spyOn(engine, 'run').mockImplementation(((move: StockMove<unknown>) => {
    const guid = move.tickets[0];
    if (guid === ticketGuid && move.takesStock) for (let i = 0; i < QUEUE_MAX; i++) fillers.push(run({ tickets: [guid], plan: () => undefined }));
    return run(move);
  }) as never);
  return { settled: () => Promise.all(fillers), restore: () => spy.mockRestore() };
}

describe('past the cliff: a rush with a small move queue', { timeout: 120_000 }, () => {
  it('refuses a reservation that finds its ticket\'s queue full at once: RESOURCE_EXHAUSTED ticket_busy over gRPC, 503 + Retry-After over REST, nothing reserved; served when tried again', async () => {
    const { who, db, client } = suite;
    const { guid } = await newTicket(who, { available_stock: 10 });
    const shops = shopsOf();
    const full = fillQueueBeforeEachReservation(guid);
    let grpcRefusal: Awaited<ReturnType<typeof grpcFailure>>;
    let restRefusal: JsonResponse;
    let sorted: ReserveAnswer[];
    try {
      grpcRefusal = await grpcFailure(grpcCall(client.reserveTicket.bind(client), { ticket_id: guid, amount: 2, ttl_seconds: undefined, request_id: '' }, meta(who.token)));
      restRefusal = await reserve(who, guid, { amount: 2 });
      sorted = await Promise.all(shops.map((shop) => shop.reserve(guid, 2)));
    } finally {
      full.restore();
    }
    await full.settled();

    expect(grpcRefusal.code, grpcRefusal.details).toBe(status.RESOURCE_EXHAUSTED);
    expect(grpcRefusal.reason).toBe('ticket_busy');
    expect(readErrorDetails(grpcRefusal).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expectProblem(restRefusal, 503);
    expect(restRefusal.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    // The rush below counts exactly these answers as busy, and nothing else.
    for (const answer of sorted) expect(answer).toMatchObject({ outcome: 'busy', retryAfterSeconds: expect.any(Number) });
    expect(await readTicket(who, guid)).toMatchObject({ sold_count: 0, reserved_count: 0, pending_count: 0 });

    try {
      for (const shop of shops) expect(await shop.reserve(guid, 2)).toMatchObject({ outcome: 'reserved' });
    } finally {
      for (const shop of shops) shop.close();
    }
    expect(await expectInvariant(who, db, guid)).toEqual({ sold: 0, reserved: 4, pending: 0 });
  });

  it('300 buyers over gRPC and REST until sold out: each reservation served or refused as busy, no confirm or read fails, reads never behind sales, nothing stranded or oversold', async () => {
    const { stack, who, db } = suite;
    const stock = 200;
    const { guid } = await newTicket(who, { available_stock: stock, max_orderable_amount_per_order: 4 });
    const shops = shopsOf();
    const tally = await runRush({
      baseUrl: stack.baseUrl,
      token: who.token,
      ticketGuid: guid,
      shops,
      buyers: 300,
      readers: 4,
      // A short pause rather than Retry-After's whole seconds keeps the test short; the service cannot tell.
      busyWaitMs: () => 10 + Math.random() * 40,
    }).finally(() => shops.forEach((shop) => shop.close()));

    expect(tally.failureSamples, 'failed reserves, confirms and reads').toEqual([]);
    expect({ reserveFailures: tally.reserveFailures, confirmFailures: tally.confirmFailures, readErrors: tally.readErrors }).toEqual({ reserveFailures: 0, confirmFailures: 0, readErrors: 0 });
    expect({ readsBehindSales: tally.readsBehindSales, readsOverStock: tally.readsOverStock }).toEqual({ readsBehindSales: 0, readsOverStock: 0 });
    expect(tally.reads).toBeGreaterThan(0);
    expect(tally.boughtUnits).toBe(stock);
    expect(tally.final).toMatchObject({ sold_count: stock, reserved_count: 0, pending_count: 0, status: 'sold_out' });
    expect(oversold(tally.final, tally.boughtUnits)).toBe(0);
    expect(await expectInvariant(who, db, guid)).toEqual({ sold: stock, reserved: 0, pending: 0 });
  });
});

/**
 * Batched moves on a hot ticket (docs/stock-moves.md "Hot tickets: batched moves"): moves of
 * one ticket that wait together run in one transaction, each answered on its own; a refusal
 * undoes only its own move; a batch that fails as a whole runs its moves again alone; two
 * ticket services batching on one MySQL database never oversell.
 */
import { randomUUID } from 'node:crypto';
import { status, type ServiceError } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { ReservationServiceClient, type Reservation } from '../../lib/gen/ticketing/v1/reservation.js';
import { createLogger } from '../../lib/logger.js';
import { startTicketService } from '../../services/ticket/server.js';
import { StockEngine, type StockMove } from '../../services/ticket/stock/stock-engine.js';
import { withCallDeadline } from '../../services/ticket/access/call-deadline.js';
import { problemFromGrpc } from '../../gateway/problem.js';
import { RpcError, toStatusObject } from '../../lib/grpc/errors.js';
import { TICKET_BUSY } from '../../lib/stock-conflicts.js';
import { testBackend } from '../support/stack.js';
import { waitFor } from '../support/redis-server.js';
import { credentials } from '@grpc/grpc-js';
import { expectInvariant, grpcCall, grpcFailure, grpcPatiently, meta, newTicket, reservationSuiteOfFile } from '../support/stock.js';
import { readTicket } from '../support/api.js';

const suite = reservationSuiteOfFile();

const batcher = () => suite.stack.running.ticket.engine;

afterEach(() => {
  batcher().beforeCommit = undefined;
});

const md = () => meta(suite.who.token);
const reserveOn = (c: ReservationServiceClient, ticket_id: string, amount: number, request_id = '') =>
  grpcCall(c.reserveTicket.bind(c), { ticket_id, amount, ttl_seconds: undefined, request_id }, md());
const reserve = (ticket_id: string, amount: number, request_id = '') => reserveOn(suite.client, ticket_id, amount, request_id);
const confirm = (guid: string, barcodes: string[] = []) => grpcCall(suite.client.confirmReservation.bind(suite.client), { guid, barcodes }, md());
const release = (guid: string) => grpcCall(suite.client.releaseReservation.bind(suite.client), { guid }, md());
const pending = (guid: string) => grpcCall(suite.client.markReservationPending.bind(suite.client), { guid, ttl_seconds: undefined }, md());

/** Settles every call: its answer or its error. */
const settled = <T>(calls: Array<Promise<T>>) => Promise.allSettled(calls);
const reasonOf = async (result: PromiseSettledResult<unknown>) => {
  if (result.status === 'fulfilled') return undefined;
  const failure = await grpcFailure(Promise.reject(result.reason));
  return failure.reason ?? `code ${failure.code}: ${failure.details}`;
};

/** The outbox events whose data is this reservation, by type. */
async function eventsOf(reservationGuid: string): Promise<string[]> {
  const rows = (await suite.db('webhook_events').where('data', 'like', `%${reservationGuid}%`).orderBy('id').select('type')) as Array<{ type: string }>;
  return rows.map((row) => row.type);
}

describe('batched moves on one ticket', { timeout: 120_000 }, () => {
  it('answers each of many concurrent moves on its own: refusals undo only their own move, counters stay the sums', async () => {
    const sizes: number[] = [];
    batcher().beforeCommit = (moves) => void sizes.push(moves);
    const { guid } = await newTicket(suite.who, { available_stock: 40 });

    // 60 buyers for 40 units: exactly 40 get one, 20 are refused for stock, in whatever batches.
    const rush = await settled(Array.from({ length: 60 }, () => reserve(guid, 1)));
    const held = rush.filter((r): r is PromiseFulfilledResult<Reservation> => r.status === 'fulfilled').map((r) => r.value);
    expect(held).toHaveLength(40);
    for (const refused of rush.filter((r) => r.status === 'rejected')) expect(await reasonOf(refused)).toBe('insufficient_stock');
    expect(Math.max(...sizes), 'some moves were taken together').toBeGreaterThan(1);

    const [toConfirm, toRelease, toPend, released, badBarcode] = [0, 10, 20, 30, 35].map((from, i, all) => held.slice(from, all[i + 1] ?? 40));
    for (const r of released!) await release(r.guid);

    // One wave of moves that interleave in batches: valid ones, invalid transitions, bad barcodes, and more reserves.
    sizes.length = 0;
    const wave = await settled<unknown>([
      ...toConfirm!.map((r) => confirm(r.guid)),
      ...toRelease!.map((r) => release(r.guid)),
      ...toPend!.map((r) => pending(r.guid)),
      ...released!.map((r) => confirm(r.guid)),
      ...badBarcode!.map((r) => confirm(r.guid, ['NOT-GENERATED-1'])),
      ...Array.from({ length: 20 }, () => reserve(guid, 1)),
    ]);
    const [confirmed, releasedNow, pended, invalid, bad, reserved] = [10, 10, 10, 5, 5, 20].reduce<Array<typeof wave>>((parts, n) => {
      const start = parts.reduce((sum, part) => sum + part.length, 0);
      return [...parts, wave.slice(start, start + n)];
    }, []);
    for (const r of [...confirmed!, ...releasedNow!, ...pended!]) expect(r.status, String((r as PromiseRejectedResult).reason)).toBe('fulfilled');
    for (const r of confirmed!) expect((r as PromiseFulfilledResult<Reservation>).value.barcodes).toHaveLength(1);
    for (const r of invalid!) expect(await reasonOf(r)).toBe('invalid_transition');
    for (const r of bad!) {
      expect(r.status).toBe('rejected');
      expect(((r as PromiseRejectedResult).reason as { code: number }).code).toBe(status.INVALID_ARGUMENT);
    }
    // 10 released now + 5 before free 15 units: the 20 new reserves get exactly 15.
    expect(reserved!.filter((r) => r.status === 'fulfilled')).toHaveLength(15);
    for (const r of reserved!.filter((r) => r.status === 'rejected')) expect(await reasonOf(r)).toBe('insufficient_stock');

    expect(await expectInvariant(suite.who, suite.db, guid)).toEqual({ sold: 10, pending: 10, reserved: 5 + 15, });
    // Each applied move has its one outbox event, a refused move none.
    expect(await eventsOf(toConfirm![0]!.guid)).toEqual(['reservation.created', 'reservation.confirmed']);
    expect(await eventsOf(released![0]!.guid)).toEqual(['reservation.created', 'reservation.released']);
    expect(await eventsOf(badBarcode![0]!.guid)).toEqual(['reservation.created']);
    const [codes] = [(await suite.db('barcodes').where('ticket_id', guid).count({ n: '*' })) as Array<{ n: unknown }>];
    expect(Number(codes![0]!.n)).toBe(10);
  });

  it('runs each move of a batch whose transaction fails again alone: none lost, none applied twice', async () => {
    const { guid } = await newTicket(suite.who, { available_stock: 100 });
    let failures = 0;
    batcher().beforeCommit = (moves) => {
      if (moves > 1 && failures === 0) {
        failures++;
        throw Object.assign(new Error('injected: the batch commit failed'), { code: 'ECONNRESET' });
      }
    };
    const keys = Array.from({ length: 30 }, () => randomUUID());
    const answers = await Promise.all(keys.map((key) => reserve(guid, 2, key)));
    expect(failures, 'a batch of several moves failed once').toBe(1);
    expect(new Set(answers.map((r) => r.guid)).size).toBe(30);
    expect(await expectInvariant(suite.who, suite.db, guid)).toEqual({ sold: 0, pending: 0, reserved: 60 });
    const rows = (await suite.db('reservations').where('ticket_id', guid).select('guid')) as Array<{ guid: string }>;
    expect(rows.map((row) => row.guid).sort()).toEqual(answers.map((r) => r.guid).sort());
    for (const answer of answers.slice(0, 5)) expect(await eventsOf(answer.guid)).toEqual(['reservation.created']);
    // The idempotency record was written with each move: a retry gets the first answer, takes nothing.
    expect(await reserve(guid, 2, keys[0])).toEqual(answers[0]);
    expect((await readTicket(suite.who, guid)).reserved_count).toBe(60);
  });

  it('writes a batch in bulk: moves of one reservation see the ones before them; a code taken within a batch reruns its moves alone, refusing only one', async () => {
    const { guid } = await newTicket(suite.who, { available_stock: 20, barcode_type: 'predefined' });
    const [r1, r2, r3, r4] = [await reserve(guid, 1), await reserve(guid, 1), await reserve(guid, 1), await reserve(guid, 1)];

    // Batch A: two moves of r1 and two releases of r2, written together.
    const [pended, confirmed, releasedOnce, releasedTwice] = await inOneBatch(guid, () => [
      pending(r1!.guid),
      confirm(r1!.guid, ['CODE-0001']),
      release(r2!.guid),
      release(r2!.guid),
    ]);
    expect(confirmed!.status, String((confirmed as PromiseRejectedResult).reason)).toBe('fulfilled');
    expect((confirmed as PromiseFulfilledResult<Reservation>).value.barcodes).toEqual(['CODE-0001']);
    // Whichever of r1's moves the batch took first, the other saw it: pending then confirmed, or confirmed then refused.
    const r1Events = await eventsOf(r1!.guid);
    if (pended!.status === 'fulfilled') expect(r1Events).toEqual(['reservation.created', 'reservation.pending', 'reservation.confirmed']);
    else expect([await reasonOf(pended!), r1Events]).toEqual(['invalid_transition', ['reservation.created', 'reservation.confirmed']]);
    expect([releasedOnce!, releasedTwice!].filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await reasonOf([releasedOnce!, releasedTwice!].find((r) => r.status === 'rejected')!)).toBe('invalid_transition');
    expect(await eventsOf(r2!.guid)).toEqual(['reservation.created', 'reservation.released']);

    // Batch B: two confirmations sending the same code: the bulk insert fails, each move runs alone, the second is refused.
    const twins = await inOneBatch(guid, () => [confirm(r3!.guid, ['CODE-0002']), confirm(r4!.guid, ['CODE-0002'])]);
    expect(twins.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await reasonOf(twins.find((r) => r.status === 'rejected')!)).toBe('barcode_taken');
    // Sold: r1 and one twin; reserved: the other twin and the batch-holding reservations.
    const counters = await expectInvariant(suite.who, suite.db, guid);
    expect(counters.sold).toBe(2);
    expect(counters.pending).toBe(0);
  });

  it.skipIf(testBackend() !== 'mysql')('never oversells with two ticket services batching on one MySQL database', async () => {
    const second = await startTicketService(suite.stack.running.config, createLogger('ticket', 'silent'));
    const other = new ReservationServiceClient(`127.0.0.1:${second.port}`, credentials.createInsecure());
    try {
      const { guid } = await newTicket(suite.who, { available_stock: 150 });
      const amounts = Array.from({ length: 120 }, (_, i) => 1 + (i % 3));
      // As a careful shop: its own request id, retried on UNAVAILABLE (a loaded machine delays the auth check).
      const rush = await settled(amounts.map((amount, i) => {
        const requestId = randomUUID();
        return grpcPatiently(() => reserveOn(i % 2 ? other : suite.client, guid, amount, requestId));
      }));
      const taken = rush.reduce((sum, r, i) => sum + (r.status === 'fulfilled' ? amounts[i]! : 0), 0);
      for (const refused of rush.filter((r) => r.status === 'rejected')) expect(await reasonOf(refused)).toBe('insufficient_stock');
      expect(taken).toBeLessThanOrEqual(150);
      expect(taken).toBeGreaterThan(150 - 3);
      expect(await expectInvariant(suite.who, suite.db, guid)).toEqual({ sold: 0, pending: 0, reserved: taken });
    } finally {
      other.close();
      await second.shutdown(0);
    }
  });
});

describe('past the cliff: a full queue refuses new reservations at once', () => {
  it('refuses a move that takes stock when the ticket\'s queue is full (RESOURCE_EXHAUSTED, 503 + Retry-After over REST); other moves still queue', async () => {
    const engine = new StockEngine(suite.db, { queueMax: 2 });
    const { running, open } = await runningBatch(engine, 'hot');
    const queued = [engine.run(done('hot')), engine.run({ ...done('hot'), takesStock: true })];
    const refusal = await engine.run({ ...done('hot'), takesStock: true }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refusal).toBeInstanceOf(RpcError);
    expect(refusal).toMatchObject({ code: status.RESOURCE_EXHAUSTED, details: { reason: TICKET_BUSY } });
    // A confirm or release (not taking stock) queues whatever the queue holds.
    queued.push(engine.run(done('hot')));
    open();
    expect(await Promise.all([running, ...queued])).toEqual(['done', 'done', 'done', 'done']);

    const problem = problemFromGrpc(serviceError(refusal as RpcError));
    expect(problem).toMatchObject({ status: 503 });
    expect(problem.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });

  it('refuses at once a move that takes stock when the moves ahead of it would outlast its call deadline; without a deadline it queues', async () => {
    const engine = new StockEngine(suite.db);
    // One batch of two moves held 100 ms at its commit: the engine's time per move (from 0, a fifth of each batch's) is at least 10 ms now.
    engine.beforeCommit = () => new Promise((resolve) => setTimeout(resolve, 100));
    expect(await Promise.all([engine.run(done('hot')), engine.run(done('hot'))])).toEqual(['done', 'done']);
    const { running, open } = await runningBatch(engine, 'hot');
    const queued = Array.from({ length: 10 }, () => engine.run(done('hot')));
    // Ten moves ahead at 10 ms or more each: 100 ms or more, past a deadline 50 ms away.
    const refusal = await withCallDeadline(Date.now() + 50, () => engine.run({ ...done('hot'), takesStock: true })).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refusal).toMatchObject({ code: status.RESOURCE_EXHAUSTED, details: { reason: TICKET_BUSY } });
    expect((refusal as RpcError).details.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    queued.push(engine.run({ ...done('hot'), takesStock: true }));
    open();
    expect(await Promise.all([running, ...queued])).toEqual(Array(12).fill('done'));
  });
});

/**
 * Runs `calls` as one batch of `ticket`: a batch of one reservation is held open at its commit
 * until all of them have queued behind it, then let go. Their settled results, in order.
 */
async function inOneBatch(ticket: string, calls: () => Array<Promise<unknown>>): Promise<Array<PromiseSettledResult<unknown>>> {
  let holding!: () => void;
  const held = new Promise<void>((resolve) => (holding = resolve));
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  batcher().beforeCommit = async () => {
    batcher().beforeCommit = undefined;
    holding();
    await gate;
  };
  const blocker = reserve(ticket, 1);
  await held;
  const queued = calls();
  const results = settled(queued);
  await waitFor(() => batcher().queued(ticket) >= queued.length, 10_000, 5);
  open();
  await blocker;
  return results;
}

/** A move of `ticket` that changes nothing and answers 'done'. */
const done = (ticket: string): StockMove<string> => ({ tickets: [ticket], plan: () => 'done' });

/** Runs a move of `ticket` whose batch is held open at its commit until `open()`: later moves of the ticket queue behind it. */
async function runningBatch(engine: StockEngine, ticket: string): Promise<{ running: Promise<string>; open: () => void }> {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let started!: () => void;
  const holding = new Promise<void>((resolve) => (started = resolve));
  engine.beforeCommit = async () => {
    engine.beforeCommit = undefined;
    started();
    await gate;
  };
  const running = engine.run(done(ticket));
  await holding;
  return { running, open };
}

function serviceError(err: RpcError): ServiceError {
  const sent = toStatusObject(err);
  return Object.assign(new Error(sent.details), { code: sent.code!, details: sent.details!, metadata: sent.metadata! }) as ServiceError;
}

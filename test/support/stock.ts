/**
 * Helpers of the suites that sell (docs/stock-moves.md): a ticket to sell, the gRPC client of
 * ReservationService, REST calls of the same moves, and the invariant every concurrent
 * test ends with.
 */
import { randomUUID } from 'node:crypto';
import { credentials, status, type Metadata, type ServiceError } from '@grpc/grpc-js';
import { expect } from 'vitest';
import { loadConfig } from '../../lib/config.js';
import type { Knex } from '../../lib/db.js';
import { ReservationServiceClient } from '../../lib/gen/ticketing/v1/reservation.js';
import type { UnaryMethod } from '../../lib/grpc/client.js';
import { readErrorDetails } from '../../lib/grpc/errors.js';
import { callerMetadata, grpcCall as supportCall, grpcFailure as supportFailure } from './grpc.js';
import { openTicketDatabase } from '../../services/ticket/server.js';
import { request, type JsonResponse } from './http.js';
import { createEvent, h, readTicket, type Who } from './api.js';
import { startTestStack, type TestStack } from './stack.js';
import { suiteOfFile } from './suite.js';
import { signUpAndLogin } from './http.js';

export const RESERVATION_KEYS = ['amount', 'barcodes', 'company_id', 'created_at', 'event_id', 'expires_at', 'guid', 'state', 'ticket_id', 'updated_at'];


export async function newEvent(who: Who, name = 'Stock event'): Promise<string> {
  return (await createEvent(who, { name })).guid;
}

/** A ticket on sale with `available_stock` (and any other fields). */
export async function newTicket(who: Who, fields: Record<string, unknown> = {}, eventGuid?: string): Promise<{ guid: string; eventGuid: string }> {
  const event = eventGuid ?? (await newEvent(who));
  const res = await request(`${who.stack.baseUrl}/event/${event}/ticket`, {
    method: 'POST',
    headers: h(who),
    json: { name: 'Stock ticket', vat_percentage: 21, available_stock: 50, ...fields },
  });
  expect(res.status, res.text).toBe(201);
  return { guid: res.body.guid as string, eventGuid: event };
}

// --- REST -----------------------------------------------------------------------------

export function reserve(who: Who, ticketGuid: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<JsonResponse> {
  return request(`${who.stack.baseUrl}/ticket/${ticketGuid}/reservations`, { method: 'POST', headers: h(who, headers), json: body });
}

export function moveRest(who: Who, reservationGuid: string, move: 'pending' | 'confirm' | 'release' | 'cancel', body?: Record<string, unknown>): Promise<JsonResponse> {
  return request(`${who.stack.baseUrl}/reservation/${reservationGuid}/${move}`, { method: 'POST', headers: h(who), ...(body ? { json: body } : {}) });
}

export function scanRest(who: Who, eventGuid: string, barcode: string): Promise<JsonResponse> {
  return request(`${who.stack.baseUrl}/event/${eventGuid}/scans`, { method: 'POST', headers: h(who), json: { barcode } });
}

export async function listReservations(who: Who, ticketGuid: string, query = ''): Promise<any[]> {
  const res = await request(`${who.stack.baseUrl}/ticket/${ticketGuid}/reservations${query}`, { headers: h(who) });
  expect(res.status, res.text).toBe(200);
  return res.body as any[];
}

/** A 409 problem with this machine-readable code. */
export function expectConflict(res: JsonResponse, code: string): void {
  expect(res.status, res.text).toBe(409);
  expect(res.headers.get('content-type') ?? '').toMatch(/^application\/problem\+json/);
  expect(res.body.code, res.text).toBe(code);
  expect(res.body.status).toBe(409);
  expect(typeof res.body.detail).toBe('string');
}

// --- gRPC -----------------------------------------------------------------------------

export function grpcClient(stack: TestStack): ReservationServiceClient {
  return new ReservationServiceClient(stack.ticketGrpcAddress, credentials.createInsecure());
}

export const meta = (token: string, companies: string[] = []): Metadata => callerMetadata(token, companies);

/** A unary call with a 30 s deadline: the stock suites make hundreds of calls at once. */
export const grpcCall = <Req, Res>(method: UnaryMethod<Req, Res>, req: Req, md: Metadata): Promise<Res> => supportCall(method, req, md, 30_000);

/** The error a call must end with, with its google.rpc.ErrorInfo reason. */
export async function grpcFailure(promise: Promise<unknown>): Promise<ServiceError & { reason?: string }> {
  const e = await supportFailure(promise);
  return Object.assign(e, { reason: readErrorDetails(e).reason });
}

// --- a careful client under load ----------------------------------------------------------

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ATTEMPTS = 5;

/**
 * What a careful client does with 503 / UNAVAILABLE (the service did nothing: its auth check
 * or its database did not answer in time, which a loaded test machine provokes): the same
 * request again, shortly. Reservations carry an Idempotency-Key, so a retry can never take
 * stock twice, and may also be retried after a 504 (the first attempt may have gone through).
 */
export async function restPatiently(send: () => Promise<JsonResponse>, retryOn: readonly number[] = [503]): Promise<JsonResponse> {
  for (let attempt = 1; ; attempt++) {
    const res = await send();
    if (!retryOn.includes(res.status) || attempt === ATTEMPTS) return res;
    await pause(200 * attempt);
  }
}

export async function grpcPatiently<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (err) {
      if ((err as ServiceError).code !== status.UNAVAILABLE || attempt === ATTEMPTS) throw err;
    }
    await pause(200 * attempt);
  }
}

/** A reservation as a careful shop makes it under load: with its own Idempotency-Key, retried on 503. */
export function reservePatiently(who: Who, ticketGuid: string, body: Record<string, unknown>): Promise<JsonResponse> {
  const key = { 'Idempotency-Key': randomUUID() };
  return restPatiently(() => reserve(who, ticketGuid, body, key), [503, 504]);
}

// --- invariant ------------------------------------------------------------------------

/** The stack's own ticket database, read directly (SQLite file or MySQL database). */
export function ticketDatabase(stack: TestStack): Knex {
  return openTicketDatabase(loadConfig(stack.env));
}

/**
 * After every concurrent test: in the database itself, each counter equals the sum of the
 * reservations in its state, nothing is negative, and sold + reserved + pending never
 * exceeds available_stock - availability_margin. Through the API too (reads settle expiry).
 */
export async function expectInvariant(who: Who, db: Knex, ticketGuid: string): Promise<{ sold: number; reserved: number; pending: number }> {
  const ticket = (await db('tickets').where('guid', ticketGuid).first()) as Record<string, unknown>;
  const sums = (await db('reservations').where('ticket_id', ticketGuid).groupBy('state').select('state').sum({ total: 'amount', cancelled: 'cancelled_amount' })) as Array<{
    state: string;
    total: unknown;
    cancelled: unknown;
  }>;
  const sum = (state: string) => Number(sums.find((s) => s.state === state)?.total ?? 0);
  // Units cancelled out of confirmed sales (a cancelled sale holds none: all its units are).
  const cancelledOfSold = Number(sums.find((s) => s.state === 'confirmed')?.cancelled ?? 0);
  const counters = { sold: Number(ticket.sold_count), reserved: Number(ticket.reserved_count), pending: Number(ticket.pending_count) };
  expect(counters).toEqual({ sold: sum('confirmed') - cancelledOfSold, reserved: sum('reserved'), pending: sum('pending') });
  for (const value of [...Object.values(counters), Number(ticket.scanned_count), Number(ticket.available_stock)]) expect(value).toBeGreaterThanOrEqual(0);
  expect(Number(ticket.scanned_count)).toBeLessThanOrEqual(counters.sold);
  expect(counters.sold + counters.reserved + counters.pending).toBeLessThanOrEqual(Number(ticket.available_stock) - Number(ticket.availability_margin));
  await expectLiveBarcodes(db, ticketGuid, Number(ticket.scanned_count));
  await expectWholeOrders(db, ticketGuid);

  // A reservation may expire between two reads: compare a list with a ticket read that did not change around it.
  const countersOf = (t: any) => ({ sold: t.sold_count, reserved: t.reserved_count, pending: t.pending_count });
  for (let attempt = 1; ; attempt++) {
    const before = countersOf(await readTicket(who, ticketGuid));
    const listed = await listReservations(who, ticketGuid);
    const after = countersOf(await readTicket(who, ticketGuid));
    if (JSON.stringify(before) !== JSON.stringify(after) && attempt < ATTEMPTS) continue;
    const listedSum = (state: string) => listed.filter((r) => r.state === state).reduce((total, r) => total + (r.amount as number), 0);
    // A reservation shows no count of its cancelled units (its object is exactly PRODUCT.md 9's): those come from the database.
    expect(after).toEqual({ sold: listedSum('confirmed') - cancelledOfSold, reserved: listedSum('reserved'), pending: listedSum('pending') });
    return counters;
  }
}

/**
 * The barcodes agree with the counters (PRODUCT.md 14): every sold line with barcodes holds
 * exactly its units not cancelled as barcodes not cancelled, no barcode is both scanned and
 * cancelled, and scanned_count is the ticket's barcodes scanned.
 */
export async function expectLiveBarcodes(db: Knex, ticketGuid: string, scannedCount: number): Promise<void> {
  const lines = (await db('reservations').where('ticket_id', ticketGuid).whereIn('state', ['confirmed', 'cancelled']).select('guid', 'amount', 'cancelled_amount')) as Array<Record<string, unknown>>;
  const barcodes = (await db('barcodes').where('ticket_id', ticketGuid).select('reservation_id', 'scanned_at', 'cancelled_at')) as Array<Record<string, unknown>>;
  const live = new Map<string, number>();
  const issued = new Map<string, number>();
  for (const barcode of barcodes) {
    const line = barcode.reservation_id as string;
    issued.set(line, (issued.get(line) ?? 0) + 1);
    if (barcode.cancelled_at == null) live.set(line, (live.get(line) ?? 0) + 1);
    expect(barcode.scanned_at != null && barcode.cancelled_at != null, `a barcode of line ${line} scanned and cancelled`).toBe(false);
  }
  for (const line of lines) {
    const guid = line.guid as string;
    // A line of barcode_type none has no barcodes: its units are counted by cancelled_amount alone.
    if (!issued.has(guid)) continue;
    expect(live.get(guid) ?? 0, `the live barcodes of line ${guid}`).toBe(Number(line.amount) - Number(line.cancelled_amount));
  }
  expect(barcodes.filter((barcode) => barcode.scanned_at != null)).toHaveLength(scannedCount);
}

/**
 * No order holds part of its lines (PRODUCT.md 12): every order with a line of this ticket has
 * all its lines in one state (order lines are reservations with an order_id).
 */
export async function expectWholeOrders(db: Knex, ticketGuid: string): Promise<void> {
  const orders = db('reservations').where('ticket_id', ticketGuid).whereNotNull('order_id').distinct('order_id');
  const rows = (await db('reservations').whereIn('order_id', orders).select('order_id', 'state')) as Array<{ order_id: string; state: string }>;
  const states = new Map<string, Set<string>>();
  for (const row of rows) states.set(row.order_id, (states.get(row.order_id) ?? new Set()).add(row.state));
  for (const [order, set] of states) expect([...set], `the lines of order ${order}`).toHaveLength(1);
}

export interface StockSuite {
  stack: TestStack;
  who: Who;
  /** The stack's ticket database, for the invariant. */
  db: Knex;
  stop(): Promise<void>;
}

/** A stack with one seller; the sweeper is kept out of the way, so expiry must be exact without it. `env`: more stack settings. */
export async function startStockSuite(env: Record<string, string> = {}): Promise<StockSuite> {
  const stack = await startTestStack({ STOCK_SWEEP_INTERVAL_MS: '3600000', ...env });
  const account = await signUpAndLogin(stack);
  const db = ticketDatabase(stack);
  return {
    stack,
    who: { stack, token: account.accessToken },
    db,
    async stop() {
      await db.destroy();
      await stack.stop();
    },
  };
}

export interface ReservationSuite extends StockSuite {
  /** ReservationService on the suite's stack. */
  client: ReservationServiceClient;
}

/** A stock suite started with a gRPC client of its stack (`connect`); `stop` closes both. `env`: more stack settings. */
export async function startStockSuiteWithClient<C extends { close(): void }>(connect: (stack: TestStack) => C, env: Record<string, string> = {}): Promise<StockSuite & { client: C }> {
  const suite = await startStockSuite(env);
  const client = connect(suite.stack);
  return {
    ...suite,
    client,
    async stop() {
      client.close();
      await suite.stop();
    },
  };
}

/** A stock suite with a ReservationService client; `stop` closes both. `env`: more stack settings. */
export function startReservationSuite(env: Record<string, string> = {}): Promise<ReservationSuite> {
  return startStockSuiteWithClient(grpcClient, env);
}

/** The reservation suite of one test file, with the stack settings `env` besides (suiteOfFile: read its fields inside a test). */
export function reservationSuiteOfFile(env: Record<string, string> = {}): ReservationSuite {
  return suiteOfFile(() => startReservationSuite(env));
}

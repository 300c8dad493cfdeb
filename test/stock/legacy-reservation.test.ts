/**
 * A reservation sold before the 1,000-unit limit (issue 18 item 1): one that holds 70,000
 * barcodes of 64 characters (4.6 MB as a message, over gRPC's 4 MiB; before the fix its read
 * and its ticket's list answered 500 for good). Put in the database directly, it stays
 * readable over REST and gRPC: the reservation carries its first 1,000 barcodes, all of them
 * come page by page, and a list page stays bounded by the barcodes it carries.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReservationState, type ReservationServiceClient } from '../../lib/gen/ticketing/v1/reservation.js';
import { toDbTime } from '../../lib/db.js';
import { request } from '../support/http.js';
import type { TestStack } from '../support/stack.js';
import { expectInvariant, grpcCall, grpcClient, meta, newTicket, scanRest, startStockSuite, type StockSuite } from '../support/stock.js';
import { h, type Who } from '../support/api.js';

const BARCODES = 70_000;
const code = (i: number) => `L${String(i).padStart(63, '0')}`;

let suite: StockSuite;
let stack: TestStack;
let who: Who;
let db: Knex;
let client: ReservationServiceClient;
let ticket: { guid: string; eventGuid: string };
let legacyGuid: string;

/** A confirmed reservation row of `amount` and its barcodes, written as an older version could have. */
async function insertConfirmed(ticketGuid: string, amount: number, barcodes: number, codeOf: (i: number) => string): Promise<string> {
  const row = (await db('tickets').where('guid', ticketGuid).first()) as Record<string, unknown>;
  const guid = randomUUID();
  const now = toDbTime(new Date());
  await db.transaction(async (trx) => {
    await trx('reservations').insert({
      guid,
      company_id: row.company_id,
      event_id: row.event_id,
      ticket_id: ticketGuid,
      amount,
      state: 'confirmed',
      expires_at: null,
      created_at: now,
      updated_at: now,
    });
    for (let i = 0; i < barcodes; i += 400) {
      // The embedded stack shares this event loop: let its timers run (an HTTP keep-alive
      // socket must be closed by both ends' timers in order, or the next request meets a reset).
      await new Promise((resolve) => setImmediate(resolve));
      const rows = Array.from({ length: Math.min(400, barcodes - i) }, (_, j) => ({
        company_id: row.company_id,
        event_id: row.event_id,
        ticket_id: ticketGuid,
        reservation_id: guid,
        barcode: codeOf(i + j),
        scanned_at: null,
        created_at: now,
      }));
      await trx('barcodes').insert(rows);
    }
    await trx('tickets')
      .where('guid', ticketGuid)
      .update({ sold_count: trx.raw('sold_count + ?', [amount]), available_stock: trx.raw('available_stock + ?', [amount]) });
  });
  return guid;
}

beforeAll(async () => {
  suite = await startStockSuite();
  ({ stack, who, db } = suite);
  client = grpcClient(stack);
  ticket = await newTicket(who, { available_stock: 10 });
  legacyGuid = await insertConfirmed(ticket.guid, BARCODES, BARCODES, code);
}, 180_000);

afterAll(async () => {
  client?.close();
  await suite?.stop();
});

const firstCodes = Array.from({ length: 1000 }, (_, i) => code(i));

describe('a reservation of 70,000 barcodes sold before the limit', { timeout: 120_000 }, () => {
  it('REST: GET /reservation/:guid is 200 with its first 1,000 barcodes', async () => {
    const res = await request(`${stack.baseUrl}/reservation/${legacyGuid}`, { headers: h(who) });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.body).toMatchObject({ guid: legacyGuid, amount: BARCODES, state: 'confirmed' });
    expect(res.body.barcodes).toEqual(firstCodes);
  });

  it('REST: the ticket\'s reservation list is 200, whole and paged', async () => {
    const whole = await request(`${stack.baseUrl}/ticket/${ticket.guid}/reservations`, { headers: h(who) });
    expect(whole.status, whole.text.slice(0, 300)).toBe(200);
    const legacy = (whole.body as any[]).find((r) => r.guid === legacyGuid);
    expect(legacy.barcodes).toEqual(firstCodes);
    const paged = await request(`${stack.baseUrl}/ticket/${ticket.guid}/reservations?limit=1000&state=confirmed`, { headers: h(who) });
    expect(paged.status, paged.text.slice(0, 300)).toBe(200);
    expect((paged.body as any[]).map((r) => r.guid)).toContain(legacyGuid);
  });

  it('REST: GET /reservation/:guid/barcodes gives every barcode in issue order, streamed whole or page by page', async () => {
    const whole = await request(`${stack.baseUrl}/reservation/${legacyGuid}/barcodes`, { headers: h(who) });
    expect(whole.status).toBe(200);
    expect(whole.body).toHaveLength(BARCODES);
    expect((whole.body as string[]).every((c, i) => c === code(i))).toBe(true);
    const first = await request(`${stack.baseUrl}/reservation/${legacyGuid}/barcodes?limit=1000`, { headers: h(who) });
    expect(first.body).toEqual(firstCodes);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    expect(next).toBeDefined();
    const second = await request(new URL(next!, stack.baseUrl).toString(), { headers: h(who) });
    expect(second.body).toEqual(Array.from({ length: 1000 }, (_, i) => code(1000 + i)));
  });

  it('gRPC: GetReservation, ListReservations and ListReservationBarcodes answer', async () => {
    const md = meta(who.token);
    const read = await grpcCall(client.getReservation.bind(client), { guid: legacyGuid }, md);
    expect(read).toMatchObject({ guid: legacyGuid, amount: BARCODES, state: ReservationState.RESERVATION_STATE_CONFIRMED });
    expect(read.barcodes).toEqual(firstCodes);
    const list = await grpcCall(client.listReservations.bind(client), { ticket_id: ticket.guid, page_size: 1000, page_token: '' }, md);
    expect(list.reservations.find((r) => r.guid === legacyGuid)?.barcodes).toEqual(firstCodes);
    let token = '';
    let total = 0;
    do {
      const page = await grpcCall(client.listReservationBarcodes.bind(client), { guid: legacyGuid, page_size: 1000, page_token: token }, md);
      expect(page.barcodes[0]).toBe(code(total));
      total += page.barcodes.length;
      token = page.next_page_token;
    } while (token);
    expect(total).toBe(BARCODES);
  });

  it('a barcode past the first 1,000 still scans', async () => {
    const res = await scanRest(who, ticket.eventGuid, code(BARCODES - 1));
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ barcode: code(BARCODES - 1), reservation_id: legacyGuid });
    await expectInvariant(who, db, ticket.guid);
  });
});

describe('a list page is bounded by the barcodes it carries', () => {
  it('12 confirmed reservations of 1,000: a page of limit 20 ends after 10 (10,000 barcodes), the next page has the rest', async () => {
    const own = await newTicket(who, { available_stock: 1 });
    const guids: string[] = [];
    for (let i = 0; i < 12; i++) guids.push(await insertConfirmed(own.guid, 1000, 1000, (j) => `P${i}-${j}`));
    const first = await request(`${stack.baseUrl}/ticket/${own.guid}/reservations?limit=20`, { headers: h(who) });
    expect(first.status, first.text.slice(0, 300)).toBe(200);
    expect((first.body as any[]).map((r) => r.guid)).toEqual(guids.slice(0, 10));
    for (const r of first.body as any[]) expect(r.barcodes).toHaveLength(1000);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    const second = await request(new URL(next!, stack.baseUrl).toString(), { headers: h(who) });
    expect((second.body as any[]).map((r) => r.guid)).toEqual(guids.slice(10));
    const whole = await request(`${stack.baseUrl}/ticket/${own.guid}/reservations`, { headers: h(who) });
    expect((whole.body as any[]).map((r) => r.guid)).toEqual(guids);
    await expectInvariant(who, db, own.guid);
  }, 120_000);
});

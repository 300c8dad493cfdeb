/**
 * Larger lists: more tickets than the default gRPC page (100) and than typical internal
 * batch sizes (100, 250).
 * The streamed whole lists (REST without limit, GET /ticket, StreamTickets) and the paged
 * ones must all give every ticket exactly once, in the same (creation) order.
 */
import { credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ticket, TicketServiceClient, type ListTicketsResponse, type StreamTicketBatchesResponse } from '../../lib/gen/ticketing/v1/ticket.js';
import type { TestStack } from '../support/stack.js';
import { createEvent, createTicket, h, listTickets, pool, request, startSuite, walkPages, type Who } from './helpers.js';

const COUNT = 263;

let stack: TestStack;
let who: Who;
let client: TicketServiceClient;
let eventGuid: string;
let created: Set<string>;
/** The order the whole REST list gives; every other list must agree with it. */
let order: string[];

function md(): Metadata {
  const m = new Metadata();
  m.set('authorization', `Bearer ${who.token}`);
  return m;
}

beforeAll(async () => {
  ({ stack, who, eventGuid } = await startSuite({ event: { name: 'Big list' } }));
  client = new TicketServiceClient(stack.ticketGrpcAddress, credentials.createInsecure());
  // a ticket of another event first and last, so the per-event list has to filter
  const other = (await createEvent(who, { name: 'Neighbour' })).guid;
  await createTicket(who, other, { name: 'neighbour first', vat_percentage: 21 });
  const guids = await pool(
    Array.from(
      { length: COUNT },
      (_, i) => () =>
        new Promise<string>((resolve, reject) =>
          client.createTicket({ event_id: eventGuid, ticket: Ticket.fromPartial({ name: `bulk ${i}`, vat_percentage: '21' }), request_id: '' }, md(), { deadline: Date.now() + 30_000 }, (err, t) =>
            err ? reject(err) : resolve(t.guid),
          ),
        ),
    ),
    16,
  );
  await createTicket(who, other, { name: 'neighbour last', vat_percentage: 21 });
  created = new Set(guids);
  expect(created.size).toBe(COUNT);
  order = guidsOf((await listTickets(who, eventGuid)).body);
}, 120_000);

afterAll(async () => {
  client?.close();
  await stack?.stop();
});

const guidsOf = (items: unknown) => (items as Array<{ guid: string }>).map((t) => t.guid);

describe(`a list of ${COUNT} tickets`, () => {
  it('GET /event/:guid/ticket without limit: every ticket once, full objects', async () => {
    const res = await request(`${stack.baseUrl}/event/${eventGuid}/ticket`, { headers: h(who) });
    expect(res.status).toBe(200);
    order = guidsOf(res.body);
    expect(order).toHaveLength(COUNT);
    expect(new Set(order)).toEqual(created);
    for (const t of res.body as Array<Record<string, unknown>>) {
      expect(Object.keys(t)).toHaveLength(34);
      expect(t.event_id).toBe(eventGuid);
    }
  });

  it('walking limit=1000, 100 and 50 gives the same order', async () => {
    for (const [limit, pages] of [
      [1000, 1],
      [100, 3],
      [50, 6],
    ] as const) {
      const walk = await walkPages(`${stack.baseUrl}/event/${eventGuid}/ticket?limit=${limit}`, h(who), stack.baseUrl);
      expect(walk.pages, `limit=${limit}`).toBe(pages);
      expect(guidsOf(walk.items)).toEqual(order);
    }
  });

  it('GET /ticket (deprecated) streams them all, once each, in the same order', async () => {
    const res = await request(`${stack.baseUrl}/ticket`, { headers: h(who) });
    expect(res.status).toBe(200);
    const all = guidsOf(res.body);
    expect(all).toHaveLength(COUNT + 2);
    expect(all.filter((g) => created.has(g))).toEqual(order);
  });

  it('gRPC StreamTickets, StreamTicketBatches and ListTickets (default page of 100) agree', async () => {
    const streamed = await new Promise<string[]>((resolve, reject) => {
      const out: string[] = [];
      const s = client.streamTickets({ event_id: eventGuid }, md(), { deadline: Date.now() + 30_000 });
      s.on('data', (t: Ticket) => out.push(t.guid));
      s.on('error', reject);
      s.on('end', () => resolve(out));
    });
    expect(streamed).toEqual(order);
    const batches = await new Promise<string[][]>((resolve, reject) => {
      const out: string[][] = [];
      const s = client.streamTicketBatches({ event_id: eventGuid }, md(), { deadline: Date.now() + 30_000 });
      s.on('data', (batch: StreamTicketBatchesResponse) => out.push(batch.tickets.map((t) => t.guid)));
      s.on('error', reject);
      s.on('end', () => resolve(out));
    });
    expect(batches.flat()).toEqual(order);
    // Several tickets a message, never an empty one.
    expect(batches.length).toBeLessThan(order.length / 2);
    for (const batch of batches) expect(batch.length).toBeGreaterThan(0);
    const paged: string[] = [];
    let token = '';
    let pages = 0;
    do {
      const page = await new Promise<ListTicketsResponse>((resolve, reject) =>
        client.listTickets({ event_id: eventGuid, page_size: 0, page_token: token }, md(), { deadline: Date.now() + 30_000 }, (err: ServiceError | null, r) =>
          err ? reject(err) : resolve(r),
        ),
      );
      if (pages === 0) expect(page.tickets).toHaveLength(100);
      paged.push(...page.tickets.map((t) => t.guid));
      token = page.next_page_token;
      pages += 1;
    } while (token && pages < 100);
    expect(pages).toBe(Math.ceil(COUNT / 100));
    expect(paged).toEqual(order);
  });
});

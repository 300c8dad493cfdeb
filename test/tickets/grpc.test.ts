/**
 * The ticketing.v1 gRPC services called directly (PRODUCT.md 8): every EventService and
 * TicketService method with `authorization: Bearer <token>` metadata, UNAUTHENTICATED
 * without a token, INVALID_ARGUMENT with google.rpc.BadRequest field violations in the
 * grpc-status-details-bin trailer, deadlines.
 */
import { credentials, Metadata, status } from '@grpc/grpc-js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Event, EventServiceClient, EventStatus } from '../../lib/gen/ticketing/v1/event.js';
import { BarcodeType, Ticket, TicketServiceClient, TicketStatus, TicketStatusOverrule, type StreamTicketBatchesResponse } from '../../lib/gen/ticketing/v1/ticket.js';
import type { UnaryMethod } from '../../lib/grpc/client.js';
import { readErrorDetails } from '../../lib/grpc/errors.js';
import { callerMetadata, grpcCall, grpcFailure } from '../support/grpc.js';
import type { TestStack } from '../support/stack.js';
import { bearer, GUID, NIL_LIKE_GUID, request, signUpAndLogin, startSuite, type Account } from './helpers.js';

let stack: TestStack;
let account: Account;
let stranger: Account;
let events: EventServiceClient;
let tickets: TicketServiceClient;

beforeAll(async () => {
  ({ stack, account: stranger } = await startSuite());
  events = new EventServiceClient(stack.ticketGrpcAddress, credentials.createInsecure());
  tickets = new TicketServiceClient(stack.ticketGrpcAddress, credentials.createInsecure());
});

afterAll(async () => {
  events?.close();
  tickets?.close();
  await stack?.stop();
});

/** A fresh account (own company) for every test: the lists a test reads hold only what it made. */
beforeEach(async () => {
  account = await signUpAndLogin(stack);
});

const meta = (token: string | null = account.accessToken, companies: string[] = []): Metadata => callerMetadata(token, companies);
const call = <Req, Res>(method: UnaryMethod<Req, Res>, req: Req, md: Metadata = meta(), deadlineMs?: number): Promise<Res> => grpcCall(method, req, md, deadlineMs);
const failure = grpcFailure;

function stream(eventId: string, md: Metadata = meta()): Promise<Ticket[]> {
  return new Promise((resolve, reject) => {
    const out: Ticket[] = [];
    const s = tickets.streamTickets({ event_id: eventId }, md, { deadline: Date.now() + 10_000 });
    s.on('data', (t: Ticket) => out.push(t));
    s.on('error', reject);
    s.on('end', () => resolve(out));
  });
}

/** StreamTicketBatches: the batches as they came. */
function streamBatches(eventId: string, md: Metadata = meta()): Promise<Ticket[][]> {
  return new Promise((resolve, reject) => {
    const out: Ticket[][] = [];
    const s = tickets.streamTicketBatches({ event_id: eventId }, md, { deadline: Date.now() + 10_000 });
    s.on('data', (batch: StreamTicketBatchesResponse) => out.push(batch.tickets));
    s.on('error', reject);
    s.on('end', () => resolve(out));
  });
}

const createEvent = (name: string, md = meta()) => call(events.createEvent.bind(events), { event: Event.fromPartial({ name }), request_id: '' }, md);
const createTicket = (eventId: string, fields: Partial<Ticket> = {}, requestId = '', md = meta()) =>
  call(tickets.createTicket.bind(tickets), { event_id: eventId, ticket: Ticket.fromPartial({ name: 'gRPC ticket', vat_percentage: '21', ...fields }), request_id: requestId }, md);

const fieldMatches = (path: string, field: string) => path === field || path.endsWith(`.${field}`);

describe('EventService', () => {
  it('CreateEvent, GetEvent, ListEvents (paged), UpdateEvent with update_mask, DeleteEvent', async () => {
    const start = new Date('2031-09-01T18:00:00Z');
    const created = await call(events.createEvent.bind(events), { event: Event.fromPartial({ name: 'gRPC event', description: 'desc', start }), request_id: '' });
    expect(created.guid).toMatch(GUID);
    expect(created.company_id).toBe(account.companyId);
    expect(created.name).toBe('gRPC event');
    expect(created.description).toBe('desc');
    expect(created.start?.toISOString()).toBe(start.toISOString());
    expect(created.status).toBe(EventStatus.EVENT_STATUS_NORMAL);
    expect(created.etag).not.toBe('');
    expect(created.created_at).toBeInstanceOf(Date);

    const got = await call(events.getEvent.bind(events), { guid: created.guid });
    expect(got.guid).toBe(created.guid);
    expect(got.name).toBe('gRPC event');

    const more = [await createEvent('gRPC event 2'), await createEvent('gRPC event 3')];
    const seen: string[] = [];
    let token = '';
    let pages = 0;
    do {
      const page = await call(events.listEvents.bind(events), { page_size: 2, page_token: token });
      expect(page.events.length).toBeLessThanOrEqual(2);
      seen.push(...page.events.map((e) => e.guid));
      token = page.next_page_token;
      pages += 1;
    } while (token && pages < 50);
    expect(seen).toEqual([created.guid, ...more.map((e) => e.guid)]);
    expect(pages).toBe(2);

    const renamed = await call(events.updateEvent.bind(events), { guid: created.guid, event: Event.fromPartial({ guid: created.guid, name: 'Renamed over gRPC' }), update_mask: ['name'], etag: '' });
    expect(renamed.name).toBe('Renamed over gRPC');
    expect(renamed.description).toBe('desc');
    expect(renamed.etag).not.toBe(created.etag);
    expect(renamed.updated_at!.getTime()).toBeGreaterThan(created.updated_at!.getTime());
    // a field in the mask but unset becomes null
    const cleared = await call(events.updateEvent.bind(events), { guid: created.guid, event: Event.fromPartial({ guid: created.guid }), update_mask: ['description'], etag: '' });
    expect(cleared.description).toBeUndefined();
    expect(cleared.name).toBe('Renamed over gRPC');
    const rest = await request(`${stack.baseUrl}/event/${created.guid}`, { headers: bearer(account.accessToken) });
    expect(rest.body).toMatchObject({ name: 'Renamed over gRPC', description: null, start: '2031-09-01T18:00:00+00:00' });

    const stale = await failure(call(events.updateEvent.bind(events), { guid: created.guid, event: Event.fromPartial({ guid: created.guid, name: 'x' }), update_mask: ['name'], etag: created.etag }));
    expect(stale.code).toBe(status.FAILED_PRECONDITION);

    await call(events.deleteEvent.bind(events), { guid: created.guid, etag: '' });
    expect((await failure(call(events.getEvent.bind(events), { guid: created.guid }))).code).toBe(status.NOT_FOUND);
  });

  it('CreateEvent with a token of two companies needs a company; with company metadata it works', async () => {
    const second = await request(`${stack.authUrl}/companies`, { method: 'POST', headers: bearer(stranger.accessToken), json: { name: 'Second' } });
    expect(second.status).toBe(201);
    const token = await request(`${stack.authUrl}/tokens`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'password', username: stranger.email, password: stranger.password, company_id: '*' }),
    });
    const all = token.body.access_token as string;
    const err = await failure(createEvent('Ambiguous', meta(all)));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    const ok = await createEvent('Named', meta(all, [second.body.guid as string]));
    expect(ok.company_id).toBe(second.body.guid);
  });

  it('ListEvents: bad page_size or page_token is INVALID_ARGUMENT', async () => {
    expect((await failure(call(events.listEvents.bind(events), { page_size: 1001, page_token: '' }))).code).toBe(status.INVALID_ARGUMENT);
    expect((await failure(call(events.listEvents.bind(events), { page_size: -1, page_token: '' }))).code).toBe(status.INVALID_ARGUMENT);
    expect((await failure(call(events.listEvents.bind(events), { page_size: 2, page_token: 'forged' }))).code).toBe(status.INVALID_ARGUMENT);
  });
});

describe('TicketService', () => {
  it('CreateTicket, GetTicket, UpdateTicket with update_mask, ListTickets (paged), StreamTickets, DeleteTicket', async () => {
    const event = await createEvent('Ticket host');
    const created = await createTicket(event.guid, { name: 'Over gRPC', vat_percentage: '21' });
    expect(created.guid).toMatch(GUID);
    expect(created.event_id).toBe(event.guid);
    expect(created.company_id).toBe(account.companyId);
    expect(created.name).toBe('Over gRPC');
    expect(Number(created.vat_percentage)).toBe(21);
    expect(created.increment).toBe(1);
    expect(created.max_orderable_amount_per_order).toBe(20);
    expect(created.swappable).toBe(true);
    expect(created.etag).not.toBe('');

    const got = await call(tickets.getTicket.bind(tickets), { guid: created.guid });
    expect(got.guid).toBe(created.guid);
    expect(got.status).toBe(TicketStatus.TICKET_STATUS_SOLD_OUT);
    expect(got.status_overrule).toBe(TicketStatusOverrule.TICKET_STATUS_OVERRULE_AUTO);
    expect(got.barcode_type).toBe(BarcodeType.BARCODE_TYPE_GENERATE);
    expect(got.available_stock).toBe(0);
    expect(got.combines_products).toBe(true);
    expect(got.deleted_at).toBeUndefined();

    const updated = await call(tickets.updateTicket.bind(tickets), {
      guid: created.guid,
      ticket: Ticket.fromPartial({ guid: created.guid, available_stock: 10, description: 'via mask', min_price: '9.99', name: 'NOT IN MASK' }),
      update_mask: ['available_stock', 'description', 'min_price'],
      etag: '',
    });
    expect(updated.available_stock).toBe(10);
    expect(updated.description).toBe('via mask');
    expect(Number(updated.min_price)).toBe(9.99);
    expect(updated.name).toBe('Over gRPC');
    expect(updated.status).toBe(TicketStatus.TICKET_STATUS_AVAILABLE);
    expect(updated.etag).not.toBe(got.etag);
    const rest = await request(`${stack.baseUrl}/ticket/${created.guid}`, { headers: bearer(account.accessToken) });
    expect(rest.body).toMatchObject({ available_stock: 10, description: 'via mask', min_price: 9.99, vat_percentage: 21, name: 'Over gRPC', status: 'available' });

    const stale = await failure(
      call(tickets.updateTicket.bind(tickets), { guid: created.guid, ticket: Ticket.fromPartial({ guid: created.guid, description: 'stale' }), update_mask: ['description'], etag: got.etag }),
    );
    expect(stale.code).toBe(status.FAILED_PRECONDITION);
    const withEtag = await call(tickets.updateTicket.bind(tickets), {
      guid: created.guid,
      ticket: Ticket.fromPartial({ guid: created.guid, description: 'fresh' }),
      update_mask: ['description'],
      etag: updated.etag,
    });
    expect(withEtag.description).toBe('fresh');

    const all = [created.guid];
    for (let i = 0; i < 4; i++) all.push((await createTicket(event.guid, { name: `more ${i}` })).guid);
    const seen: string[] = [];
    let token = '';
    let pages = 0;
    do {
      const page = await call(tickets.listTickets.bind(tickets), { event_id: event.guid, page_size: 2, page_token: token });
      expect(page.tickets.length).toBeLessThanOrEqual(2);
      seen.push(...page.tickets.map((t) => t.guid));
      token = page.next_page_token;
      pages += 1;
    } while (token && pages < 50);
    expect(seen).toEqual(all);
    expect(pages).toBe(3);
    const whole = await call(tickets.listTickets.bind(tickets), { event_id: event.guid, page_size: 0, page_token: '' });
    expect(whole.tickets.map((t) => t.guid)).toEqual(all);
    expect(whole.next_page_token).toBe('');

    expect((await stream(event.guid)).map((t) => t.guid)).toEqual(all);
    const everywhere = (await stream('')).map((t) => t.guid);
    for (const guid of all) expect(everywhere).toContain(guid);
    // StreamTicketBatches: the same messages as StreamTickets, grouped.
    expect((await streamBatches(event.guid)).flat()).toEqual(await stream(event.guid));
    expect((await streamBatches('')).flat()).toEqual(await stream(''));

    await call(tickets.deleteTicket.bind(tickets), { guid: created.guid, etag: '' });
    expect((await failure(call(tickets.getTicket.bind(tickets), { guid: created.guid }))).code).toBe(status.NOT_FOUND);
    expect((await stream(event.guid)).map((t) => t.guid)).toEqual(all.slice(1));
    const afterDelete = await call(tickets.listTickets.bind(tickets), { event_id: event.guid, page_size: 100, page_token: '' });
    expect(afterDelete.tickets.map((t) => t.guid)).toEqual(all.slice(1));
    expect((await request(`${stack.baseUrl}/ticket/${created.guid}`, { headers: bearer(account.accessToken) })).status).toBe(404);
  });

  it('decimals travel as exact strings', async () => {
    const event = await createEvent('Decimals');
    const t = await createTicket(event.guid, { vat_percentage: '9.99', percentage_service_costs_in_ticket: '0.01', min_price: '9999999999.99' });
    const got = await call(tickets.getTicket.bind(tickets), { guid: t.guid });
    expect(Number(got.vat_percentage)).toBe(9.99);
    expect(Number(got.percentage_service_costs_in_ticket)).toBe(0.01);
    expect(got.min_price).toMatch(/^9999999999\.990?$/);
  });

  it('request_id makes CreateTicket idempotent', async () => {
    const event = await createEvent('Idempotent gRPC');
    const id = `req-${Date.now()}`;
    const a = await createTicket(event.guid, { name: 'Once' }, id);
    const b = await createTicket(event.guid, { name: 'Once' }, id);
    expect(b.guid).toBe(a.guid);
    expect((await stream(event.guid)).length).toBe(1);
  });

  it("another company's ticket or event is NOT_FOUND", async () => {
    const event = await createEvent('Private');
    const t = await createTicket(event.guid);
    const theirs = meta(stranger.accessToken);
    expect((await failure(call(tickets.getTicket.bind(tickets), { guid: t.guid }, theirs))).code).toBe(status.NOT_FOUND);
    expect((await failure(call(events.getEvent.bind(events), { guid: event.guid }, theirs))).code).toBe(status.NOT_FOUND);
    expect((await failure(createTicket(event.guid, {}, '', theirs))).code).toBe(status.NOT_FOUND);
    expect((await failure(call(tickets.listTickets.bind(tickets), { event_id: event.guid, page_size: 10, page_token: '' }, theirs))).code).toBe(status.NOT_FOUND);
    const upd = await failure(
      call(tickets.updateTicket.bind(tickets), { guid: t.guid, ticket: Ticket.fromPartial({ guid: t.guid, name: 'hijack' }), update_mask: ['name'], etag: '' }, theirs),
    );
    expect(upd.code).toBe(status.NOT_FOUND);
    expect((await failure(call(tickets.deleteTicket.bind(tickets), { guid: t.guid, etag: '' }, theirs))).code).toBe(status.NOT_FOUND);
    expect((await failure(call(events.deleteEvent.bind(events), { guid: event.guid, etag: '' }, theirs))).code).toBe(status.NOT_FOUND);
    const theirStream = (await stream('', theirs)).map((x) => x.guid);
    expect(theirStream).not.toContain(t.guid);
    expect((await streamBatches('', theirs)).flat().map((x) => x.guid)).not.toContain(t.guid);
    expect((await failure(streamBatches(event.guid, theirs))).code).toBe(status.NOT_FOUND);
    expect((await call(tickets.getTicket.bind(tickets), { guid: t.guid })).name).toBe('gRPC ticket');
  });

  it('company metadata: foreign company UNAUTHENTICATED, malformed INVALID_ARGUMENT', async () => {
    const err = await failure(call(events.listEvents.bind(events), { page_size: 0, page_token: '' }, meta(account.accessToken, [stranger.companyId])));
    expect(err.code).toBe(status.UNAUTHENTICATED);
    const bad = await failure(call(events.listEvents.bind(events), { page_size: 0, page_token: '' }, meta(account.accessToken, ['not-a-guid'])));
    expect(bad.code).toBe(status.INVALID_ARGUMENT);
  });
});

describe('errors and deadlines', () => {
  it('every method without a token is UNAUTHENTICATED; a bad token too', async () => {
    const event = await createEvent('Auth probe');
    const t = await createTicket(event.guid);
    for (const md of [meta(null), meta('not-a-token')]) {
      const calls: Array<() => Promise<unknown>> = [
        // order: GetEvent, ListEvents, CreateEvent, UpdateEvent, DeleteEvent, GetTicket, ListTickets, StreamTickets, StreamTicketBatches, CreateTicket, UpdateTicket, DeleteTicket
        () => call(events.getEvent.bind(events), { guid: event.guid }, md),
        () => call(events.listEvents.bind(events), { page_size: 0, page_token: '' }, md),
        () => call(events.createEvent.bind(events), { event: Event.fromPartial({ name: 'x' }), request_id: '' }, md),
        () => call(events.updateEvent.bind(events), { guid: event.guid, event: Event.fromPartial({ guid: event.guid, name: 'x' }), update_mask: ['name'], etag: '' }, md),
        () => call(events.deleteEvent.bind(events), { guid: event.guid, etag: '' }, md),
        () => call(tickets.getTicket.bind(tickets), { guid: t.guid }, md),
        () => call(tickets.listTickets.bind(tickets), { event_id: event.guid, page_size: 0, page_token: '' }, md),
        () => stream(event.guid, md),
        () => streamBatches(event.guid, md),
        () => call(tickets.createTicket.bind(tickets), { event_id: event.guid, ticket: Ticket.fromPartial({ name: 'x', vat_percentage: '1' }), request_id: '' }, md),
        () => call(tickets.updateTicket.bind(tickets), { guid: t.guid, ticket: Ticket.fromPartial({ guid: t.guid, name: 'x' }), update_mask: ['name'], etag: '' }, md),
        () => call(tickets.deleteTicket.bind(tickets), { guid: t.guid, etag: '' }, md),
      ];
      const names = ['GetEvent', 'ListEvents', 'CreateEvent', 'UpdateEvent', 'DeleteEvent', 'GetTicket', 'ListTickets', 'StreamTickets', 'StreamTicketBatches', 'CreateTicket', 'UpdateTicket', 'DeleteTicket'];
      for (const [i, p] of calls.entries()) expect((await failure(p(), `${names[i]} with ${md.get('authorization')[0] ?? 'no token'}`)).code, names[i]).toBe(status.UNAUTHENTICATED);
    }
    expect((await call(tickets.getTicket.bind(tickets), { guid: t.guid })).name).toBe('gRPC ticket');
    expect((await call(events.getEvent.bind(events), { guid: event.guid })).name).toBe('Auth probe');
  });

  it('a validation failure is INVALID_ARGUMENT with field violations in grpc-status-details-bin', async () => {
    const event = await createEvent('Validation probe');
    const err = await failure(createTicket(event.guid, { name: '', vat_percentage: '101', increment: 0 }));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(err.metadata.get('grpc-status-details-bin').length).toBeGreaterThan(0);
    const violations = readErrorDetails(err).fieldViolations ?? [];
    const fields = violations.map((v) => v.field);
    for (const field of ['name', 'vat_percentage', 'increment']) expect(fields.some((f) => fieldMatches(f, field)), `${field} in ${fields.join(',')}`).toBe(true);
    for (const v of violations) expect(v.description).not.toBe('');

    const missing = await failure(call(tickets.createTicket.bind(tickets), { event_id: event.guid, ticket: Ticket.fromPartial({}), request_id: '' }));
    expect(missing.code).toBe(status.INVALID_ARGUMENT);
    const missingFields = (readErrorDetails(missing).fieldViolations ?? []).map((v) => v.field);
    expect(missingFields.some((f) => fieldMatches(f, 'name'))).toBe(true);
    expect(missingFields.some((f) => fieldMatches(f, 'vat_percentage'))).toBe(true);

    const t = await createTicket(event.guid);
    const upd = await failure(
      call(tickets.updateTicket.bind(tickets), {
        guid: t.guid,
        ticket: Ticket.fromPartial({ guid: t.guid, increment: 0, barcode_type: BarcodeType.BARCODE_TYPE_UNSPECIFIED }),
        update_mask: ['increment', 'barcode_type'],
        etag: '',
      }),
    );
    expect(upd.code).toBe(status.INVALID_ARGUMENT);
    const updFields = (readErrorDetails(upd).fieldViolations ?? []).map((v) => v.field);
    expect(updFields.some((f) => fieldMatches(f, 'increment'))).toBe(true);
    expect(updFields.some((f) => fieldMatches(f, 'barcode_type'))).toBe(true);

    const badMask = await failure(
      call(tickets.updateTicket.bind(tickets), { guid: t.guid, ticket: Ticket.fromPartial({ guid: t.guid }), update_mask: ['no_such_field'], etag: '' }),
    );
    expect(badMask.code).toBe(status.INVALID_ARGUMENT);
    const serverManaged = await failure(
      call(tickets.updateTicket.bind(tickets), { guid: t.guid, ticket: Ticket.fromPartial({ guid: t.guid, sold_count: 5 }), update_mask: ['sold_count'], etag: '' }),
    );
    expect(serverManaged.code).toBe(status.INVALID_ARGUMENT);
    expect((await call(tickets.getTicket.bind(tickets), { guid: t.guid })).sold_count).toBe(0);
  });

  it('unknown GUIDs are NOT_FOUND', async () => {
    expect((await failure(call(tickets.getTicket.bind(tickets), { guid: NIL_LIKE_GUID }))).code).toBe(status.NOT_FOUND);
    expect((await failure(call(tickets.getTicket.bind(tickets), { guid: 'nope' }))).code).toBe(status.NOT_FOUND);
    expect((await failure(createTicket(NIL_LIKE_GUID))).code).toBe(status.NOT_FOUND);
  });

  it('a call with a deadline: answered in time when it is generous, DEADLINE_EXCEEDED when it has passed', async () => {
    const event = await createEvent('Deadline');
    const t = await createTicket(event.guid);
    const inTime = await call(tickets.getTicket.bind(tickets), { guid: t.guid }, meta(), 5000);
    expect(inTime.guid).toBe(t.guid);
    const late = await failure(call(tickets.getTicket.bind(tickets), { guid: t.guid }, meta(), -1));
    expect(late.code).toBe(status.DEADLINE_EXCEEDED);
  });
});

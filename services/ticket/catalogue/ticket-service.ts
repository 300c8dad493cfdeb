import type { Knex } from '../../../lib/db.js';
import {
  Ticket,
  type CreateTicketRequest,
  type DeleteTicketRequest,
  type ListTicketsRequest,
  type ListTicketsResponse,
  type StreamTicketsRequest,
  type UpdateTicketRequest,
} from '../../../lib/gen/ticketing/v1/ticket.js';
import { defaultsOf } from '../../../lib/fields/kinds.js';
import { holdsStock, TICKET, TICKET_FIELDS } from '../../../lib/fields/ticket.js';
import { RpcError } from '../../../lib/grpc/errors.js';
import { stockConflict } from '../../../lib/stock-conflicts.js';
import { newGuid } from '../../../lib/ids.js';
import type { AuthenticatedCaller } from '../access/auth-check.js';
import { decodePageToken, encodePageToken, pageSize, ticketListKey } from '../common/paging.js';
import type { TicketRecord } from './ticket-fields.js';
import { checkChanges, checkNew, type ServerManagedValues } from './resource-checks.js';
import type { EventService } from './event-service.js';
import type { IdempotentCreation } from '../idempotency/idempotent-creation.js';
import { findInCompanies } from '../access/find-in-companies.js';
import { storedGuid } from '../access/request-guid.js';
import { conditionalVersion, retryWrite } from '../common/write-conflicts.js';
import { ticketEtag, ticketMessage, ticketMessageOfRow } from './messages.js';
import type { TicketStore } from '../store/ticket-store.js';
import { ticketChange } from './catalogue-changes.js';
import { priceViolations } from './price-rules.js';
import { recordChange } from '../store/outbox-store.js';

/** The server-managed values of a new ticket that are not set per ticket (the counts start at 0, deleted_at at null). */
const TICKET_SERVER_DEFAULTS = defaultsOf(TICKET_FIELDS, 'server-managed') as Omit<ServerManagedValues<typeof TICKET_FIELDS>, 'guid' | 'company_id' | 'event_id' | 'created_at'>;

/**
 * Rows per query of StreamTickets: memory stays constant however long the list (a few MB
 * per batch); 2,000 rather than 500 quarters the queries of a long list (docs/PERFORMANCE.md).
 */
const STREAM_BATCH = 2000;

/**
 * Tickets per StreamTicketBatches message. Per-message work in gRPC (framing, a socket write,
 * events on both sides) dominated a long list sent one ticket a message; 64 of the largest
 * tickets (10,000-character description) still stay under the 4 MB a client accepts by default.
 */
const TICKETS_PER_MESSAGE = 64;

/** The rules of TicketService, in the caller's effective company set. */
export class TicketService {
  constructor(
    private readonly tickets: TicketStore,
    private readonly events: EventService,
    private readonly creations: IdempotentCreation,
  ) {}

  private find(caller: AuthenticatedCaller, guid: string): Promise<TicketRecord> {
    return findInCompanies('Ticket', caller.companyIds, guid, (companyIds, id) => this.tickets.find(companyIds, id));
  }

  async get(caller: AuthenticatedCaller, guid: string): Promise<Ticket> {
    return ticketMessage(await this.find(caller, guid), new Date());
  }

  async list(caller: AuthenticatedCaller, request: ListTicketsRequest): Promise<ListTicketsResponse> {
    const event = await this.events.find(caller, request.event_id);
    const size = pageSize(request.page_size);
    const listKey = ticketListKey(event.guid);
    const after = decodePageToken(request.page_token, listKey);
    const rows = await this.tickets.list(caller.companyIds, event.guid, after, size + 1);
    const page = rows.slice(0, size);
    const now = new Date();
    return {
      tickets: page.map((row) => ticketMessageOfRow(row, now)),
      next_page_token: rows.length > size ? encodePageToken(listKey, Number(page[page.length - 1]!.id)) : '',
    };
  }

  /** Every live ticket of the event (or of the company set when `event_id` is empty) in creation order, a few at a time (never an empty batch). */
  async *streamBatches(caller: AuthenticatedCaller, request: StreamTicketsRequest): AsyncGenerator<Ticket[]> {
    const eventId = request.event_id === '' ? undefined : (await this.events.find(caller, request.event_id)).guid;
    let after = 0;
    for (;;) {
      const rows = await this.tickets.list(caller.companyIds, eventId, after, STREAM_BATCH);
      const now = new Date();
      for (let i = 0; i < rows.length; i += TICKETS_PER_MESSAGE) yield rows.slice(i, i + TICKETS_PER_MESSAGE).map((row) => ticketMessageOfRow(row, now));
      if (rows.length < STREAM_BATCH) return;
      after = Number(rows[rows.length - 1]!.id);
    }
  }

  async *stream(caller: AuthenticatedCaller, request: StreamTicketsRequest): AsyncGenerator<Ticket> {
    for await (const batch of this.streamBatches(caller, request)) yield* batch;
  }

  /** The event must be live in the company set; the ticket belongs to the event's company. */
  async create(caller: AuthenticatedCaller, request: CreateTicketRequest, validateOnly: boolean): Promise<Ticket> {
    const ticket = request.ticket ?? Ticket.fromPartial({});
    const prepare = async () => {
      const event = await this.events.find(caller, request.event_id);
      const now = new Date();
      const prospective = { ...TICKET_SERVER_DEFAULTS, guid: newGuid(), company_id: event.company_id, event_id: event.guid, created_at: now };
      const { values, violations } = checkNew(TICKET, ticket, prospective);
      violations.push(...priceViolations(values.min_price, event.currency));
      if (violations.length) throw RpcError.invalidArgument(violations);
      const record = { ...prospective, ...values, updated_at: now, version: 1 };
      const write = async (trx: Knex) => {
        await this.events.holdLive(trx, caller, event.guid);
        await this.tickets.insert(record, trx);
        await recordChange(trx, ticketChange('ticket.created', record, now));
      };
      return { result: ticketMessage(record, now), write };
    };
    if (validateOnly) return (await prepare()).result;
    return this.creations.run(
      {
        caller,
        scope: 'CreateTicket',
        requestId: request.request_id,
        request: [storedGuid(request.event_id) ?? request.event_id, Ticket.encode(ticket).finish()],
        codec: Ticket,
      },
      prepare,
    );
  }

  /**
   * One UPDATE of the masked fields. Cross-field rules are re-checked by the statement
   * itself; when the row changed in between, the update is checked again against the new
   * row (or, with an etag, refused).
   */
  async update(caller: AuthenticatedCaller, request: UpdateTicketRequest, validateOnly: boolean): Promise<Ticket> {
    const ticket = request.ticket ?? Ticket.fromPartial({});
    return retryWrite('ticket', async () => {
      const current = await this.find(caller, request.guid);
      const version = conditionalVersion('ticket', request.etag, () => ({ etag: ticketEtag(current, new Date()), version: current.version }));
      const { changes, guards, violations } = checkChanges(TICKET, ticket, request.update_mask, current);
      if (changes.min_price) violations.push(...priceViolations(changes.min_price, (await this.events.find(caller, current.event_id)).currency));
      if (violations.length) throw RpcError.invalidArgument(violations);
      if (validateOnly) return ticketMessage(current, new Date());
      const now = new Date();
      const updated = await this.tickets.update(caller.companyIds, current.guid, changes, { now, version, guards, change: (t) => ticketChange('ticket.updated', t, now) });
      return updated && ticketMessage(updated, new Date());
    });
  }

  async delete(caller: AuthenticatedCaller, request: DeleteTicketRequest): Promise<void> {
    await retryWrite('ticket', async () => {
      const current = await this.find(caller, request.guid);
      const version = conditionalVersion('ticket', request.etag, () => ({ etag: ticketEtag(current, new Date()), version: current.version }));
      if (holdsStock(current)) throw stockConflict('stock_held');
      const now = new Date();
      return (await this.tickets.softDelete(caller.companyIds, current.guid, { now, version, change: (t) => ticketChange('ticket.deleted', t, now) })) || undefined;
    });
  }
}

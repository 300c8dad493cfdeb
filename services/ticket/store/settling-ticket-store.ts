import type { Knex } from '../../../lib/db.js';
import { valuesFromRow } from '../../../lib/fields/rows.js';
import { holdsStock, TICKET_FIELDS } from '../../../lib/fields/ticket.js';
import type { TicketRecord } from '../catalogue/ticket-fields.js';
import { TicketStore, type TicketRow } from './ticket-store.js';

type SettleDue = (ticketGuids: readonly string[]) => Promise<boolean>;

/** The counts holdsStock reads, from a row without building its whole record. */
const STOCK_COUNTS = { reserved_count: TICKET_FIELDS.reserved_count, pending_count: TICKET_FIELDS.pending_count };
const stockCounts = (row: TicketRow) => valuesFromRow<{ reserved_count: number; pending_count: number }>(STOCK_COUNTS, row);

/**
 * Ticket reads that are exact about expiry: before a ticket that holds reserved or pending
 * stock is returned, its due reservations are expired (persisted, in the same transaction
 * shape as every move), so a read never counts a reservation whose time is up,
 * whether or not the sweeper has run.
 */
export class SettlingTicketStore extends TicketStore {
  constructor(
    db: Knex,
    private readonly settleDue: SettleDue,
  ) {
    super(db);
  }

  override async find(companyIds: readonly string[], guid: string): Promise<TicketRecord | undefined> {
    const ticket = await super.find(companyIds, guid);
    if (ticket && holdsStock(ticket) && (await this.settleDue([ticket.guid]))) return super.find(companyIds, guid);
    return ticket;
  }

  override async list(companyIds: readonly string[], eventId: string | undefined, afterId: number, limit: number): Promise<TicketRow[]> {
    const rows = await super.list(companyIds, eventId, afterId, limit);
    const holding = rows.filter((row) => holdsStock(stockCounts(row))).map((row) => row.guid as string);
    if (holding.length && (await this.settleDue(holding))) return super.list(companyIds, eventId, afterId, limit);
    return rows;
  }
}

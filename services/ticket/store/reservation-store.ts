import type { Knex } from '../../../lib/db.js';
import { MAX_UNITS_PER_ORDER, type ReservationState } from '../../../lib/fields/reservation.js';
import type { LineRecord, ReservationRecord, StockTicket } from '../stock/sale.js';
import { toRecord as toStockTicket } from './ticket-store.js';
import { BARCODE_COLUMNS, due, linesOfOrders, toBarcodeRow, withBarcodes, type BarcodeRow } from './stock-store.js';

type Raw = Record<string, unknown>;

/** The reads of reservations, their barcodes and their tickets outside a move (a move's own reads and writes: stock-store.ts). */
export class ReservationStore {
  constructor(private readonly db: Knex) {}

  async findTicket(companyIds: readonly string[], guid: string): Promise<StockTicket | undefined> {
    const row = await this.db('tickets').whereIn('company_id', [...companyIds]).where('guid', guid).whereNull('deleted_at').first();
    return row ? toStockTicket(row as Raw) : undefined;
  }

  /** The company of a ticket, deleted or not. */
  async companyOfTicket(guid: string): Promise<string | undefined> {
    const row = (await this.db('tickets').where('guid', guid).first('company_id')) as Raw | undefined;
    return row?.company_id as string | undefined;
  }

  /** Of these tickets, those with a due reservation (one indexed query). */
  async ticketsWithDue(ticketGuids: readonly string[], now: Date): Promise<string[]> {
    if (ticketGuids.length === 0) return [];
    const rows = (await due(this.db('reservations').whereIn('ticket_id', [...ticketGuids]), now).distinct('ticket_id')) as Raw[];
    return rows.map((row) => row.ticket_id as string);
  }

  /** Any tickets with a due reservation, for the sweeper. */
  async anyTicketsWithDue(now: Date, limit: number): Promise<string[]> {
    const rows = (await due(this.db('reservations'), now).distinct('ticket_id').limit(limit)) as Raw[];
    return rows.map((row) => row.ticket_id as string);
  }

  /** The lines of an order in the order they were given, with their barcodes and holders. */
  async linesOf(orderGuid: string): Promise<LineRecord[]> {
    return (await linesOfOrders(this.db, [orderGuid])).get(orderGuid) ?? [];
  }

  /** One reservation (or order line) with its barcodes. */
  async find(companyIds: readonly string[], guid: string): Promise<ReservationRecord | undefined> {
    const row = (await this.db('reservations').whereIn('company_id', [...companyIds]).where('guid', guid).first()) as Raw | undefined;
    if (!row) return undefined;
    return (await withBarcodes([row], this.db))[0];
  }

  /**
   * The next reservations of a ticket after id `afterId`, in creation order: at most `limit`,
   * and no more than fit in `barcodeBudget` barcodes (each reservation counted at its most,
   * min(amount, MAX_UNITS_PER_ORDER), which its read carries), but always at least one.
   * `more`: the list goes on after the last one.
   */
  async list(
    ticketGuid: string,
    state: ReservationState | undefined,
    afterId: number,
    limit: number,
    barcodeBudget: number,
  ): Promise<{ reservations: ReservationRecord[]; more: boolean }> {
    const query = this.db('reservations').where('ticket_id', ticketGuid).where('id', '>', afterId);
    if (state) query.where('state', state);
    const rows = (await query.orderBy('id').limit(limit + 1)) as Raw[];
    let carried = 0;
    let fit = 0;
    for (const row of rows.slice(0, limit)) {
      carried += row.state === 'confirmed' ? Math.min(Number(row.amount), MAX_UNITS_PER_ORDER) : 0;
      if (fit > 0 && carried > barcodeBudget) break;
      fit++;
    }
    return { reservations: await withBarcodes(rows.slice(0, fit), this.db), more: rows.length > fit };
  }

  /** The barcodes of a reservation after id `afterId`, in issue order, at most `limit`. */
  async barcodesOf(reservationGuid: string, afterId: number, limit: number): Promise<Array<{ id: number; barcode: string }>> {
    const rows = (await this.db('barcodes').where('reservation_id', reservationGuid).where('id', '>', afterId).orderBy('id').limit(limit).select('id', 'barcode')) as Raw[];
    return rows.map((row) => ({ id: Number(row.id), barcode: row.barcode as string }));
  }

  /** A barcode of a live event in the caller's companies. */
  async findBarcode(companyIds: readonly string[], eventGuid: string, barcode: string, db: Knex = this.db): Promise<BarcodeRow | undefined> {
    const row = (await db('barcodes')
      .join('events', 'events.guid', 'barcodes.event_id')
      .join('reservations', 'reservations.guid', 'barcodes.reservation_id')
      .whereIn('barcodes.company_id', [...companyIds])
      .where('barcodes.event_id', eventGuid)
      .where('barcodes.barcode', barcode)
      .whereNull('events.deleted_at')
      .first(...BARCODE_COLUMNS)) as Raw | undefined;
    return row && toBarcodeRow(row);
  }
}

import type { Knex } from '../../../lib/db.js';
import type { ReservationState } from '../../../lib/fields/reservation.js';
import type { CancellationRecord, LineRecord, OrderRecord } from '../stock/sale.js';
import { cancellationsOf, linesOfOrders, readOrders, toOrder } from './stock-store.js';

/** Bytes an order's fields, each line's and each cancellation's take in a message, besides the barcodes and texts (a generous bound: ids, times, money). */
const ORDER_BYTES = 1024;
const LINE_BYTES = 512;
const CANCELLATION_BYTES = 256;

/** At most the bytes an order with these lines and cancellations takes in a message: what its barcodes, holders and reasons really carry, and a bound for the rest. */
function messageBytes(lines: readonly LineRecord[], cancellations: readonly CancellationRecord[]): number {
  let bytes = ORDER_BYTES;
  for (const line of lines) {
    bytes += LINE_BYTES;
    for (const [i, code] of line.barcodes.entries()) {
      const holder = line.holders[i];
      // Each barcode: its code, its cancelled_at, its holder.
      bytes += 32 + Buffer.byteLength(code) + (holder ? 16 + Buffer.byteLength(holder.name) + Buffer.byteLength(holder.email) : 0);
    }
  }
  for (const cancellation of cancellations) {
    bytes += CANCELLATION_BYTES + Buffer.byteLength(cancellation.reason ?? '');
    for (const code of cancellation.barcodes) bytes += 4 + Buffer.byteLength(code);
  }
  return bytes;
}

/** The reads of orders outside a move (a move's own reads and writes: stock-store.ts). */
export class OrderStore {
  constructor(private readonly db: Knex) {}

  /** A live event in the caller's companies. */
  async findEvent(companyIds: readonly string[], guid: string): Promise<{ guid: string; company_id: string } | undefined> {
    const row = (await this.db('events').whereIn('company_id', [...companyIds]).where('guid', guid).whereNull('deleted_at').first('guid', 'company_id')) as
      | { guid: string; company_id: string }
      | undefined;
    return row;
  }

  async find(companyIds: readonly string[], guid: string): Promise<OrderRecord | undefined> {
    const row = (await this.db('orders').whereIn('company_id', [...companyIds]).where('guid', guid).first()) as Record<string, unknown> | undefined;
    if (!row) return undefined;
    return (await readOrders(this.db, [row.guid as string]))[0];
  }

  /** Every ticket of an event (deleted ones too: their lines still expire). */
  async ticketsOf(eventGuid: string): Promise<string[]> {
    return (await this.db('tickets').where('event_id', eventGuid).pluck('guid')) as string[];
  }

  /**
   * The next orders of an event after id `afterId`, in creation order, only those in `state`
   * when given (all lines of an order share it): at most `limit`, and no more than fit in
   * `barcodeBudget` barcodes, but always at least one. `more`: the list goes on.
   */
  async list(eventGuid: string, state: ReservationState | undefined, afterId: number, limit: number, byteBudget: number): Promise<{ orders: Array<OrderRecord & { id: number }>; more: boolean }> {
    const query = this.db('orders').where('event_id', eventGuid).where('id', '>', afterId);
    if (state) query.whereExists(this.db('reservations').whereRaw('reservations.order_id = orders.guid').where('state', state));
    const rows = (await query.orderBy('id').limit(limit + 1)) as Array<Record<string, unknown>>;
    const guids = rows.slice(0, limit).map((row) => row.guid as string);
    const lines = await linesOfOrders(this.db, guids);
    const cancellations = await cancellationsOf(this.db, guids);
    let carried = 0;
    let fit = 0;
    for (const row of rows.slice(0, limit)) {
      carried += messageBytes(lines.get(row.guid as string) ?? [], cancellations.get(row.guid as string) ?? []);
      if (fit > 0 && carried > byteBudget) break;
      fit++;
    }
    const orders = rows.slice(0, fit).map((row) => ({ ...toOrder(row, lines.get(row.guid as string) ?? [], cancellations.get(row.guid as string)), id: Number(row.id) }));
    return { orders, more: rows.length > fit };
  }
}

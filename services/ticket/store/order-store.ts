import { fromDbTime, type Knex } from '../../../lib/db.js';
import type { OrderChannel } from '../../../lib/fields/order.js';
import { MAX_UNITS_PER_ORDER, type ReservationState } from '../../../lib/fields/reservation.js';
import type { LineRecord, ReservationStore } from './reservation-store.js';
import { dbTime } from './sql.js';

export interface OrderRow {
  guid: string;
  company_id: string;
  event_id: string;
  channel: OrderChannel;
  created_at: Date;
}

/** An order with its lines (reservations, in the order given). */
export interface OrderRecord extends OrderRow {
  lines: LineRecord[];
}

/** The SQL of orders; the lines' stock SQL is the reservations' (reservation-store.ts). */
export class OrderStore {
  constructor(
    private readonly db: Knex,
    private readonly reservations: ReservationStore,
  ) {}

  /** A live event in the caller's companies. */
  async findEvent(companyIds: readonly string[], guid: string): Promise<{ guid: string; company_id: string } | undefined> {
    const row = (await this.db('events').whereIn('company_id', [...companyIds]).where('guid', guid).whereNull('deleted_at').first('guid', 'company_id')) as
      | { guid: string; company_id: string }
      | undefined;
    return row;
  }

  async insert(trx: Knex, order: OrderRow): Promise<void> {
    await trx('orders').insert({ ...order, created_at: dbTime(order.created_at) });
  }

  async find(companyIds: readonly string[], guid: string, db: Knex = this.db): Promise<OrderRecord | undefined> {
    const row = (await db('orders').whereIn('company_id', [...companyIds]).where('guid', guid).first()) as Record<string, unknown> | undefined;
    if (!row) return undefined;
    return toOrder(row, await this.reservations.linesOf(row.guid as string, db));
  }

  /** Orders by guid, with their lines (in a transaction: as it sees them). */
  async findMany(guids: readonly string[], db: Knex = this.db): Promise<OrderRecord[]> {
    return readOrders(db, this.reservations, guids);
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
  async list(eventGuid: string, state: ReservationState | undefined, afterId: number, limit: number, barcodeBudget: number): Promise<{ orders: Array<OrderRecord & { id: number }>; more: boolean }> {
    const query = this.db('orders').where('event_id', eventGuid).where('id', '>', afterId);
    if (state) query.whereExists(this.db('reservations').whereRaw('reservations.order_id = orders.guid').where('state', state));
    const rows = (await query.orderBy('id').limit(limit + 1)) as Array<Record<string, unknown>>;
    const lines = await this.reservations.linesOfOrders(rows.slice(0, limit).map((row) => row.guid as string));
    let carried = 0;
    let fit = 0;
    for (const row of rows.slice(0, limit)) {
      for (const line of lines.get(row.guid as string) ?? []) carried += line.state === 'confirmed' ? Math.min(line.amount, MAX_UNITS_PER_ORDER) : 0;
      if (fit > 0 && carried > barcodeBudget) break;
      fit++;
    }
    const orders = rows.slice(0, fit).map((row) => ({ ...toOrder(row, lines.get(row.guid as string) ?? []), id: Number(row.id) }));
    return { orders, more: rows.length > fit };
  }
}

export function toOrder(row: Record<string, unknown>, lines: LineRecord[]): OrderRecord {
  return {
    guid: row.guid as string,
    company_id: row.company_id as string,
    event_id: row.event_id as string,
    channel: row.channel as OrderChannel,
    created_at: fromDbTime(row.created_at as string)!,
    lines,
  };
}

/** Orders by guid with their lines, in the order of their creation. */
export async function readOrders(db: Knex, reservations: ReservationStore, guids: readonly string[]): Promise<OrderRecord[]> {
  if (guids.length === 0) return [];
  const rows = (await db('orders').whereIn('guid', [...guids]).orderBy('id')) as Array<Record<string, unknown>>;
  const lines = await reservations.linesOfOrders(rows.map((row) => row.guid as string), db);
  return rows.map((row) => toOrder(row, lines.get(row.guid as string) ?? []));
}

import { fromDbTime, type Knex } from '../../../lib/db.js';
import type { OrderChannel } from '../../../lib/fields/order.js';
import type { ReservationRecord } from '../domain/reservation-fields.js';
import type { ReservationStore } from './reservation-store.js';
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
  lines: ReservationRecord[];
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
    return {
      guid: row.guid as string,
      company_id: row.company_id as string,
      event_id: row.event_id as string,
      channel: row.channel as OrderChannel,
      created_at: fromDbTime(row.created_at as string)!,
      lines: await this.reservations.linesOf(row.guid as string, db),
    };
  }
}

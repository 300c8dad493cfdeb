import { isMysql, type Knex } from '../../../lib/db.js';
import { EVENT_FIELDS } from '../../../lib/fields/event.js';
import { canonicalDecimal } from '../../../lib/fields/decimal.js';
import { rowFromValues, valuesFromRow } from '../../../lib/fields/rows.js';
import type { EventRecord, EventValues } from '../catalogue/event-fields.js';
import { stockConflict } from '../../../lib/stock-conflicts.js';
import { bumpedUpdatedAt, dbTime, guarded, visibleTo } from './sql.js';
import { recordChange, recordChanges, type Change } from './outbox-store.js';
import type { UpdateOptions, WriteOptions } from './write-options.js';
import { toRecord as toTicketRecord } from './ticket-store.js';
import type { TicketRecord } from '../catalogue/ticket-fields.js';

type Raw = Record<string, unknown>;

function toRecord(row: Raw): EventRecord {
  return { ...valuesFromRow<Omit<EventRecord, 'id' | 'version'>>(EVENT_FIELDS, row), id: Number(row.id), version: Number(row.version) };
}

export interface EventDeletion extends WriteOptions {
  /** Inside the deletion's transaction: locks the event's live tickets, expires what is due, and says whether any still holds stock. */
  holdsStock: (trx: Knex, ticketGuids: readonly string[]) => Promise<boolean>;
  /** The webhook events of the deletion. */
  changes: (event: EventRecord, tickets: TicketRecord[]) => Change[];
}

/** All SQL about events. Every statement is confined to the caller's companies and to live events. */
export class EventStore {
  constructor(private readonly db: Knex) {}

  async find(companyIds: readonly string[], guid: string): Promise<EventRecord | undefined> {
    const row = await visibleTo(this.db('events'), companyIds).where('guid', guid).first();
    return row ? toRecord(row as Raw) : undefined;
  }

  /**
   * Inside a transaction that adds something to the event: true while the event is live,
   * and (on MySQL) a shared lock that keeps a concurrent delete from passing it by, so that
   * the delete's cascade cannot miss what is being added.
   */
  async holdLive(trx: Knex, companyIds: readonly string[], guid: string): Promise<boolean> {
    const query = visibleTo(trx('events'), companyIds).where('guid', guid).first('id');
    if (isMysql(trx)) query.forShare();
    return (await query) !== undefined;
  }

  /**
   * Inside a transaction changing what the event sells in: locks the event's live tickets (as
   * a move of their stock would), then says whether any line of the event is live or
   * confirmed, and gives the tickets' min_price and the amounts of its live coupons (fixed and
   * price; read locking, so a coupon committed meanwhile counts).
   */
  async lockSales(trx: Knex, guid: string, amountTypes: readonly string[]): Promise<{ selling: boolean; minPrices: string[]; couponAmounts: string[] }> {
    const tickets = trx('tickets').where('event_id', guid).whereNull('deleted_at').orderBy('guid');
    if (isMysql(trx)) tickets.forUpdate();
    const rows = (await tickets.select('min_price')) as Raw[];
    const sale = await trx('reservations').where('event_id', guid).whereIn('state', ['reserved', 'pending', 'confirmed']).first('id');
    const coupons = trx('coupons').where('event_id', guid).whereNull('deleted_at').whereIn('discount_type', [...amountTypes]).whereNotNull('value');
    if (isMysql(trx)) coupons.forShare();
    const amounts = (await coupons.select('value')) as Raw[];
    return {
      selling: sale !== undefined,
      minPrices: rows.filter((row) => row.min_price != null).map((row) => canonicalDecimal(row.min_price as string | number)),
      couponAmounts: amounts.map((row) => canonicalDecimal(row.value as string | number)),
    };
  }

  /** The next `limit` events after id `afterId`, in creation order. */
  async list(companyIds: readonly string[], afterId: number, limit: number): Promise<EventRecord[]> {
    const rows = await visibleTo(this.db('events'), companyIds).where('id', '>', afterId).orderBy('id').limit(limit);
    return (rows as Raw[]).map(toRecord);
  }

  async insert(record: Omit<EventRecord, 'id'>, trx: Knex = this.db): Promise<void> {
    await trx('events').insert({ ...rowFromValues(EVENT_FIELDS, record), version: record.version });
  }

  /** One UPDATE of only the given columns, and the row as it left it (see TicketStore.update); undefined when no live row matched. */
  async update(companyIds: readonly string[], guid: string, changes: Partial<EventValues>, options: UpdateOptions<EventRecord>): Promise<EventRecord | undefined> {
    const set = rowFromValues(EVENT_FIELDS, changes);
    return this.db.transaction(async (trx) => {
      await options.check?.(trx);
      const query = visibleTo(trx('events'), companyIds).where('guid', guid);
      if (options.version !== undefined) query.where('version', options.version);
      guarded(query, EVENT_FIELDS, options.guards);
      const count = await query.update({ ...set, updated_at: bumpedUpdatedAt(trx, options.now), version: trx.raw('version + 1') });
      if (count === 0) return undefined;
      const updated = toRecord((await visibleTo(trx('events'), companyIds).where('guid', guid).first()) as Raw);
      await recordChange(trx, options.change(updated));
      return updated;
    });
  }

  /**
   * Soft-deletes the event and its live tickets in one transaction; refused while a ticket
   * holds reserved or pending stock. Records the events the service gives.
   */
  async softDelete(companyIds: readonly string[], guid: string, options: EventDeletion): Promise<boolean> {
    const deletedAt = dbTime(options.now);
    return this.db.transaction(async (trx) => {
      const query = visibleTo(trx('events'), companyIds).where('guid', guid);
      if (options.version !== undefined) query.where('version', options.version);
      const count = await query.update({ deleted_at: deletedAt, version: trx.raw('version + 1') });
      if (count === 0) return false;
      // Locked at once (a locking read, so that the reads after it see what committed before the locks).
      const liveTickets = trx('tickets').where('event_id', guid).whereNull('deleted_at');
      if (isMysql(trx)) liveTickets.forUpdate();
      const live = (await liveTickets.pluck('guid')) as string[];
      if (await options.holdsStock(trx, live)) throw stockConflict('stock_held');
      const ticketIds = ((await visibleTo(trx('tickets'), companyIds).where('event_id', guid).select('id')) as Raw[]).map((row) => Number(row.id));
      await visibleTo(trx('tickets'), companyIds).where('event_id', guid).update({ deleted_at: deletedAt, version: trx.raw('version + 1') });
      const event = toRecord((await trx('events').where('guid', guid).first()) as Raw);
      const tickets = ticketIds.length ? ((await trx('tickets').whereIn('id', ticketIds).orderBy('id')) as Raw[]).map(toTicketRecord) : [];
      await recordChanges(trx, options.changes(event, tickets));
      return true;
    });
  }
}

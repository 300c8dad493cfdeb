import { fromDbBool, fromDbTime, type Knex } from '../../../lib/db.js';
import { canonicalDecimal } from '../domain/decimal.js';
import type { TicketRecord, TicketValues } from '../domain/ticket-fields.js';
import type { ColumnGuard } from '../domain/ticket-validation.js';
import { bumpedUpdatedAt, dbBool, dbTime, visibleTo } from './sql.js';
import type { WriteOptions } from './event-store.js';

type Raw = Record<string, unknown>;

const decimal = (value: unknown): string | null => (value === null || value === undefined ? null : canonicalDecimal(value as string | number));
const time = (value: unknown): Date | null => fromDbTime(value as string | null) ?? null;

function toRecord(row: Raw): TicketRecord {
  return {
    id: Number(row.id),
    guid: row.guid as string,
    company_id: row.company_id as string,
    event_id: row.event_id as string,
    name: row.name as string,
    description: (row.description as string | null) ?? null,
    min_price: decimal(row.min_price),
    vat_percentage: decimal(row.vat_percentage)!,
    late_personalization: fromDbBool(row.late_personalization),
    status_overrule: row.status_overrule as string,
    barcode_type: row.barcode_type as string,
    class: (row.class as string | null) ?? null,
    available_stock: Number(row.available_stock),
    sold_count: Number(row.sold_count),
    scanned_count: Number(row.scanned_count),
    increment: Number(row.increment),
    available_from: time(row.available_from),
    available_until: time(row.available_until),
    availability_margin: Number(row.availability_margin),
    min_orderable_amount_per_order: Number(row.min_orderable_amount_per_order),
    max_orderable_amount_per_order: Number(row.max_orderable_amount_per_order),
    percentage_service_costs_in_ticket: decimal(row.percentage_service_costs_in_ticket)!,
    seats_category_key: (row.seats_category_key as string | null) ?? null,
    available_in_cashr: fromDbBool(row.available_in_cashr),
    hide_without_coupon: fromDbBool(row.hide_without_coupon),
    combines_products: fromDbBool(row.combines_products),
    swappable: fromDbBool(row.swappable),
    seated: fromDbBool(row.seated),
    include_service_cost_in_price: fromDbBool(row.include_service_cost_in_price),
    reserved_count: Number(row.reserved_count),
    pending_count: Number(row.pending_count),
    created_at: time(row.created_at)!,
    updated_at: time(row.updated_at)!,
    deleted_at: time(row.deleted_at),
    version: Number(row.version),
  };
}

/** A value as its column takes it (column names are the field names). */
function columnValue(value: unknown): unknown {
  if (value instanceof Date) return dbTime(value);
  if (typeof value === 'boolean') return dbBool(value);
  return value;
}

function columns(values: Partial<TicketRecord>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(values)) row[field] = columnValue(value);
  return row;
}

export interface TicketUpdateOptions extends WriteOptions {
  /** Conditions on the stored row that must still hold (cross-field rules). */
  guards?: readonly ColumnGuard[];
}

/** All SQL about tickets. Every statement is confined to the caller's companies and to live tickets. */
export class TicketStore {
  constructor(private readonly db: Knex) {}

  async find(companyIds: readonly string[], guid: string): Promise<TicketRecord | undefined> {
    const row = await visibleTo(this.db('tickets'), companyIds).where('guid', guid).first();
    return row ? toRecord(row as Raw) : undefined;
  }

  /** The next `limit` tickets after id `afterId` in creation order: of one event, or of every event when eventId is undefined. */
  async list(companyIds: readonly string[], eventId: string | undefined, afterId: number, limit: number): Promise<TicketRecord[]> {
    const query = visibleTo(this.db('tickets'), companyIds).where('id', '>', afterId);
    if (eventId !== undefined) query.where('event_id', eventId);
    const rows = await query.orderBy('id').limit(limit);
    return (rows as Raw[]).map(toRecord);
  }

  async insert(record: Omit<TicketRecord, 'id'>, trx: Knex = this.db): Promise<void> {
    await trx('tickets').insert(columns(record));
  }

  /**
   * One UPDATE of only the given columns, and the row as this UPDATE left it (read in the
   * same transaction, under the row lock, so a concurrent update cannot show through).
   * Undefined when no live row matched (gone, another version, or a guard failed).
   */
  async update(
    companyIds: readonly string[],
    guid: string,
    changes: Partial<TicketValues>,
    options: TicketUpdateOptions,
  ): Promise<TicketRecord | undefined> {
    return this.db.transaction(async (trx) => {
      const query = visibleTo(trx('tickets'), companyIds).where('guid', guid);
      if (options.version !== undefined) query.where('version', options.version);
      for (const guard of options.guards ?? []) {
        const value = columnValue(guard.value) as string | number;
        if (guard.orNull) query.where((q) => q.whereNull(guard.column).orWhere(guard.column, guard.op, value));
        else query.where(guard.column, guard.op, value);
      }
      const count = await query.update({ ...columns(changes), updated_at: bumpedUpdatedAt(trx, options.now), version: trx.raw('version + 1') });
      if (count === 0) return undefined;
      const row = await visibleTo(trx('tickets'), companyIds).where('guid', guid).first();
      return toRecord(row as Raw);
    });
  }

  /** Only while the ticket holds no reserved or pending stock (PRODUCT.md 9). */
  async softDelete(companyIds: readonly string[], guid: string, options: WriteOptions): Promise<boolean> {
    const query = visibleTo(this.db('tickets'), companyIds).where('guid', guid).where('reserved_count', 0).where('pending_count', 0);
    if (options.version !== undefined) query.where('version', options.version);
    const count = await query.update({ deleted_at: dbTime(options.now), version: this.db.raw('version + 1') });
    return count > 0;
  }
}

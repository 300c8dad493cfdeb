import type { Knex } from '../../../lib/db.js';
import { rowFromValues, valuesFromRow } from '../../../lib/fields/rows.js';
import { TICKET_FIELDS } from '../../../lib/fields/ticket.js';
import type { TicketRecord, TicketValues } from '../catalogue/ticket-fields.js';
import { bumpedUpdatedAt, dbTime, guarded, visibleTo } from './sql.js';
import type { UpdateOptions, WriteOptions } from './write-options.js';
import { recordChange, type Change } from './outbox-store.js';

type Raw = Record<string, unknown>;

/** A tickets row as the database returns it: its keyset id, and the columns of TICKET_FIELDS (lib/fields/rows.ts). */
export type TicketRow = Raw & { id: number | string };

/** A tickets row as its record (the stock moves read it too). */
export function toRecord(row: Raw): TicketRecord {
  return { ...valuesFromRow<Omit<TicketRecord, 'id' | 'version'>>(TICKET_FIELDS, row), id: Number(row.id), version: Number(row.version) };
}

/** All SQL about tickets. Every statement is confined to the caller's companies and to live tickets. */
export class TicketStore {
  constructor(private readonly db: Knex) {}

  async find(companyIds: readonly string[], guid: string): Promise<TicketRecord | undefined> {
    const row = await visibleTo(this.db('tickets'), companyIds).where('guid', guid).first();
    return row ? toRecord(row as Raw) : undefined;
  }

  /**
   * The next `limit` tickets after id `afterId` in creation order: of one event, or of every
   * event when eventId is undefined. As rows: the lists make messages of them directly
   * (ticketMessageOfRow).
   */
  async list(companyIds: readonly string[], eventId: string | undefined, afterId: number, limit: number): Promise<TicketRow[]> {
    const query = visibleTo(this.db('tickets'), companyIds).where('id', '>', afterId);
    if (eventId !== undefined) query.where('event_id', eventId);
    return (await query.orderBy('id').limit(limit)) as TicketRow[];
  }

  async insert(record: Omit<TicketRecord, 'id'>, trx: Knex = this.db): Promise<void> {
    await trx('tickets').insert({ ...rowFromValues(TICKET_FIELDS, record), version: record.version });
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
    options: UpdateOptions<TicketRecord>,
  ): Promise<TicketRecord | undefined> {
    return this.db.transaction(async (trx) => {
      const query = visibleTo(trx('tickets'), companyIds).where('guid', guid);
      if (options.version !== undefined) query.where('version', options.version);
      guarded(query, TICKET_FIELDS, options.guards);
      const count = await query.update({ ...rowFromValues(TICKET_FIELDS, changes), updated_at: bumpedUpdatedAt(trx, options.now), version: trx.raw('version + 1') });
      if (count === 0) return undefined;
      const updated = toRecord((await visibleTo(trx('tickets'), companyIds).where('guid', guid).first()) as Raw);
      await recordChange(trx, options.change(updated));
      return updated;
    });
  }

  /** Only while the ticket holds no reserved or pending stock; records the service's event of it in the same transaction. */
  async softDelete(companyIds: readonly string[], guid: string, options: WriteOptions & { change: (deleted: TicketRecord) => Change }): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const query = visibleTo(trx('tickets'), companyIds).where('guid', guid).where('reserved_count', 0).where('pending_count', 0);
      if (options.version !== undefined) query.where('version', options.version);
      const count = await query.update({ deleted_at: dbTime(options.now), version: trx.raw('version + 1') });
      if (count === 0) return false;
      const deleted = toRecord((await trx('tickets').whereIn('company_id', [...companyIds]).where('guid', guid).first()) as Raw);
      await recordChange(trx, options.change(deleted));
      return true;
    });
  }
}

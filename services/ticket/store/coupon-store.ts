import { isMysql, isUniqueViolation, type Knex } from '../../../lib/db.js';
import { COUPON_CODE_FIELDS, COUPON_FIELDS } from '../../../lib/fields/coupon.js';
import type { ValuesOf } from '../../../lib/fields/kinds.js';
import { rowFromValues, valuesFromRow } from '../../../lib/fields/rows.js';
import { bumpedUpdatedAt, dbTime, guarded, visibleTo } from './sql.js';
import type { UpdateOptions, WriteOptions } from './write-options.js';

type Raw = Record<string, unknown>;

export type CouponValues = ValuesOf<typeof COUPON_FIELDS, 'writable'>;
export type CouponRecord = ValuesOf<typeof COUPON_FIELDS, 'writable' | 'server-managed' | 'ignored'> & { id: number; version: number };
export type CouponCodeRecord = ValuesOf<typeof COUPON_CODE_FIELDS, 'server-managed'> & { id: number };
/** A code to insert: its key is the code lower-cased (unique with the event). */
export type NewCouponCode = Omit<CouponCodeRecord, 'id'> & { code_key: string };

function toRecord(row: Raw): CouponRecord {
  return { ...valuesFromRow<Omit<CouponRecord, 'id' | 'version'>>(COUPON_FIELDS, row), id: Number(row.id), version: Number(row.version) };
}

function toCode(row: Raw): CouponCodeRecord {
  return { ...valuesFromRow<Omit<CouponCodeRecord, 'id'>>(COUPON_CODE_FIELDS, row), id: Number(row.id) };
}

/** Rows per INSERT of codes (a request adds up to 1,000). */
const INSERT_CHUNK = 200;

/** Some of the codes are taken within the event (a unique violation of event_id + code_key). */
export class CodeTaken extends Error {
  constructor(readonly code: string) {
    super(`code taken: ${code}`);
  }
}

/**
 * All SQL of the coupon catalogue. Coupons are confined to the caller's companies, to live
 * coupons and to live events (a coupon of a deleted event is not found).
 */
export class CouponStore {
  constructor(private readonly db: Knex) {}

  private live(db: Knex, companyIds: readonly string[]): Knex.QueryBuilder {
    return visibleTo(db('coupons'), companyIds).whereExists(function liveEvent() {
      void this.select('id').from('events').whereRaw('events.guid = coupons.event_id').whereNull('events.deleted_at');
    });
  }

  async find(companyIds: readonly string[], guid: string): Promise<CouponRecord | undefined> {
    const row = await this.live(this.db, companyIds).where('guid', guid).first();
    return row ? toRecord(row as Raw) : undefined;
  }

  /** The event's next `limit` live coupons after id `afterId`, in creation order. */
  async list(companyIds: readonly string[], eventGuid: string, afterId: number, limit: number): Promise<CouponRecord[]> {
    const rows = await visibleTo(this.db('coupons'), companyIds).where('event_id', eventGuid).where('id', '>', afterId).orderBy('id').limit(limit);
    return (rows as Raw[]).map(toRecord);
  }

  /** Which of `guids` are live tickets of the event. */
  async liveTickets(eventGuid: string, guids: readonly string[]): Promise<Set<string>> {
    if (guids.length === 0) return new Set();
    const found = (await this.db('tickets').where('event_id', eventGuid).whereNull('deleted_at').whereIn('guid', [...guids]).pluck('guid')) as string[];
    return new Set(found);
  }

  /** Inside a write: the event's currency, under a shared lock on MySQL (a currency change waits for the write, or the write for it). */
  async eventCurrency(trx: Knex, eventGuid: string): Promise<string | undefined> {
    const query = trx('events').where('guid', eventGuid).whereNull('deleted_at').first('currency');
    if (isMysql(trx)) query.forShare();
    const row = (await query) as Raw | undefined;
    return row ? (row.currency as string) : undefined;
  }

  async insert(record: Omit<CouponRecord, 'id'>, trx: Knex = this.db): Promise<void> {
    await trx('coupons').insert({ ...rowFromValues(COUPON_FIELDS, record), version: record.version });
  }

  /** One UPDATE of the given columns when the row still has `version` (and passes the guards); the row as it left it. */
  async update(companyIds: readonly string[], guid: string, changes: Partial<CouponValues>, options: Omit<UpdateOptions<CouponRecord>, 'change'>): Promise<CouponRecord | undefined> {
    return this.db.transaction(async (trx) => {
      await options.check?.(trx);
      const query = this.live(trx, companyIds).where('guid', guid);
      if (options.version !== undefined) query.where('version', options.version);
      guarded(query, COUPON_FIELDS, options.guards);
      const count = await query.update({ ...rowFromValues(COUPON_FIELDS, changes), updated_at: bumpedUpdatedAt(trx, options.now), version: trx.raw('version + 1') });
      if (count === 0) return undefined;
      return toRecord((await trx('coupons').where('guid', guid).first()) as Raw);
    });
  }

  /** Soft delete: the codes stay (their texts stay taken within the event) but stop working. */
  async softDelete(companyIds: readonly string[], guid: string, options: WriteOptions): Promise<boolean> {
    const query = this.live(this.db, companyIds).where('guid', guid);
    if (options.version !== undefined) query.where('version', options.version);
    return (await query.update({ deleted_at: dbTime(options.now), version: this.db.raw('version + 1') })) > 0;
  }

  /** Of the given keys (lower-cased codes), those taken within the event. */
  async takenKeys(eventGuid: string, keys: readonly string[], trx: Knex = this.db): Promise<Set<string>> {
    const taken = new Set<string>();
    for (let i = 0; i < keys.length; i += INSERT_CHUNK) {
      const found = (await trx('coupon_codes').where('event_id', eventGuid).whereIn('code_key', keys.slice(i, i + INSERT_CHUNK)).pluck('code_key')) as string[];
      for (const key of found) taken.add(key);
    }
    return taken;
  }

  /**
   * Inside a transaction: the coupon is still live (locked against a concurrent delete on
   * MySQL), then every code is inserted, or none: a code taken meanwhile throws CodeTaken.
   */
  async insertCodes(trx: Knex, couponGuid: string, eventGuid: string, codes: readonly NewCouponCode[]): Promise<boolean> {
    const coupon = trx('coupons').where('guid', couponGuid).whereNull('deleted_at').first('id');
    if (isMysql(trx)) coupon.forShare();
    if ((await coupon) === undefined) return false;
    const taken = await this.takenKeys(eventGuid, codes.map((code) => code.code_key), trx);
    const first = codes.find((code) => taken.has(code.code_key));
    if (first) throw new CodeTaken(first.code);
    try {
      for (let i = 0; i < codes.length; i += INSERT_CHUNK) {
        const rows = codes.slice(i, i + INSERT_CHUNK).map((code) => ({
          ...rowFromValues(COUPON_CODE_FIELDS, code),
          coupon_id: couponGuid,
          event_id: eventGuid,
          code_key: code.code_key,
        }));
        await trx('coupon_codes').insert(rows);
      }
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      // Taken by a concurrent request: which one is known after it committed (this transaction rolls back).
      throw new CodeTaken('');
    }
    return true;
  }

  /** The coupon's next `limit` codes after id `afterId`, in the order they were added. */
  async listCodes(couponGuid: string, afterId: number, limit: number): Promise<CouponCodeRecord[]> {
    const rows = await this.db('coupon_codes').where('coupon_id', couponGuid).where('id', '>', afterId).orderBy('id').limit(limit);
    return (rows as Raw[]).map(toCode);
  }

  /** Deletes the coupon's code with this key; false when it has none. */
  async deleteCode(couponGuid: string, codeKey: string): Promise<boolean> {
    return (await this.db('coupon_codes').where('coupon_id', couponGuid).where('code_key', codeKey).delete()) > 0;
  }
}

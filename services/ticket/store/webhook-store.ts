import { fromDbTime, type Knex } from '../../../lib/db.js';
import { rowFromValues, valuesFromRow } from '../../../lib/fields/rows.js';
import { WEBHOOK_FIELDS, type DELIVERY_FIELDS } from '../../../lib/webhooks/fields.js';
import { WEBHOOK_TEST_EVENT } from '../../../lib/webhooks/event-types.js';
import type { ValuesOf } from '../../../lib/fields/kinds.js';
import { recordChange } from './outbox-store.js';
import { bumpedUpdatedAt, dbTime, visibleTo } from './sql.js';
import type { WriteOptions } from './write-options.js';

type Raw = Record<string, unknown>;

export type WebhookValues = ValuesOf<typeof WEBHOOK_FIELDS, 'writable'>;
export type WebhookRecord = ValuesOf<typeof WEBHOOK_FIELDS, 'writable' | 'server-managed' | 'ignored'> & { id: number; version: number };
export type DeliveryValues = ValuesOf<typeof DELIVERY_FIELDS, 'server-managed'>;

function toRecord(row: Raw): WebhookRecord {
  return { ...valuesFromRow<Omit<WebhookRecord, 'id' | 'version'>>(WEBHOOK_FIELDS, row), id: Number(row.id), version: Number(row.version) };
}

/** All SQL of endpoint management. Every statement is confined to the caller's companies and to live endpoints. */
export class WebhookStore {
  constructor(private readonly db: Knex) {}

  async find(companyIds: readonly string[], guid: string): Promise<WebhookRecord | undefined> {
    const row = await visibleTo(this.db('webhook_endpoints'), companyIds).where('guid', guid).first();
    return row ? toRecord(row as Raw) : undefined;
  }

  async list(companyIds: readonly string[], afterId: number, limit: number): Promise<WebhookRecord[]> {
    const rows = await visibleTo(this.db('webhook_endpoints'), companyIds).where('id', '>', afterId).orderBy('id').limit(limit);
    return (rows as Raw[]).map(toRecord);
  }

  async insert(record: Omit<WebhookRecord, 'id'>, trx: Knex = this.db): Promise<void> {
    await trx('webhook_endpoints').insert({ ...rowFromValues(WEBHOOK_FIELDS, record), version: record.version });
  }

  async update(companyIds: readonly string[], guid: string, changes: Partial<WebhookValues>, options: WriteOptions): Promise<WebhookRecord | undefined> {
    return this.db.transaction(async (trx) => {
      const query = visibleTo(trx('webhook_endpoints'), companyIds).where('guid', guid);
      if (options.version !== undefined) query.where('version', options.version);
      const count = await query.update({ ...rowFromValues(WEBHOOK_FIELDS, changes), updated_at: bumpedUpdatedAt(trx, options.now), version: trx.raw('version + 1') });
      if (count === 0) return undefined;
      return toRecord((await visibleTo(trx('webhook_endpoints'), companyIds).where('guid', guid).first()) as Raw);
    });
  }

  /** Soft delete: its pending deliveries are dropped by the worker (the endpoint reads as deleted). */
  async softDelete(companyIds: readonly string[], guid: string, options: WriteOptions): Promise<boolean> {
    const query = visibleTo(this.db('webhook_endpoints'), companyIds).where('guid', guid);
    if (options.version !== undefined) query.where('version', options.version);
    return (await query.update({ deleted_at: dbTime(options.now), version: this.db.raw('version + 1') })) > 0;
  }

  /** Queues a webhook.test event for this endpoint only; its event id. */
  async queueTest(endpoint: WebhookRecord): Promise<string> {
    const data = { webhook_id: endpoint.guid, message: 'A test event: your endpoint receives and verifies webhooks.' };
    return recordChange(this.db, { type: WEBHOOK_TEST_EVENT, companyId: endpoint.company_id, data, endpointId: endpoint.guid });
  }

  /** The endpoint's latest attempts, newest first. */
  async attempts(endpointGuid: string, limit: number): Promise<DeliveryValues[]> {
    const rows = (await this.db('webhook_attempts').where('endpoint_id', endpointGuid).orderBy('id', 'desc').limit(limit)) as Raw[];
    return rows.map((row) => ({
      event_id: row.event_id as string,
      event_type: row.event_type as string,
      attempt: Number(row.attempt),
      response_status: row.response_status === null ? null : Number(row.response_status),
      duration_ms: Number(row.duration_ms),
      error: (row.error as string | null) ?? null,
      next_retry_at: fromDbTime(row.next_retry_at as string | null) ?? null,
      created_at: fromDbTime(row.created_at as string)!,
    }));
  }
}

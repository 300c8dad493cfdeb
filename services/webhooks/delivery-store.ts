import { randomUUID } from 'node:crypto';
import { fromDbTime, isMysql, toDbTime, type Knex } from '../../lib/db.js';
import { subscribes } from '../../lib/webhooks/fields.js';

type Raw = Record<string, unknown>;

/** A delivery a worker holds the lease of: what it needs to send it. */
export interface ClaimedDelivery {
  id: number;
  attempts: number;
  claimToken: string;
  event: { id: string; sequence: number; type: string; companyId: string; createdAt: Date; data: string };
  /** `deleted`: the endpoint is gone (deleted, or never existed); `enabled` is false when it was disabled since the claim. */
  endpoint: { guid: string; url: string; secret: string; deleted: boolean; enabled: boolean };
}

export interface AttemptOutcome {
  delivered: boolean;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
}

/**
 * Every right the worker's SQL below needs, table by table, and nothing else: the migration run
 * grants exactly these to the worker's own MySQL user (WEBHOOK_DATABASE_URL;
 * services/database-users.ts), so a worker, which fetches URLs its tenants chose, cannot read or
 * change stock, sales or anything else of the ticket schema (issue 32, item 10). The locking
 * reads of webhook_endpoints (FOR UPDATE) need LOCK TABLES on MySQL, granted on the schema.
 */
export const WORKER_TABLE_RIGHTS: Readonly<Record<string, readonly string[]>> = {
  webhook_events: ['SELECT', 'UPDATE', 'DELETE'],
  webhook_endpoints: ['SELECT'],
  webhook_deliveries: ['SELECT', 'INSERT', 'UPDATE', 'DELETE'],
  webhook_attempts: ['SELECT', 'INSERT', 'DELETE'],
};

/** Outbox events fanned out per transaction (and per worker round). */
export const FAN_OUT_BATCH = 200;

/**
 * The worker's SQL (docs/webhooks.md "Delivery"). Work is taken in short transactions that
 * several workers may run at once: on MySQL with SELECT ... FOR UPDATE SKIP LOCKED under
 * READ COMMITTED (no gap locks, so claims do not deadlock with each other or with the
 * writers of the outbox); SQLite has one writer anyway. A claimed delivery carries a lease
 * (claimed_until): a worker that dies mid-send loses it, and another sends the event again
 * with the same id.
 */
export class DeliveryStore {
  constructor(private readonly db: Knex) {}

  private transaction<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return isMysql(this.db) ? this.db.transaction(work, { isolationLevel: 'read committed' }) : this.db.transaction(work);
  }

  private locked<Q extends Knex.QueryBuilder>(trx: Knex, query: Q): Q {
    return (isMysql(trx) ? query.forUpdate().skipLocked() : query) as Q;
  }

  /**
   * Turns new outbox events into deliveries, one per live, enabled, subscribed endpoint of the
   * event's company. How many events. One fan-out at a time (FOR UPDATE without SKIP LOCKED on
   * MySQL: a second worker waits, then finds those events fanned out and takes the next), so
   * delivery ids, the order the claim sends in, follow event ids; it also waits for a writer's
   * outbox row not yet committed rather than pass it by for later ones. No deadlock: every fan-out
   * locks the outbox rows in id order in one statement before it writes anything, and under
   * READ COMMITTED there are no gap locks, so the writers' outbox inserts never wait on it.
   */
  async fanOut(now: Date): Promise<number> {
    return this.transaction(async (trx) => {
      const pending = trx('webhook_events').where('fanned_out', 0).orderBy('id').limit(FAN_OUT_BATCH).select('id', 'company_id', 'type', 'endpoint_id');
      const events = (await (isMysql(trx) ? pending.forUpdate() : pending)) as Raw[];
      if (events.length === 0) return 0;
      const companies = [...new Set(events.map((event) => event.company_id as string))];
      const endpoints = (await trx('webhook_endpoints').whereIn('company_id', companies).whereNull('deleted_at').where('enabled', 1).select('guid', 'company_id', 'events')) as Raw[];
      const rows: Raw[] = [];
      for (const event of events) {
        const targets = event.endpoint_id
          ? [event.endpoint_id as string]
          : endpoints
              .filter((endpoint) => endpoint.company_id === event.company_id && subscribes(JSON.parse(endpoint.events as string) as string[], event.type as string))
              .map((endpoint) => endpoint.guid as string);
        for (const endpointId of targets) {
          rows.push({ event_id: event.id, endpoint_id: endpointId, status: 'pending', attempts: 0, next_attempt_at: toDbTime(now), created_at: toDbTime(now) });
        }
      }
      for (let i = 0; i < rows.length; i += 500) await trx('webhook_deliveries').insert(rows.slice(i, i + 500)).onConflict(['event_id', 'endpoint_id']).ignore();
      await trx('webhook_events').whereIn('id', events.map((event) => event.id as number)).update({ fanned_out: 1 });
      return events.length;
    });
  }

  /**
   * Takes the lease of up to `limit` due deliveries, oldest event first, leaving out the
   * endpoints this worker is busy with and the disabled ones (their deliveries wait, pending,
   * until the endpoint is enabled again; a deleted endpoint's are claimed, to be dropped).
   * One worker at a time per endpoint: an endpoint another worker holds a lease on is left out
   * (`heldElsewhere`).
   */
  async claim(now: Date, limit: number, leaseMs: number, busyEndpoints: readonly string[] = []): Promise<ClaimedDelivery[]> {
    const token = randomUUID();
    const ids = await this.transaction(async (trx) => {
      const due = (await this.locked(
        trx,
        trx('webhook_deliveries')
          .where('status', 'pending')
          .where('next_attempt_at', '<=', toDbTime(now))
          .where((q) => q.whereNull('claimed_until').orWhere('claimed_until', '<', toDbTime(now)))
          .whereNotIn('endpoint_id', [...busyEndpoints])
          // Uncorrelated subqueries: MySQL's FOR UPDATE does not lock the rows they read.
          .whereNotIn('endpoint_id', trx('webhook_endpoints').where('enabled', 0).whereNull('deleted_at').select('guid'))
          .whereNotIn('endpoint_id', trx('webhook_deliveries').where('status', 'pending').where('claimed_until', '>=', toDbTime(now)).select('endpoint_id'))
          .orderBy('id')
          .limit(limit)
          .select('id', 'endpoint_id'),
      )) as Raw[];
      const held = await this.heldElsewhere(trx, [...new Set(due.map((row) => row.endpoint_id as string))], now);
      const claimed = due.filter((row) => !held.has(row.endpoint_id as string)).map((row) => Number(row.id));
      if (claimed.length) {
        await trx('webhook_deliveries').whereIn('id', claimed).update({ claimed_until: toDbTime(new Date(now.getTime() + leaseMs)), claim_token: token });
      }
      return claimed;
    });
    if (ids.length === 0) return [];
    const rows = (await this.db('webhook_deliveries as d')
      .join('webhook_events as e', 'e.id', 'd.event_id')
      .leftJoin('webhook_endpoints as w', 'w.guid', 'd.endpoint_id')
      .whereIn('d.id', ids)
      .orderBy('d.id')
      .select(
        'd.id',
        'd.attempts',
        'e.id as sequence',
        'e.guid as event_guid',
        'e.type',
        'e.company_id',
        'e.created_at',
        'e.data',
        'd.endpoint_id',
        'w.url',
        'w.secret',
        'w.deleted_at',
        'w.enabled',
      )) as Raw[];
    return rows.map((row) => ({
      id: Number(row.id),
      attempts: Number(row.attempts),
      claimToken: token,
      event: {
        id: row.event_guid as string,
        sequence: Number(row.sequence),
        type: row.type as string,
        companyId: row.company_id as string,
        createdAt: fromDbTime(row.created_at as string)!,
        data: row.data as string,
      },
      endpoint: {
        guid: row.endpoint_id as string,
        url: (row.url as string | null) ?? '',
        secret: (row.secret as string | null) ?? '',
        deleted: row.url == null || row.deleted_at != null,
        enabled: row.enabled === 1 || row.enabled === true || row.enabled === '1',
      },
    }));
  }

  /**
   * Records one attempt and its consequence, in one transaction: delivered, due again at
   * `retryAt`, or failed for good (retryAt null). Only the lease holder moves the delivery;
   * the attempt is logged either way.
   */
  async record(delivery: ClaimedDelivery, outcome: AttemptOutcome, retryAt: Date | null, now: Date): Promise<void> {
    const attempt = delivery.attempts + 1;
    const status = outcome.delivered ? 'delivered' : retryAt ? 'pending' : 'failed';
    await this.transaction(async (trx) => {
      await trx('webhook_attempts').insert({
        delivery_id: delivery.id,
        endpoint_id: delivery.endpoint.guid,
        event_id: delivery.event.id,
        event_type: delivery.event.type,
        attempt,
        response_status: outcome.responseStatus,
        duration_ms: outcome.durationMs,
        error: outcome.error?.slice(0, 255) ?? null,
        next_retry_at: outcome.delivered || !retryAt ? null : toDbTime(retryAt),
        created_at: toDbTime(now),
      });
      await trx('webhook_deliveries')
        .where('id', delivery.id)
        .where('claim_token', delivery.claimToken)
        .update({
          status,
          attempts: attempt,
          next_attempt_at: toDbTime(retryAt ?? now),
          claimed_until: null,
          claim_token: null,
        });
    });
  }

  /** Records a run of delivered attempts in one transaction (a burst to one receiver pays one commit per run, not per event). */
  async recordDelivered(items: ReadonlyArray<{ delivery: ClaimedDelivery; outcome: AttemptOutcome; at: Date }>): Promise<void> {
    if (items.length === 0) return;
    await this.transaction(async (trx) => {
      const attempts = items.map(({ delivery, outcome, at }) => ({
        delivery_id: delivery.id,
        endpoint_id: delivery.endpoint.guid,
        event_id: delivery.event.id,
        event_type: delivery.event.type,
        attempt: delivery.attempts + 1,
        response_status: outcome.responseStatus,
        duration_ms: outcome.durationMs,
        error: null,
        next_retry_at: null,
        created_at: toDbTime(at),
      }));
      for (let i = 0; i < attempts.length; i += 500) await trx('webhook_attempts').insert(attempts.slice(i, i + 500));
      await trx('webhook_deliveries')
        .whereIn('id', items.map(({ delivery }) => delivery.id))
        .where('claim_token', items[0]!.delivery.claimToken)
        .update({ status: 'delivered', attempts: trx.raw('attempts + 1'), claimed_until: null, claim_token: null });
    });
  }

  /**
   * Of `endpoints`, those another worker holds: its claim is running now (on MySQL the endpoint
   * row is locked, SKIP LOCKED passes it by), or committed a lease that has not run out. The
   * lease is read in a statement after the lock, so under READ COMMITTED it sees a claim that
   * committed since the main select. Whatever the clocks of the two claims, one of two that
   * overlap gets the endpoint row and the other skips it. An endpoint without a row (gone)
   * is never held. SQLite has one writer: claims do not overlap, the lease check suffices.
   */
  private async heldElsewhere(trx: Knex.Transaction, endpoints: string[], now: Date): Promise<Set<string>> {
    if (endpoints.length === 0) return new Set();
    const ours = new Set(((await this.locked(trx, trx('webhook_endpoints').whereIn('guid', endpoints).select('guid'))) as Raw[]).map((row) => row.guid as string));
    const skipped = endpoints.filter((guid) => !ours.has(guid));
    // Skipped and existing: another claim (or an edit of the endpoint) has the row; next round then. A plain read does not wait.
    const held = new Set(skipped.length ? ((await trx('webhook_endpoints').whereIn('guid', skipped).select('guid')) as Raw[]).map((row) => row.guid as string) : []);
    const rest = endpoints.filter((guid) => !held.has(guid));
    const leased = rest.length ? ((await trx('webhook_deliveries').whereIn('endpoint_id', rest).where('status', 'pending').where('claimed_until', '>=', toDbTime(now)).distinct('endpoint_id')) as Raw[]) : [];
    for (const row of leased) held.add(row.endpoint_id as string);
    return held;
  }

  /** Renews the lease of deliveries this worker holds; how many it still held. */
  async renew(deliveries: readonly ClaimedDelivery[], leaseMs: number): Promise<number> {
    if (deliveries.length === 0) return 0;
    const until = toDbTime(new Date(Date.now() + leaseMs));
    return this.db('webhook_deliveries')
      .whereIn('id', deliveries.map((delivery) => delivery.id))
      .where('claim_token', deliveries[0]!.claimToken)
      .where('status', 'pending')
      .update({ claimed_until: until });
  }

  /** Gives leases back unsent (their endpoint just failed an attempt): due again for the next round. */
  async release(deliveries: readonly ClaimedDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    await this.db('webhook_deliveries')
      .whereIn('id', deliveries.map((delivery) => delivery.id))
      .where('claim_token', deliveries[0]!.claimToken)
      .update({ claimed_until: null, claim_token: null });
  }

  /** Forgets what is older than `before` and finished: attempts, deliveries no longer pending, events without deliveries left. */
  async prune(before: Date): Promise<void> {
    const cutoff = toDbTime(before);
    await this.db('webhook_attempts').where('created_at', '<', cutoff).delete();
    await this.db('webhook_deliveries').whereNot('status', 'pending').where('created_at', '<', cutoff).delete();
    const open = this.db('webhook_deliveries').select('event_id');
    await this.db('webhook_events').where('fanned_out', 1).where('created_at', '<', cutoff).whereNotIn('id', open).delete();
  }

  /** A delivery whose endpoint was deleted meanwhile: dropped without an attempt. */
  async drop(delivery: ClaimedDelivery): Promise<void> {
    await this.db('webhook_deliveries').where('id', delivery.id).where('claim_token', delivery.claimToken).update({ status: 'dropped', claimed_until: null, claim_token: null });
  }
}

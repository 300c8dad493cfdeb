/**
 * The claim's one-worker-per-endpoint rule at the store, on MySQL where claims overlap: two
 * claims of one endpoint interleaved by hand (one paused before each of its statements in
 * turn while the other runs whole), with clocks on either side of a waiting retry, never both
 * get the endpoint; and an endpoint whose row another transaction holds waits, while a
 * delivery whose endpoint has no row stays claimable.
 */
import { randomUUID } from 'node:crypto';
import knexFactory from 'knex';
import { describe, expect, it } from 'vitest';
import { isMysql, toDbTime, type Knex } from '../../lib/db.js';
import { DeliveryStore, type ClaimedDelivery } from '../../services/webhooks/delivery-store.js';
import { withMigratedDatabase } from '../fields/database.js';
import { testBackend } from '../support/stack.js';

const LEASE_MS = 60_000;
const RETRY_AT = new Date('2030-01-01T00:00:10.000Z');
const BEFORE_RETRY = new Date(RETRY_AT.getTime() - 1000);
const AFTER_RETRY = new Date(RETRY_AT.getTime() + 1000);

type QueryGate = () => Promise<void>;

/** A second connection pool to the same database whose every query first passes `gate()` (transaction statements included). */
function gatedCopy(db: Knex, gate: { current: QueryGate }): Knex {
  type Client = { _query(connection: unknown, obj: unknown): Promise<unknown> };
  const Base = db.client.constructor as new (config: Knex.Config) => Client;
  class Gated extends Base {
    override async _query(connection: unknown, obj: unknown) {
      await gate.current();
      return super._query(connection, obj);
    }
  }
  const copy = knexFactory({ ...(db.client.config as Knex.Config), client: Gated as unknown as typeof knexFactory.Client });
  // The dialect is resolved; the name again, for the code that asks which backend it runs on (isMysql).
  (copy.client.config as Knex.Config).client = (db.client.config as Knex.Config).client;
  return copy;
}

async function insertEndpoint(db: Knex, guid: string): Promise<void> {
  const at = toDbTime(new Date('2030-01-01T00:00:00.000Z'));
  await db('webhook_endpoints').insert({ guid, company_id: randomUUID(), url: 'http://127.0.0.1:9/', events: '["*"]', enabled: 1, secret: 's', created_at: at, updated_at: at });
}

/** Pending deliveries to `endpoint`, one per due time, in delivery id order. */
async function insertDeliveries(db: Knex, endpoint: string, dueTimes: Date[]): Promise<void> {
  for (const due of dueTimes) {
    const [eventId] = await db('webhook_events').insert({ guid: randomUUID(), company_id: randomUUID(), type: 'event.created', data: '{}', created_at: toDbTime(due), fanned_out: 1 });
    await db('webhook_deliveries').insert({ event_id: eventId, endpoint_id: endpoint, status: 'pending', attempts: 0, next_attempt_at: toDbTime(due), created_at: toDbTime(due) });
  }
}

const holds = (claimed: ClaimedDelivery[], endpoint: string) => claimed.some((delivery) => delivery.endpoint.guid === endpoint);

describe.runIf(testBackend() === 'mysql')('claim: one worker per endpoint when claims overlap (MySQL)', () => {
  it('an endpoint whose oldest delivery waits for a retry: two overlapping claims, one before and one after the retry time, never both get it', async () => {
    await withMigratedDatabase('ticket', async (db) => {
      const endpoint = randomUUID();
      await insertEndpoint(db, endpoint);
      // Delivery 1 waits for its retry; 2 and 3 are due for both claims.
      await insertDeliveries(db, endpoint, [RETRY_AT, new Date(RETRY_AT.getTime() - 10_000), new Date(RETRY_AT.getTime() - 10_000)]);
      const gate = { current: (async () => undefined) as QueryGate };
      const gatedDb = gatedCopy(db, gate);
      try {
        expect(isMysql(gatedDb)).toBe(true);
        const paused = new DeliveryStore(gatedDb);
        const other = new DeliveryStore(db);
        let statements = 0;
        gate.current = async () => void statements++;
        await paused.claim(BEFORE_RETRY, 10, LEASE_MS);
        expect(statements).toBeGreaterThan(2);
        for (const [pausedNow, otherNow] of [[BEFORE_RETRY, AFTER_RETRY], [AFTER_RETRY, BEFORE_RETRY]] as const) {
          // Paused before its k-th statement while the other claim runs from start to end.
          for (let k = 1; k <= statements; k++) {
            await db('webhook_deliveries').update({ claimed_until: null, claim_token: null });
            let seen = 0;
            let resume!: () => void;
            const reached = new Promise<void>((resolve) => {
              gate.current = async () => {
                if (++seen !== k) return;
                resolve();
                await new Promise<void>((go) => (resume = go));
              };
            });
            const first = paused.claim(pausedNow, 10, LEASE_MS);
            await reached;
            const second = await other.claim(otherNow, 10, LEASE_MS);
            resume();
            const claims = [await first, second];
            expect(claims.filter((claimed) => holds(claimed, endpoint)).length, `paused at ${pausedNow.toISOString()} before statement ${k}: claims holding the endpoint`).toBe(1);
          }
        }
      } finally {
        await gatedDb.destroy();
      }
    });
  }, 60_000);

  it('an endpoint whose row another transaction holds waits for the next claim; a delivery whose endpoint has no row is still claimed', async () => {
    await withMigratedDatabase('ticket', async (db) => {
      const [held, gone] = [randomUUID(), randomUUID()];
      await insertEndpoint(db, held);
      await insertDeliveries(db, held, [BEFORE_RETRY]);
      await insertDeliveries(db, gone, [BEFORE_RETRY]);
      const store = new DeliveryStore(db);
      const duringHold = await db.transaction(async (trx) => {
        await trx('webhook_endpoints').where('guid', held).forUpdate().select('id');
        return store.claim(RETRY_AT, 10, LEASE_MS);
      });
      expect(duringHold.map((delivery) => [delivery.endpoint.guid, delivery.endpoint.deleted])).toEqual([[gone, true]]);
      const after = await store.claim(RETRY_AT, 10, LEASE_MS);
      expect(after.map((delivery) => delivery.endpoint.guid)).toEqual([held]);
    });
  }, 30_000);
});

import type { Knex } from '../../../lib/db.js';

/**
 * One worker at a time per endpoint (services/webhooks/delivery-store.ts, `claim`) asks two more
 * things of every claim: which endpoints have a lease running (`status, claimed_until`: the
 * leased rows only, not the whole backlog) and the oldest due delivery of each endpoint it
 * takes (`endpoint_id, status, id`: the endpoint's pending rows in id order). Without them each
 * claim would walk every pending delivery, and a receiver that was down leaves a long backlog.
 */
export const webhookClaimIndexMigration: Knex.Migration = {
  async up(db) {
    await db.schema.alterTable('webhook_deliveries', (t) => {
      t.index(['status', 'claimed_until'], 'webhook_deliveries_status_claimed_until_index');
      t.index(['endpoint_id', 'status', 'id'], 'webhook_deliveries_endpoint_id_status_id_index');
    });
  },
  async down(db) {
    await db.schema.alterTable('webhook_deliveries', (t) => {
      t.dropIndex(['status', 'claimed_until'], 'webhook_deliveries_status_claimed_until_index');
      t.dropIndex(['endpoint_id', 'status', 'id'], 'webhook_deliveries_endpoint_id_status_id_index');
    });
  },
};

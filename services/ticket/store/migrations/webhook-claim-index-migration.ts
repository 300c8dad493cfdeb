import type { Knex } from '../../../../lib/db.js';

/**
 * One worker at a time per endpoint (services/webhooks/delivery-store.ts, `claim`): every claim
 * asks which endpoints have a lease running (pending deliveries with `claimed_until` not yet
 * past), in its main select and again after locking the endpoints it takes. `status,
 * claimed_until` answers that from the leased rows alone (at most a claim batch per worker),
 * however long a backlog a receiver that was down has left pending.
 */
export const webhookClaimIndexMigration: Knex.Migration = {
  async up(db) {
    await db.schema.alterTable('webhook_deliveries', (t) => {
      t.index(['status', 'claimed_until'], 'webhook_deliveries_status_claimed_until_index');
    });
  },
  async down(db) {
    await db.schema.alterTable('webhook_deliveries', (t) => {
      t.dropIndex(['status', 'claimed_until'], 'webhook_deliveries_status_claimed_until_index');
    });
  },
};

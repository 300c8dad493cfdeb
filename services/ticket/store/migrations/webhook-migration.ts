import { utf8mb4, type Knex } from '../../../../lib/db.js';

/**
 * Webhooks (PRODUCT.md 10, docs/webhooks.md): the endpoints, the transactional outbox (one
 * row per committed change, written in the change's own transaction), the deliveries (one
 * per event and endpoint, claimed by one worker at a time through a lease) and the log of
 * every attempt.
 */
export const webhooksMigration: Knex.Migration = {
  async up(db) {
    await db.schema.createTable('webhook_endpoints', (t) => {
      utf8mb4(db, t);
      t.increments('id').primary();
      t.string('guid', 36).notNullable().unique();
      t.string('company_id', 36).notNullable();
      t.string('url', 2048).notNullable();
      // A JSON array of event types.
      t.text('events').notNullable();
      t.text('description').nullable();
      t.boolean('enabled').notNullable();
      t.string('secret', 128).notNullable();
      t.datetime('created_at', { precision: 3 }).notNullable();
      t.datetime('updated_at', { precision: 3 }).notNullable();
      t.datetime('deleted_at', { precision: 3 }).nullable();
      t.integer('version').notNullable().defaultTo(1);
      // The company's endpoints (management lists, the fan-out).
      t.index(['company_id', 'id']);
    });

    await db.schema.createTable('webhook_events', (t) => {
      utf8mb4(db, t);
      // The event's sequence: allocated in the change's transaction, so one object's events rise in commit order.
      t.bigIncrements('id').primary();
      t.string('guid', 36).notNullable().unique();
      t.string('company_id', 36).notNullable();
      t.string('type', 64).notNullable();
      // The object as its REST read shows it, as JSON.
      t.text('data', 'mediumtext').notNullable();
      t.datetime('created_at', { precision: 3 }).notNullable();
      // Set once the event has its deliveries (one per subscribed endpoint).
      t.boolean('fanned_out').notNullable().defaultTo(false);
      // Only for webhook.test: the one endpoint it goes to.
      t.string('endpoint_id', 36).nullable();
      t.index(['fanned_out', 'id']);
    });

    await db.schema.createTable('webhook_deliveries', (t) => {
      utf8mb4(db, t);
      t.bigIncrements('id').primary();
      t.bigInteger('event_id').unsigned().notNullable();
      t.string('endpoint_id', 36).notNullable();
      // pending, delivered or failed.
      t.string('status', 16).notNullable();
      t.integer('attempts').notNullable().defaultTo(0);
      t.datetime('next_attempt_at', { precision: 3 }).notNullable();
      // A worker's lease: nobody else sends it before then.
      t.datetime('claimed_until', { precision: 3 }).nullable();
      t.string('claim_token', 36).nullable();
      t.datetime('created_at', { precision: 3 }).notNullable();
      t.unique(['event_id', 'endpoint_id']);
      // The claim: due pending deliveries in event order.
      t.index(['status', 'next_attempt_at', 'id']);
    });

    await db.schema.createTable('webhook_attempts', (t) => {
      utf8mb4(db, t);
      t.bigIncrements('id').primary();
      t.bigInteger('delivery_id').unsigned().notNullable();
      t.string('endpoint_id', 36).notNullable();
      t.string('event_id', 36).notNullable();
      t.string('event_type', 64).notNullable();
      t.integer('attempt').notNullable();
      t.integer('response_status').nullable();
      t.integer('duration_ms').notNullable();
      t.string('error', 255).nullable();
      t.datetime('next_retry_at', { precision: 3 }).nullable();
      t.datetime('created_at', { precision: 3 }).notNullable();
      // GET /webhooks/:guid/deliveries: an endpoint's latest attempts.
      t.index(['endpoint_id', 'id']);
    });
  },
  async down(db) {
    for (const table of ['webhook_attempts', 'webhook_deliveries', 'webhook_events', 'webhook_endpoints']) await db.schema.dropTableIfExists(table);
  },
};

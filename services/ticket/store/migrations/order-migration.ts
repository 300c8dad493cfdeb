import { utf8mb4, type Knex } from '../../../../lib/db.js';

/**
 * Orders (PRODUCT.md 12): an order is its lines, each a reservation of its ticket
 * (`reservations.order_id`), so the counters stay the sums of the reservations and every
 * stock rule of a reservation holds line by line. The order row holds what is the order's
 * own: its event and channel; state and expiry are its lines' (they always move together).
 */
export const ordersMigration: Knex.Migration = {
  async up(db) {
    await db.schema.createTable('orders', (t) => {
      utf8mb4(db, t);
      t.increments('id').primary();
      t.string('guid', 36).notNullable().unique();
      t.string('company_id', 36).notNullable();
      t.string('event_id', 36).notNullable();
      t.string('channel', 16).notNullable();
      t.datetime('created_at', { precision: 3 }).notNullable();
      t.index(['event_id', 'id']);
    });
    await db.schema.alterTable('reservations', (t) => {
      // Null: a reservation made alone (its own one-line order).
      t.string('order_id', 36).nullable();
      t.index(['order_id', 'id']);
    });
  },
  async down(db) {
    await db.schema.alterTable('reservations', (t) => {
      t.dropIndex(['order_id', 'id']);
      t.dropColumn('order_id');
    });
    await db.schema.dropTableIfExists('orders');
  },
};

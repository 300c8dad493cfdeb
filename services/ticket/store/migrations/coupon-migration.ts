import { isMysql, utf8mb4, type Knex } from '../../../../lib/db.js';

/**
 * Coupons (docs/coupons.md): a coupon is a campaign of one event (its discount, the tickets it
 * applies to, its validity window); its codes are what buyers type, unique within the event
 * ignoring case (`code_key`, the code in lower case). A code counts the orders that hold it
 * (`used_count`: reserved, pending or confirmed ones), guarded by the database against its
 * `usage_count`; an order remembers the code row it took a use of (`coupon_code_id`), so its
 * release, expiry or full cancellation gives that use back even after the code was deleted
 * and added again. `value` is a decimal as the ticket's min_price (exact, never a float): a
 * percentage, or an amount of the event's currency.
 */
export const couponMigration: Knex.Migration = {
  async up(db) {
    await db.schema.createTable('coupons', (t) => {
      utf8mb4(db, t);
      t.increments('id').primary();
      t.string('guid', 36).notNullable().unique();
      t.string('company_id', 36).notNullable();
      t.string('event_id', 36).notNullable();
      t.string('name', 255).notNullable();
      t.string('discount_type', 16).notNullable();
      t.decimal('value', 14, 2).nullable();
      // A JSON array of ticket guids; null: every ticket of the event but the hidden ones.
      t.text('ticket_ids').nullable();
      t.datetime('valid_from', { precision: 3 }).nullable();
      t.datetime('valid_until', { precision: 3 }).nullable();
      t.datetime('created_at', { precision: 3 }).notNullable();
      t.datetime('updated_at', { precision: 3 }).notNullable();
      t.datetime('deleted_at', { precision: 3 }).nullable();
      t.integer('version').notNullable().defaultTo(1);
      t.index(['event_id', 'id']);
    });
    await db.schema.createTable('coupon_codes', (t) => {
      utf8mb4(db, t);
      t.increments('id').primary();
      t.string('coupon_id', 36).notNullable();
      t.string('event_id', 36).notNullable();
      const code = t.string('code', 64).notNullable();
      const key = t.string('code_key', 64).notNullable();
      // Compared byte for byte: code_key is lower-cased by the service, the code kept as given.
      if (isMysql(db)) {
        code.collate('utf8mb4_bin');
        key.collate('utf8mb4_bin');
      }
      // Null: no limit.
      t.integer('usage_count').nullable();
      t.integer('applies_to_count').nullable();
      t.integer('used_count').notNullable().defaultTo(0);
      t.datetime('created_at', { precision: 3 }).notNullable();
      t.unique(['event_id', 'code_key']);
      t.index(['coupon_id', 'id']);
    });
    await db.schema.alterTable('orders', (t) => {
      t.integer('coupon_code_id').nullable();
    });
  },
  async down(db) {
    await db.schema.alterTable('orders', (t) => {
      t.dropColumn('coupon_code_id');
    });
    await db.schema.dropTableIfExists('coupon_codes');
    await db.schema.dropTableIfExists('coupons');
  },
};

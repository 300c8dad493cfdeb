import { utf8mb4, type Knex } from '../../../../lib/db.js';
import { CANCEL_REASON_MAX } from '../../../../lib/fields/reservation.js';

/**
 * Cancelling a sale (docs/cancellations.md): a barcode's `cancelled_at` and the cancellation
 * that cancelled it; a line's `cancelled_amount`, the units of it cancelled (its barcodes, or
 * its whole amount for barcode_type none), so its ticket's sold_count stays the sum of the
 * confirmed lines' amount less what was cancelled; and one row per cancellation, with what is
 * owed in minor units of the order's currency (0 for a reservation, which carries no money).
 */
export const cancellationMigration: Knex.Migration = {
  async up(db) {
    await db.schema.alterTable('barcodes', (t) => {
      t.datetime('cancelled_at', { precision: 3 }).nullable();
      t.string('cancellation_id', 36).nullable();
      t.index(['cancellation_id']);
    });
    await db.schema.alterTable('reservations', (t) => {
      t.integer('cancelled_amount').notNullable().defaultTo(0);
    });
    await db.schema.createTable('cancellations', (t) => {
      utf8mb4(db, t);
      t.increments('id').primary();
      t.string('guid', 36).notNullable().unique();
      t.string('company_id', 36).notNullable();
      // The order, or the reservation sold alone.
      t.string('sale_id', 36).notNullable();
      t.string('reason', CANCEL_REASON_MAX).nullable();
      t.bigInteger('cancellation_fee').notNullable();
      t.bigInteger('refund_amount').notNullable();
      t.boolean('stock_returned').notNullable();
      t.datetime('created_at', { precision: 3 }).notNullable();
      t.index(['sale_id', 'id']);
    });
  },
  async down(db) {
    await db.schema.dropTableIfExists('cancellations');
    await db.schema.alterTable('reservations', (t) => {
      t.dropColumn('cancelled_amount');
    });
    await db.schema.alterTable('barcodes', (t) => {
      t.dropIndex(['cancellation_id']);
      t.dropColumn('cancellation_id');
      t.dropColumn('cancelled_at');
    });
  },
};

import { isMysql, utf8mb4, type Knex } from '../../../../lib/db.js';

/**
 * Stock moves (PRODUCT.md 9): reservations of a ticket's stock and the barcodes issued on
 * confirmation. The ticket's reserved/pending/sold counters always equal the sums of its
 * reservations by state; both change in the same transaction.
 */
export const reservationsMigration: Knex.Migration = {
  async up(db) {
    await db.schema.createTable('reservations', (t) => {
      utf8mb4(db, t);
      t.increments('id').primary();
      t.string('guid', 36).notNullable().unique();
      t.string('company_id', 36).notNullable();
      t.string('event_id', 36).notNullable();
      t.string('ticket_id', 36).notNullable();
      t.integer('amount').notNullable();
      t.string('state', 16).notNullable();
      t.datetime('expires_at', { precision: 3 }).nullable();
      t.datetime('created_at', { precision: 3 }).notNullable();
      t.datetime('updated_at', { precision: 3 }).notNullable();
      // ListReservations of one ticket in creation order.
      t.index(['ticket_id', 'id']);
      // The due reservations of one ticket (expired before every move and read of it).
      t.index(['ticket_id', 'state', 'expires_at']);
      // The sweeper: due reservations of any ticket.
      t.index(['state', 'expires_at']);
    });

    await db.schema.createTable('barcodes', (t) => {
      utf8mb4(db, t);
      t.increments('id').primary();
      t.string('company_id', 36).notNullable();
      t.string('event_id', 36).notNullable();
      t.string('ticket_id', 36).notNullable();
      t.string('reservation_id', 36).notNullable();
      // Case-sensitive: a binary collation on MySQL (SQLite compares bytes anyway).
      const barcode = t.string('barcode', 64).notNullable();
      if (isMysql(db)) barcode.collate('utf8mb4_bin');
      t.datetime('scanned_at', { precision: 3 }).nullable();
      t.datetime('created_at', { precision: 3 }).notNullable();
      // Unique within the event, enforced here and not only by code.
      t.unique(['event_id', 'barcode']);
      t.index(['reservation_id', 'id']);
    });
  },
  async down(db) {
    for (const table of ['barcodes', 'reservations']) await db.schema.dropTableIfExists(table);
  },
};

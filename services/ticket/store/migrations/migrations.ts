import { isMysql, utf8mb4, type Knex } from '../../../../lib/db.js';
import { barcodeBytesMigration } from './barcode-bytes-migration.js';
import { barcodeHolderMigration } from './barcode-holder-migration.js';
import { listIndexMigration } from './list-index-migration.js';
import { cancellationMigration } from './cancellation-migration.js';
import { couponMigration } from './coupon-migration.js';
import { moneyMigration } from './money-migration.js';
import { ordersMigration } from './order-migration.js';
import { reservationsMigration } from './reservation-migration.js';
import { webhookClaimIndexMigration } from './webhook-claim-index-migration.js';
import { webhooksMigration } from './webhook-migration.js';

/**
 * The ticket database: events, their tickets, and the remembered results of idempotent
 * creations. Runs on MySQL/MariaDB and SQLite alike. Every table has an auto-increment id
 * (creation order, the key of keyset paging) next to the public guid; timestamps are
 * DATETIME(3) holding UTC; money and percentages are exact DECIMALs; `version` is bumped
 * by every change and feeds the ETag.
 */

const initial: Knex.Migration = {
  async up(db) {
    await db.schema.createTable('events', (t) => {
      utf8mb4(db, t);
      t.increments('id').primary();
      t.string('guid', 36).notNullable().unique();
      t.string('company_id', 36).notNullable();
      t.string('name', 255).notNullable();
      t.text('description').nullable();
      t.datetime('starts_at', { precision: 3 }).nullable();
      t.datetime('ends_at', { precision: 3 }).nullable();
      t.datetime('created_at', { precision: 3 }).notNullable();
      t.datetime('updated_at', { precision: 3 }).notNullable();
      t.datetime('deleted_at', { precision: 3 }).nullable();
      t.integer('version').notNullable().defaultTo(1);
      // ListEvents: the company's events in creation order.
      t.index(['company_id', 'id']);
    });

    await db.schema.createTable('tickets', (t) => {
      utf8mb4(db, t);
      t.increments('id').primary();
      t.string('guid', 36).notNullable().unique();
      t.string('company_id', 36).notNullable();
      t.string('event_id', 36).notNullable();
      t.string('name', 255).notNullable();
      t.text('description').nullable();
      t.decimal('min_price', 12, 2).nullable();
      t.decimal('vat_percentage', 5, 2).notNullable();
      t.boolean('late_personalization').notNullable();
      t.string('status_overrule', 32).notNullable();
      t.string('barcode_type', 32).notNullable();
      t.string('class', 255).nullable();
      t.integer('available_stock').notNullable();
      t.integer('sold_count').notNullable().defaultTo(0);
      t.integer('scanned_count').notNullable().defaultTo(0);
      t.integer('increment').notNullable();
      t.datetime('available_from', { precision: 3 }).nullable();
      t.datetime('available_until', { precision: 3 }).nullable();
      t.integer('availability_margin').notNullable();
      t.integer('min_orderable_amount_per_order').notNullable();
      t.integer('max_orderable_amount_per_order').notNullable();
      t.decimal('percentage_service_costs_in_ticket', 5, 2).notNullable();
      t.string('seats_category_key', 255).nullable();
      t.boolean('available_in_cashr').notNullable();
      t.boolean('hide_without_coupon').notNullable();
      t.boolean('combines_products').notNullable();
      t.boolean('swappable').notNullable();
      t.boolean('seated').notNullable();
      t.boolean('include_service_cost_in_price').notNullable();
      t.integer('reserved_count').notNullable().defaultTo(0);
      t.integer('pending_count').notNullable().defaultTo(0);
      t.datetime('created_at', { precision: 3 }).notNullable();
      t.datetime('updated_at', { precision: 3 }).notNullable();
      t.datetime('deleted_at', { precision: 3 }).nullable();
      t.integer('version').notNullable().defaultTo(1);
      // ListTickets / StreamTickets of one event, and the event's cascade on delete.
      t.index(['event_id', 'id']);
      // StreamTickets of the whole company set (GET /ticket).
      t.index(['company_id', 'id']);
    });

    await db.schema.createTable('idempotency_keys', (t) => {
      utf8mb4(db, t);
      t.increments('id').primary();
      t.string('user_id', 36).notNullable();
      // The method, e.g. "CreateTicket".
      t.string('scope', 64).notNullable();
      // Keys are case-sensitive: a binary collation on MySQL (SQLite compares bytes anyway).
      const key = t.string('idempotency_key', 255).notNullable();
      if (isMysql(db)) key.collate('utf8mb4_bin');
      t.string('request_hash', 64).notNullable();
      // The first response: the encoded protobuf message, base64.
      t.text('response', 'mediumtext').notNullable();
      t.datetime('created_at', { precision: 3 }).notNullable();
      t.unique(['user_id', 'scope', 'idempotency_key']);
      // Expiry sweeps.
      t.index(['created_at']);
    });
  },
  async down(db) {
    for (const table of ['idempotency_keys', 'tickets', 'events']) await db.schema.dropTableIfExists(table);
  },
};

export const ticketMigrations: Record<string, Knex.Migration> = {
  '20261123_001_events_tickets': initial,
  '20261124_001_reservations': reservationsMigration,
  '20261125_001_ticket_list_index': listIndexMigration,
  '20261125_002_webhooks': webhooksMigration,
  '20261126_001_webhook_claim_indexes': webhookClaimIndexMigration,
  '20261127_001_barcode_bytes': barcodeBytesMigration,
  '20261127_001_orders': ordersMigration,
  '20261128_001_barcode_holders': barcodeHolderMigration,
  '20261128_002_money': moneyMigration,
  '20261128_003_cancellations': cancellationMigration,
  '20261128_004_coupons': couponMigration,
};

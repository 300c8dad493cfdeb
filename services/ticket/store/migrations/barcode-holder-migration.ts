import type { Knex } from '../../../../lib/db.js';
import { HOLDER_FIELDS } from '../../../../lib/fields/holder.js';

/**
 * A barcode's holder (PRODUCT.md 12 "Holders", lib/fields/holder.ts): both columns null, or
 * both set. Nullable, so the barcodes sold before have none; the table's utf8mb4 charset holds.
 */
export const barcodeHolderMigration: Knex.Migration = {
  async up(db) {
    await db.schema.alterTable('barcodes', (t) => {
      t.string('holder_name', HOLDER_FIELDS.name.kind.max).nullable();
      t.string('holder_email', HOLDER_FIELDS.email.kind.max).nullable();
    });
  },
  async down(db) {
    await db.schema.alterTable('barcodes', (t) => {
      t.dropColumn('holder_name');
      t.dropColumn('holder_email');
    });
  },
};

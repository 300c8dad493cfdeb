import { isMysql, type Knex } from '../../../../lib/db.js';

/**
 * A barcode is matched byte for byte (docs/stock-moves.md, "Barcodes"). `utf8mb4_bin` is a
 * PAD SPACE collation: MySQL and MariaDB compare `'ABCD '` equal to `'ABCD'`, so a scan of the
 * first admitted the second. A NO PAD binary collation compares every byte, trailing spaces
 * included: `utf8mb4_0900_bin` on MySQL 8, `utf8mb4_nopad_bin` on MariaDB. The unique index
 * (event_id, barcode) follows the column, so "ABCD", "ABCD " and "abcd" are three codes. SQLite
 * compares bytes already (its BINARY collation).
 */
const NO_PAD_BINARY = ['utf8mb4_0900_bin', 'utf8mb4_nopad_bin'];

async function alterBarcodeCollation(db: Knex, collation: string): Promise<void> {
  await db.raw(`ALTER TABLE barcodes MODIFY barcode VARCHAR(64) CHARACTER SET utf8mb4 COLLATE ${collation} NOT NULL`);
}

export const barcodeBytesMigration: Knex.Migration = {
  async up(db) {
    if (!isMysql(db)) return;
    const rows = (await db('information_schema.COLLATIONS').whereIn('COLLATION_NAME', NO_PAD_BINARY).select('COLLATION_NAME as name')) as Array<{ name: string }>;
    const collation = NO_PAD_BINARY.find((name) => rows.some((row) => row.name === name));
    if (!collation) throw new Error(`the database server has no NO PAD binary collation (${NO_PAD_BINARY.join(' or ')}): MySQL 8 or MariaDB 10.2 or newer is needed`);
    await alterBarcodeCollation(db, collation);
  },
  async down(db) {
    if (isMysql(db)) await alterBarcodeCollation(db, 'utf8mb4_bin');
  },
};

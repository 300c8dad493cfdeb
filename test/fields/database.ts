import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDatabase, migrationSource, type Knex } from '../../lib/db.js';
import { authMigrations } from '../../services/auth/store/migrations.js';
import { ticketMigrations } from '../../services/ticket/store/migrations/migrations.js';
import { replaceDatabase, withMysql } from '../support/resources.js';
import { testBackend } from '../support/stack.js';

const migrations = { auth: authMigrations, ticket: ticketMigrations };

/** A fresh database of one service, migrated to the latest, on the backend of this run; dropped after. */
export async function withMigratedDatabase(service: keyof typeof migrations, use: (db: Knex) => Promise<void>): Promise<void> {
  const config = { migrationSource: migrationSource(migrations[service]), tableName: 'knex_migrations' };
  const dir = mkdtempSync(path.join(tmpdir(), 'fields-'));
  let db: Knex;
  let drop = async (): Promise<unknown> => undefined;
  if (testBackend() === 'mysql') {
    const url = process.env.TEST_MYSQL_URL!;
    const name = `f${randomBytes(5).toString('hex')}`;
    await withMysql(url, (root) => root.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`));
    db = createDatabase({ url: replaceDatabase(url, name), sqliteFile: '', migrations: config });
    drop = () => withMysql(url, (root) => root.raw(`DROP DATABASE \`${name}\``));
  } else {
    db = createDatabase({ sqliteFile: path.join(dir, 'f.sqlite'), migrations: config });
  }
  try {
    await db.migrate.latest();
    await use(db);
  } finally {
    await db.destroy();
    await drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

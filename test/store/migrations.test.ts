import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createDatabase, migrationSource, type Knex } from '../../lib/db.js';
import { authMigrations } from '../../services/auth/store/migrations.js';
import { ticketMigrations } from '../../services/ticket/store/migrations.js';
import { replaceDatabase, testBackend, withMysql } from '../support/stack.js';

const sets = { auth: authMigrations, ticket: ticketMigrations };

/** Every migration set goes up, all the way down and up again, on the backend of this run. */
describe.each(Object.entries(sets))('%s migrations', (_name, migrations) => {
  it('run up, down and up again', async () => {
    const config = { migrationSource: migrationSource(migrations), tableName: 'knex_migrations' };
    const dir = mkdtempSync(path.join(tmpdir(), 'migrations-'));
    let db: Knex;
    let drop = async () => undefined as unknown;
    if (testBackend() === 'mysql') {
      const url = process.env.TEST_MYSQL_URL!;
      const name = `m${randomBytes(5).toString('hex')}`;
      await withMysql(url, (root) => root.raw(`CREATE DATABASE \`${name}\``));
      db = createDatabase({ url: replaceDatabase(url, name), sqliteFile: '', migrations: config });
      drop = () => withMysql(url, (root) => root.raw(`DROP DATABASE \`${name}\``));
    } else {
      db = createDatabase({ sqliteFile: path.join(dir, 'm.sqlite'), migrations: config });
    }
    try {
      const [, applied] = await db.migrate.latest();
      expect(applied).toEqual(Object.keys(migrations).sort());
      const tablesUp = await tables(db);
      await db.migrate.rollback(undefined, true);
      expect((await tables(db)).filter((t) => !t.startsWith('knex_'))).toEqual([]);
      await db.migrate.latest();
      expect(await tables(db)).toEqual(tablesUp);
    } finally {
      await db.destroy();
      await drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

async function tables(db: Knex): Promise<string[]> {
  if (db.client.config.client === 'mysql2') {
    const [rows] = await db.raw('SHOW TABLES');
    return (rows as Record<string, string>[]).map((r) => Object.values(r)[0]!).sort();
  }
  const rows = await db.raw("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  return (rows as { name: string }[]).map((r) => r.name).sort();
}

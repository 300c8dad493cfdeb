import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createDatabase, migrationSource, type Knex } from '../../lib/db.js';
import { migrateLatest } from '../../lib/migrate-latest.js';
import { authMigrations } from '../../services/auth/store/migrations.js';
import { ticketMigrations } from '../../services/ticket/store/migrations/migrations.js';
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

/**
 * Replicas started together all migrate on start. Knex alone lets two of them insert a lock row
 * each on a fresh database, after which every run reports "Migration table is already locked".
 */
describe('migrations started by several processes at once', () => {
  const config = { migrationSource: migrationSource(ticketMigrations), tableName: 'knex_migrations' };

  /** `count` separate connections pools (as separate processes have) to one fresh database. */
  async function freshDatabase(count: number) {
    const dir = mkdtempSync(path.join(tmpdir(), 'migrations-'));
    let open: () => Knex;
    let drop = async () => undefined as unknown;
    if (testBackend() === 'mysql') {
      const url = process.env.TEST_MYSQL_URL!;
      const name = `m${randomBytes(5).toString('hex')}`;
      await withMysql(url, (root) => root.raw(`CREATE DATABASE \`${name}\``));
      open = () => createDatabase({ url: replaceDatabase(url, name), sqliteFile: '', migrations: config });
      drop = () => withMysql(url, (root) => root.raw(`DROP DATABASE \`${name}\``));
    } else {
      open = () => createDatabase({ sqliteFile: path.join(dir, 'm.sqlite'), migrations: config });
    }
    const dbs = Array.from({ length: count }, open);
    return {
      dbs,
      async close() {
        await Promise.all(dbs.map((db) => db.destroy()));
        await drop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }

  // An embedded SQLite file belongs to one process (docs/scaling.md): no replicas to start together.
  it.runIf(testBackend() === 'mysql')('all succeed, each migration applied once, one lock row left unlocked', async () => {
    const { dbs, close } = await freshDatabase(4);
    try {
      const results = await Promise.all(dbs.map((db) => migrateLatest(db, 30_000)));
      const applied = results.flatMap(([, names]) => names).sort();
      expect(applied).toEqual(Object.keys(ticketMigrations).sort());
      const recorded = await dbs[0]!('knex_migrations').select('name');
      expect(recorded.map((r: { name: string }) => r.name).sort()).toEqual(Object.keys(ticketMigrations).sort());
      expect(await dbs[0]!('knex_migrations_lock').select('index', 'is_locked')).toEqual([{ index: 1, is_locked: 0 }]);
    } finally {
      await close();
    }
  }, 60_000);

  it('a database left with two lock rows by that race migrates again', async () => {
    const { dbs, close } = await freshDatabase(1);
    const db = dbs[0]!;
    try {
      await db.schema.createTable('knex_migrations_lock', (t) => {
        t.increments('index').primary();
        t.integer('is_locked');
      });
      await db('knex_migrations_lock').insert([{ is_locked: 0 }, { is_locked: 0 }]);
      await expect(db.migrate.latest()).rejects.toThrow(/already locked/);
      const [, applied] = await migrateLatest(db, 1000);
      expect(applied).toEqual(Object.keys(ticketMigrations).sort());
      expect(await db('knex_migrations_lock').select('index', 'is_locked')).toEqual([{ index: 1, is_locked: 0 }]);
    } finally {
      await close();
    }
  }, 60_000);
});

async function tables(db: Knex): Promise<string[]> {
  if (db.client.config.client === 'mysql2') {
    const [rows] = await db.raw('SHOW TABLES');
    return (rows as Record<string, string>[]).map((r) => Object.values(r)[0]!).sort();
  }
  const rows = await db.raw("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  return (rows as { name: string }[]).map((r) => r.name).sort();
}

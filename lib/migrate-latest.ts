import type { Knex } from './db.js';
import type { Logger } from './logger.js';

/** How long a starting process waits for another one's migration run before it gives up. */
export const MIGRATION_LOCK_WAIT_MS = 60_000;

const DEFAULT_MIGRATION_TABLE = 'knex_migrations';

/** Knex's LockError: the lock row is set, or (SQLite) another connection is writing right now. */
const lockHeld = (err: unknown) => err instanceof Error && err.name === 'MigrationLocked';

/**
 * `db.migrate.latest()`, safe for replicas that start together (docker compose --scale, a
 * Kubernetes scale-up), which all migrate on start:
 * - Knex creates its two tables and the lock row with check-then-act steps, so two processes on
 *   a fresh database can both insert a lock row; Knex then reports "already locked" forever
 *   (its lock update expects exactly one row). The tables and the single row are made here first,
 *   race-free, and a database left with extra lock rows by that race is repaired.
 * - With nothing to apply (every start but the first after an upgrade) the lock is not taken at
 *   all: Knex would write it anyway, and on SQLite that write fails at once while a running
 *   `npm start` or another CLI command writes.
 * - A process that finds the lock held waits instead of failing at once. A lock still held after
 *   `waitMs` (a run killed mid-way leaves it set) is an error as before.
 */
export async function migrateLatest(db: Knex, waitMs = MIGRATION_LOCK_WAIT_MS): Promise<[number, string[]]> {
  await ensureMigrationTables(db);
  const [, pending] = (await db.migrate.list()) as [unknown[], unknown[]];
  if (pending.length === 0) return [0, []];
  const deadline = Date.now() + waitMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return (await db.migrate.latest()) as [number, string[]];
    } catch (err) {
      if (!lockHeld(err) || Date.now() >= deadline) throw err;
      const backoff = Math.min(2000, 100 * 2 ** attempt) * (0.5 + Math.random() / 2);
      await new Promise((resolve) => setTimeout(resolve, Math.min(backoff, Math.max(0, deadline - Date.now()))));
    }
  }
}

/** Knex's migration table and lock table (the same columns Knex gives them), with exactly one lock row. */
export async function ensureMigrationTables(db: Knex): Promise<void> {
  const table = (db.client.config as Knex.Config).migrations?.tableName ?? DEFAULT_MIGRATION_TABLE;
  const lockTable = `${table}_lock`;
  await createTableOnce(db, table, (t) => {
    t.increments();
    t.string('name');
    t.integer('batch');
    t.timestamp('migration_time');
  });
  await createTableOnce(db, lockTable, (t) => {
    t.increments('index').primary();
    t.integer('is_locked');
  });
  const rows = (await db(lockTable).select('index')) as Array<{ index: number }>;
  if (rows.length === 1 && rows[0]!.index === 1) return;
  await db(lockTable).insert({ index: 1, is_locked: 0 }).onConflict('index').ignore();
  await db(lockTable).where('index', '>', 1).delete();
}

/** CREATE TABLE unless it exists; losing the race to another process is not an error. */
async function createTableOnce(db: Knex, name: string, columns: (t: Knex.CreateTableBuilder) => void): Promise<void> {
  if (await db.schema.hasTable(name)) return;
  try {
    await db.schema.createTable(name, columns);
  } catch (err) {
    if (!(await db.schema.hasTable(name))) throw err;
  }
}

/** migrateLatest, then what it applied said in the log (a service's first start, or its first after an upgrade). */
export async function migrateAndReport(db: Knex, database: string, logger: Pick<Logger, 'info'>): Promise<void> {
  const [, applied] = await migrateLatest(db);
  if (applied.length > 0) logger.info({ database, migrations: applied }, `migrated the ${database} database: ${applied.length} migration${applied.length === 1 ? '' : 's'} applied`);
}

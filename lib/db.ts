import { mkdirSync } from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import type { Logger } from './logger.js';

export type { Knex };

/** Connections per MySQL pool: one pool per database per process (docs/scaling.md sizes MySQL by it). */
export const MYSQL_POOL_MAX = 10;

/**
 * One Knex factory for both services: MySQL/MariaDB when a URL is given, otherwise an
 * embedded SQLite file under DATA_DIR. Timestamps are stored as UTC strings
 * 'YYYY-MM-DD HH:MM:SS.mmm' on both (DATETIME(3) on MySQL), so the code never depends
 * on a connection time zone.
 */
export function createDatabase(options: {
  url?: string;
  sqliteFile: string;
  migrations: Knex.MigratorConfig;
  logger?: Pick<Logger, 'debug' | 'warn'>;
  /** MySQL connections at most (default MYSQL_POOL_MAX); SQLite always has one. */
  poolMax?: number;
}): Knex {
  const log = knexLog(options.logger);
  if (options.url) {
    const url = new URL(options.url.replace(/^mysql2:/, 'mysql:'));
    return knexFactory({
      client: 'mysql2',
      connection: {
        host: url.hostname,
        port: url.port ? Number(url.port) : 3306,
        user: decodeURIComponent(url.username),
        password: decodeURIComponent(url.password),
        database: url.pathname.slice(1),
        timezone: 'Z',
        dateStrings: true,
        supportBigNumbers: true,
        charset: 'utf8mb4',
        connectTimeout: 5000,
      },
      pool: { min: 0, max: options.poolMax ?? MYSQL_POOL_MAX, acquireTimeoutMillis: 5000 },
      acquireConnectionTimeout: 5000,
      migrations: options.migrations,
      log,
    });
  }
  if (options.sqliteFile !== ':memory:') mkdirSync(path.dirname(options.sqliteFile), { recursive: true });
  return knexFactory({
    client: 'better-sqlite3',
    connection: { filename: options.sqliteFile },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      afterCreate: (conn: { pragma: (s: string) => void }, done: (err: Error | null, conn: unknown) => void) => {
        conn.pragma('journal_mode = WAL');
        conn.pragma('foreign_keys = ON');
        conn.pragma('busy_timeout = 5000');
        done(null, conn);
      },
    },
    migrations: options.migrations,
    log,
  });
}

/** Knex's own warnings (e.g. "Acquire connection error" with a stack) go to the logger, first line only, instead of stdout. */
function knexLog(logger: Pick<Logger, 'debug' | 'warn'> | undefined): Knex.Config['log'] {
  const firstLine = (message: unknown) => String(message).split('\n')[0];
  const sink = logger ?? { debug: () => undefined, warn: () => undefined };
  return {
    warn: (message: unknown) => sink.debug({ knex: firstLine(message) }, 'knex warning'),
    error: (message: unknown) => sink.warn({ knex: firstLine(message) }, 'knex error'),
    deprecate: (message: unknown) => sink.debug({ knex: firstLine(message) }, 'knex deprecation'),
    debug: () => undefined,
  };
}

export function isMysql(db: Knex): boolean {
  return db.client.config.client === 'mysql2';
}

/** Date -> 'YYYY-MM-DD HH:MM:SS.mmm' (UTC), the storage form on both backends. */
export function toDbTime(date: Date): string {
  return date.toISOString().replace('T', ' ').replace('Z', '');
}

export function fromDbTime(value: string | Date | null | undefined): Date | undefined {
  if (value === null || value === undefined) return undefined;
  if (value instanceof Date) return value;
  return new Date(`${value.replace(' ', 'T')}Z`);
}

export function fromDbBool(value: unknown): boolean {
  return value === 1 || value === true || value === '1';
}

/** True when the error is a unique-key violation on either backend. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; errno?: number };
  return e?.code === 'ER_DUP_ENTRY' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Migrations as code (no file globbing), so they run the same from TypeScript sources and from dist/. */
export function migrationSource(migrations: Record<string, Knex.Migration>): Knex.MigrationSource<string> {
  return {
    getMigrations: async () => Object.keys(migrations).sort(),
    getMigrationName: (name) => name,
    getMigration: async (name) => migrations[name]!,
  };
}

/** utf8mb4 tables on MySQL (MariaDB may default to latin1); SQLite stores UTF-8 anyway. */
export function utf8mb4(db: Knex, table: Knex.CreateTableBuilder): void {
  if (!isMysql(db)) return;
  table.charset('utf8mb4');
  table.collate('utf8mb4_unicode_ci');
}

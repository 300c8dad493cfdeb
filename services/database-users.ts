import type { Knex } from '../lib/db.js';

/** What one service's database URL names: its own user, password and schema. */
export interface ServiceDatabase {
  user: string;
  password: string;
  database: string;
}

export function serviceDatabaseOf(url: string): ServiceDatabase {
  const parsed = new URL(url.replace(/^mysql2:/, 'mysql:'));
  return { user: decodeURIComponent(parsed.username), password: decodeURIComponent(parsed.password), database: parsed.pathname.slice(1) };
}

/**
 * Makes each service's schema and its own MySQL user, which may do anything in that schema
 * and nothing outside it (docs/security.md, "What each process holds"). Run with an
 * administrator's connection (DATABASE_ADMIN_URL of the migration run); idempotent, and the
 * password follows the URL, so changing it there and migrating again changes it in MySQL.
 */
export async function ensureServiceDatabases(admin: Knex, databases: ServiceDatabase[]): Promise<void> {
  for (const { user, password, database } of databases) {
    await admin.raw('CREATE DATABASE IF NOT EXISTS ?? CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci', [database]);
    await admin.raw("CREATE USER IF NOT EXISTS ?@'%' IDENTIFIED BY ?", [user, password]);
    await admin.raw("ALTER USER ?@'%' IDENTIFIED BY ?", [user, password]);
    await admin.raw("GRANT ALL PRIVILEGES ON ??.* TO ?@'%'", [database, user]);
  }
}

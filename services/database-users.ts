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

/**
 * A user limited to some tables of a schema (the webhook worker's on the ticket schema): made or
 * given its password again, every right it had on the schema taken back, then exactly `rights`
 * (table -> privileges) and LOCK TABLES (which MySQL asks of a locking read) granted. Run after
 * the schema's migrations, when the tables exist.
 */
export async function ensureTableUser(admin: Knex, { user, password, database }: ServiceDatabase, rights: Readonly<Record<string, readonly string[]>>): Promise<void> {
  await admin.raw("CREATE USER IF NOT EXISTS ?@'%' IDENTIFIED BY ?", [user, password]);
  await admin.raw("ALTER USER ?@'%' IDENTIFIED BY ?", [user, password]);
  await admin.raw("REVOKE ALL PRIVILEGES, GRANT OPTION FROM ?@'%'", [user]);
  await admin.raw("GRANT LOCK TABLES ON ??.* TO ?@'%'", [database, user]);
  for (const [table, privileges] of Object.entries(rights)) {
    // Privilege names come from the code (WORKER_TABLE_RIGHTS), never from input.
    if (!privileges.every((p) => /^[A-Z ]+$/.test(p))) throw new Error(`not a privilege list: ${privileges.join(', ')}`);
    await admin.raw(`GRANT ${privileges.join(', ')} ON ??.?? TO ?@'%'`, [database, table, user]);
  }
}

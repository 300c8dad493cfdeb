import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config.js';
import { createDatabase } from '../../lib/db.js';
import { runMigrations } from '../../services/migrate.js';
import { replaceDatabase, withMysql } from '../support/resources.js';
import { testBackend } from '../support/stack.js';

/**
 * The migration run with DATABASE_ADMIN_URL (compose's migrate service, the Kubernetes Job)
 * makes each service's schema and its own user, limited to that schema. MySQL only: SQLite has
 * no users.
 */
describe.runIf(testBackend() === 'mysql')('database users made by the migration run', () => {
  const rootUrl = process.env.TEST_MYSQL_URL!;
  const id = `du${randomBytes(4).toString('hex')}`;
  const names = { authDb: `${id}_auth`, ticketDb: `${id}_tickets`, authUser: `${id}_a`, ticketUser: `${id}_t` };
  const password = () => randomBytes(16).toString('hex');
  const serviceUrl = (user: string, pass: string, database: string) => {
    const url = new URL(replaceDatabase(rootUrl, database));
    url.username = user;
    url.password = pass;
    return url.toString();
  };
  afterAll(() =>
    withMysql(rootUrl, async (db) => {
      for (const user of [names.authUser, names.ticketUser]) await db.raw("DROP USER IF EXISTS ?@'%'", [user]);
      for (const database of [names.authDb, names.ticketDb]) await db.raw('DROP DATABASE IF EXISTS ??', [database]);
    }),
  );

  /** The tables `url` can read in `database`, or the error MySQL answers. */
  const tablesAs = async (url: string, database: string): Promise<string[] | string> => {
    const db = createDatabase({ url, sqliteFile: ':memory:', migrations: {} });
    try {
      const [rows] = (await db.raw('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ?', [database])) as [Array<{ name: string }>];
      if (rows.length === 0) await db.raw('SELECT 1 FROM ??.knex_migrations LIMIT 1', [database]);
      return rows.map((row) => row.name);
    } catch (err) {
      return (err as { code?: string }).code ?? String(err);
    } finally {
      await db.destroy();
    }
  };

  it('creates both schemas and one user per service that reaches its own schema only; again with a new password', async () => {
    for (const round of [1, 2]) {
      const [authPassword, ticketPassword] = [password(), password()];
      const authUrl = serviceUrl(names.authUser, authPassword, names.authDb);
      const ticketUrl = serviceUrl(names.ticketUser, ticketPassword, names.ticketDb);
      const config = loadConfig({ AUTH_DATABASE_URL: authUrl, TICKET_DATABASE_URL: ticketUrl, DATABASE_ADMIN_URL: replaceDatabase(rootUrl, 'mysql') }, 'migrate');
      const result = await runMigrations(config);
      if (round === 1) expect(result.auth.length, 'migrated as the new users').toBeGreaterThan(0);
      expect(await tablesAs(authUrl, names.authDb), `round ${round}`).toContain('knex_migrations');
      expect(await tablesAs(ticketUrl, names.ticketDb)).toContain('knex_migrations');
      // Each user sees nothing of the other schema: MySQL refuses it.
      expect(await tablesAs(serviceUrl(names.authUser, authPassword, names.authDb), names.ticketDb)).toMatch(/ACCESS_DENIED/);
      expect(await tablesAs(authUrl.replace(names.authDb, names.ticketDb), names.ticketDb)).toMatch(/ACCESS_DENIED/);
      expect(await tablesAs(ticketUrl.replace(names.ticketDb, names.authDb), names.authDb)).toMatch(/ACCESS_DENIED/);
    }
  });

  it('refuses DATABASE_ADMIN_URL without the two service URLs whose users it would make', async () => {
    const config = loadConfig({ DATABASE_ADMIN_URL: replaceDatabase(rootUrl, 'mysql') }, 'migrate');
    await expect(runMigrations(config)).rejects.toThrow(/DATABASE_ADMIN_URL: needs AUTH_DATABASE_URL and TICKET_DATABASE_URL/);
  });
});

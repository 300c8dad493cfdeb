/**
 * Runs the auth and ticket migrations on the configured databases, then exits:
 * `node dist/services/migrate.js` (the compose one-shot `migrate` service) or
 * `ticketing migrate` (the admin CLI). The services also migrate on boot; Knex's lock table
 * makes concurrent runs safe, so this only moves the work (and its failures) before them.
 */
import { ConfigError, type Config } from '../lib/config.js';
import { createDatabase, type Knex } from '../lib/db.js';
import { ensureServiceDatabases, ensureTableUser, serviceDatabaseOf } from './database-users.js';
import { WORKER_TABLE_RIGHTS } from './webhooks/delivery-store.js';
import { createLogger, type Logger } from '../lib/logger.js';
import { openAuthDatabase } from './auth/server.js';
import { AuthStore } from './auth/store/auth-store.js';
import { loadConfigOrExit } from '../lib/process/entrypoint.js';
import { isMain } from '../lib/process/is-main.js';
import { openTicketDatabase } from './ticket/server.js';
import { migrateLatest } from '../lib/migrate-latest.js';

export interface MigrationResult {
  /** Migrations applied by this run (empty when the database was already up to date). */
  auth: string[];
  ticket: string[];
}

export async function runMigrations(config: Config, logger?: Pick<Logger, 'debug' | 'warn'>): Promise<MigrationResult> {
  if (config.DATABASE_ADMIN_URL) await createServiceUsers(config, logger);
  const auth = await migrate(openAuthDatabase(config, logger), async (db) => {
    // The default whitelabel belongs to the schema's initial state: made here too, not only at first start.
    await new AuthStore(db).ensureWhitelabel(config.DEFAULT_WHITELABEL_NAME);
  });
  const ticket = await migrate(openTicketDatabase(config, logger));
  // The webhook worker's user gets its tables' rights once the tables exist.
  if (config.DATABASE_ADMIN_URL && config.WEBHOOK_DATABASE_URL) await createWorkerUser(config, logger);
  return { auth, ticket };
}

/** With DATABASE_ADMIN_URL and WEBHOOK_DATABASE_URL: the worker's user, on the ticket schema's outbox tables only. */
async function createWorkerUser(config: Config, logger?: Pick<Logger, 'debug' | 'warn'>): Promise<void> {
  const worker = serviceDatabaseOf(config.WEBHOOK_DATABASE_URL!);
  const ticket = serviceDatabaseOf(config.TICKET_DATABASE_URL!);
  if (worker.database !== ticket.database) throw new ConfigError([`WEBHOOK_DATABASE_URL: must name the ticket service's database (${ticket.database}), where the outbox is`]);
  if (worker.user === ticket.user) throw new ConfigError(['WEBHOOK_DATABASE_URL: must name a user of its own, not the ticket service\'s']);
  const admin = createDatabase({ url: config.DATABASE_ADMIN_URL, sqliteFile: ':memory:', migrations: {}, logger });
  try {
    await ensureTableUser(admin, worker, WORKER_TABLE_RIGHTS);
  } finally {
    await admin.destroy();
  }
}

/** With DATABASE_ADMIN_URL: each service's schema and user, before migrating as that user. */
async function createServiceUsers(config: Config, logger?: Pick<Logger, 'debug' | 'warn'>): Promise<void> {
  const urls = [config.AUTH_DATABASE_URL, config.TICKET_DATABASE_URL];
  if (urls.some((url) => !url)) throw new ConfigError(['DATABASE_ADMIN_URL: needs AUTH_DATABASE_URL and TICKET_DATABASE_URL (the users it creates)']);
  const admin = createDatabase({ url: config.DATABASE_ADMIN_URL, sqliteFile: ':memory:', migrations: {}, logger });
  try {
    await ensureServiceDatabases(admin, urls.map((url) => serviceDatabaseOf(url!)));
  } finally {
    await admin.destroy();
  }
}

async function migrate(db: Knex, after?: (db: Knex) => Promise<void>): Promise<string[]> {
  try {
    const [, applied] = await migrateLatest(db);
    await after?.(db);
    return applied;
  } finally {
    await db.destroy();
  }
}

if (isMain(import.meta.url)) {
  const config = loadConfigOrExit('migrate');
  const logger = createLogger('migrate', config.LOG_LEVEL);
  runMigrations(config, logger).then(
    (result) => {
      logger.info({ applied: result }, 'migrations are up to date');
      process.exit(0);
    },
    (err: unknown) => {
      logger.error({ err: err instanceof Error ? err.message : String(err) }, 'migrations failed');
      process.exit(1);
    },
  );
}

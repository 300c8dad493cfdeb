import { pino, type Logger } from 'pino';
import type { Config } from '../../lib/config.js';
import type { Knex } from '../../lib/db.js';
import { createAuthService, openAuthDatabase, type AuthComponents } from '../auth/server.js';
import { MemorySessionCache } from '../auth/session-cache.js';
import type { UserRow } from '../auth/store/auth-store.js';
import { CliError } from './command.js';
import { migrateLatest } from '../../lib/migrate-latest.js';

/**
 * What a command works on: the configuration of the services (same environment), and the
 * auth database opened and migrated on first use. close() releases everything.
 */
export class CliContext {
  readonly logger: Logger;
  private db?: Knex;
  private components?: Promise<AuthComponents>;

  constructor(
    readonly config: Config,
    private readonly options: { withSessionCache?: boolean } = {},
  ) {
    // Logs go to stderr so that stdout holds only the command's result; quiet unless LOG_LEVEL is set.
    this.logger = pino({ name: 'cli', level: process.env.LOG_LEVEL ? config.LOG_LEVEL : 'warn' }, pino.destination(2));
  }

  /**
   * The auth service's rules on the auth database. Operators may create users even when public
   * sign-up is off. The session cache is the configured one (Redis) only for commands that
   * declare `withSessionCache` (revocations must reach it); otherwise a throw-away in-process one.
   */
  auth(): Promise<AuthComponents> {
    this.components ??= (async () => {
      const db = openAuthDatabase(this.config, this.logger);
      this.db = db;
      await migrateLatest(db);
      const config = { ...this.config, SIGNUP_ENABLED: true };
      return createAuthService(config, db, this.logger, {
        cache: this.options.withSessionCache ? undefined : new MemorySessionCache(this.config.SESSION_CACHE_TTL_SECONDS),
      });
    })();
    return this.components;
  }

  async userByEmail(email: string): Promise<UserRow> {
    const { store } = await this.auth();
    const user = await store.findUserByEmail(email.trim());
    if (!user) throw new CliError(`no user with e-mail ${email.trim()}`);
    return user;
  }

  async close(): Promise<void> {
    const components = await this.components?.catch(() => undefined);
    await components?.cache.close().catch(() => undefined);
    await this.db?.destroy().catch(() => undefined);
  }
}

import { utf8mb4, type Knex } from '../../../lib/db.js';

/** The auth database: users, companies and who belongs where, sessions and their refresh tokens, API clients. */

const initial: Knex.Migration = {
  async up(db) {
    await db.schema.createTable('whitelabels', (t) => {
      utf8mb4(db, t);
      t.string('guid', 36).primary();
      t.string('name', 255).notNullable().unique();
      t.datetime('created_at', { precision: 3 }).notNullable();
    });
    await db.schema.createTable('companies', (t) => {
      utf8mb4(db, t);
      t.string('guid', 36).primary();
      t.string('name', 255).notNullable();
      t.datetime('created_at', { precision: 3 }).notNullable();
      t.datetime('updated_at', { precision: 3 }).notNullable();
    });
    await db.schema.createTable('users', (t) => {
      utf8mb4(db, t);
      t.string('guid', 36).primary();
      t.string('whitelabel_id', 36).notNullable().references('guid').inTable('whitelabels');
      t.string('default_company_id', 36).notNullable().references('guid').inTable('companies');
      t.string('name', 255).notNullable();
      t.string('email', 320).notNullable().unique();
      t.string('phone', 64).nullable();
      t.string('password_hash', 255).notNullable();
      t.datetime('created_at', { precision: 3 }).notNullable();
      t.datetime('updated_at', { precision: 3 }).notNullable();
      t.datetime('deleted_at', { precision: 3 }).nullable();
    });
    await db.schema.createTable('memberships', (t) => {
      utf8mb4(db, t);
      t.string('user_id', 36).notNullable().references('guid').inTable('users');
      t.string('company_id', 36).notNullable().references('guid').inTable('companies');
      t.datetime('created_at', { precision: 3 }).notNullable();
      t.primary(['user_id', 'company_id']);
      t.index(['company_id']);
    });
    await db.schema.createTable('api_clients', (t) => {
      utf8mb4(db, t);
      t.string('client_id', 36).primary();
      t.string('user_id', 36).notNullable().references('guid').inTable('users');
      t.string('name', 255).notNullable();
      t.string('secret_hash', 64).notNullable();
      t.datetime('created_at', { precision: 3 }).notNullable();
      t.datetime('revoked_at', { precision: 3 }).nullable();
      t.index(['user_id']);
    });
    await db.schema.createTable('sessions', (t) => {
      utf8mb4(db, t);
      t.string('guid', 36).primary();
      t.string('user_id', 36).notNullable().references('guid').inTable('users');
      t.string('client_id', 36).nullable();
      // JSON array of the company GUIDs the token was issued for.
      t.text('company_ids').notNullable();
      t.datetime('created_at', { precision: 3 }).notNullable();
      t.datetime('expires_at', { precision: 3 }).notNullable();
      t.datetime('revoked_at', { precision: 3 }).nullable();
      t.index(['user_id']);
    });
    await db.schema.createTable('refresh_tokens', (t) => {
      utf8mb4(db, t);
      // sha256 of the token: the token itself is never stored.
      t.string('token_hash', 64).primary();
      t.string('session_id', 36).notNullable().references('guid').inTable('sessions');
      t.datetime('created_at', { precision: 3 }).notNullable();
      t.datetime('expires_at', { precision: 3 }).notNullable();
      t.datetime('used_at', { precision: 3 }).nullable();
      t.index(['session_id']);
    });
  },
  async down(db) {
    for (const table of ['refresh_tokens', 'sessions', 'api_clients', 'memberships', 'users', 'companies', 'whitelabels']) {
      await db.schema.dropTableIfExists(table);
    }
  },
};

/** API clients are limited to the companies of the request that created them. */
const apiClientCompanies: Knex.Migration = {
  async up(db) {
    await db.schema.alterTable('api_clients', (t) => {
      // JSON array of company GUIDs; clients made before this migration cover none until re-created.
      t.text('company_ids').notNullable().defaultTo('[]');
    });
  },
  async down(db) {
    await db.schema.alterTable('api_clients', (t) => {
      t.dropColumn('company_ids');
    });
  },
};

/**
 * Every revocation as a row with an increasing sequence: the shared source every auth replica
 * tails to push revocations to the services (WatchRevocations). Rows outlive the last access
 * token they could concern and are then pruned.
 */
const revocations: Knex.Migration = {
  async up(db) {
    await db.schema.createTable('revocations', (t) => {
      utf8mb4(db, t);
      t.bigIncrements('sequence').primary();
      t.string('session_id', 36).notNullable();
      t.datetime('revoked_at', { precision: 3 }).notNullable();
      t.index(['revoked_at']);
    });
  },
  async down(db) {
    await db.schema.dropTableIfExists('revocations');
  },
};

/**
 * Where each account signed in from lately, by a keyed digest of account and address (never
 * either in clear): the account-wide failed-attempt limit does not apply there
 * (services/auth/domain/known-addresses.ts). Rows are refreshed on each sign-in and pruned
 * after KNOWN_FOR_SECONDS.
 */
const signInAddresses: Knex.Migration = {
  async up(db) {
    await db.schema.createTable('sign_in_addresses', (t) => {
      utf8mb4(db, t);
      t.string('digest', 64).primary();
      t.datetime('signed_in_at', { precision: 3 }).notNullable();
      t.index(['signed_in_at']);
    });
  },
  async down(db) {
    await db.schema.dropTableIfExists('sign_in_addresses');
  },
};

export const authMigrations: Record<string, Knex.Migration> = {
  '20261122_001_initial': initial,
  '20261122_002_api_client_companies': apiClientCompanies,
  '20261123_003_revocations': revocations,
  '20261126_004_sign_in_addresses': signInAddresses,
};

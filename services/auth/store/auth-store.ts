import { fromDbTime, isUniqueViolation, toDbTime, type Knex } from '../../../lib/db.js';
import type { FieldRole, ValuesOf } from '../../../lib/fields/kinds.js';
import { rowFromValues, valuesFromRow } from '../../../lib/fields/rows.js';
import { USER_FIELDS } from '../../../lib/fields/user.js';
import { newGuid } from '../../../lib/ids.js';

type UserValues = ValuesOf<typeof USER_FIELDS, FieldRole>;

/** A user: the fields of lib/fields/user.ts plus the password hash, which never leaves the service. */
export type UserRow = UserValues & { password_hash: string };

/** The fields the service decides for a new user (the store adds the ids and the times). */
export type NewUser = Partial<UserValues>;

export interface CompanyRow {
  guid: string;
  name: string;
  created_at: Date;
  updated_at: Date;
}

export interface SessionRow {
  guid: string;
  user_id: string;
  client_id: string | null;
  company_ids: string[];
  expires_at: Date;
  revoked_at?: Date;
}

export interface RefreshTokenRow {
  token_hash: string;
  session_id: string;
  expires_at: Date;
  used_at?: Date;
}

export interface ApiClientRow {
  client_id: string;
  user_id: string;
  name: string;
  secret_hash: string;
  /** The companies its tokens may cover. */
  company_ids: string[];
  created_at: Date;
  revoked_at?: Date;
}

const toApiClient = (r: Raw): ApiClientRow => ({
  client_id: r.client_id as string,
  user_id: r.user_id as string,
  name: r.name as string,
  secret_hash: r.secret_hash as string,
  company_ids: JSON.parse((r.company_ids as string | null) ?? '[]') as string[],
  created_at: fromDbTime(r.created_at as string)!,
  revoked_at: fromDbTime(r.revoked_at as string | null),
});

export class DuplicateEmailError extends Error {}

type Raw = Record<string, unknown>;

const toUser = (r: Raw): UserRow => ({ ...valuesFromRow<UserValues>(USER_FIELDS, r), password_hash: r.password_hash as string });

const toCompany = (r: Raw): CompanyRow => ({
  guid: r.guid as string,
  name: r.name as string,
  created_at: fromDbTime(r.created_at as string)!,
  updated_at: fromDbTime(r.updated_at as string)!,
});

/** All SQL of the auth service. Emails are stored lower-cased; times as UTC. */
export class AuthStore {
  constructor(private readonly db: Knex) {}

  async ensureWhitelabel(name: string): Promise<string> {
    const existing = await this.db('whitelabels').where({ name }).first('guid');
    if (existing) return existing.guid as string;
    try {
      const guid = newGuid();
      await this.db('whitelabels').insert({ guid, name, created_at: toDbTime(new Date()) });
      return guid;
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const row = await this.db('whitelabels').where({ name }).first('guid');
      return row.guid as string;
    }
  }

  /**
   * Creates the user (the values the service decided), its first company and the membership
   * in one transaction. The store adds the ids and times; the first company becomes the
   * user's default company.
   */
  async createUserWithCompany(user: NewUser, passwordHash: string, companyName: string): Promise<UserRow> {
    const now = new Date();
    const companyId = newGuid();
    const userId = newGuid();
    const stored: NewUser = { ...user, guid: userId, default_company_id: companyId, created_at: now, updated_at: now };
    try {
      await this.db.transaction(async (trx) => {
        await trx('companies').insert({ guid: companyId, name: companyName, created_at: toDbTime(now), updated_at: toDbTime(now) });
        await trx('users').insert({ ...rowFromValues(USER_FIELDS, stored), password_hash: passwordHash });
        await trx('memberships').insert({ user_id: userId, company_id: companyId, created_at: toDbTime(now) });
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new DuplicateEmailError();
      throw err;
    }
    return (await this.findUser(userId))!;
  }

  async findUser(guid: string): Promise<UserRow | undefined> {
    const row = await this.db('users').where({ guid }).whereNull('deleted_at').first();
    return row ? toUser(row) : undefined;
  }

  async findUserByEmail(email: string): Promise<UserRow | undefined> {
    const row = await this.db('users').where({ email: email.toLowerCase() }).whereNull('deleted_at').first();
    return row ? toUser(row) : undefined;
  }

  async companyIdsOf(userId: string): Promise<string[]> {
    const rows = await this.db('memberships').where({ user_id: userId }).orderBy('created_at').orderBy('company_id').select('company_id');
    return rows.map((r) => r.company_id as string);
  }

  async companies(guids: string[]): Promise<CompanyRow[]> {
    if (guids.length === 0) return [];
    const rows = await this.db('companies').whereIn('guid', guids).orderBy('created_at').orderBy('guid');
    return rows.map(toCompany);
  }

  async createCompany(userId: string, name: string): Promise<CompanyRow> {
    const now = toDbTime(new Date());
    const guid = newGuid();
    await this.db.transaction(async (trx) => {
      await trx('companies').insert({ guid, name, created_at: now, updated_at: now });
      await trx('memberships').insert({ user_id: userId, company_id: guid, created_at: now });
    });
    return (await this.companies([guid]))[0]!;
  }

  async addMember(userId: string, companyId: string): Promise<void> {
    try {
      await this.db('memberships').insert({ user_id: userId, company_id: companyId, created_at: toDbTime(new Date()) });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
  }

  async createSession(input: { userId: string; clientId: string | null; companyIds: string[]; expiresAt: Date }): Promise<string> {
    const guid = newGuid();
    await this.db('sessions').insert({
      guid,
      user_id: input.userId,
      client_id: input.clientId,
      company_ids: JSON.stringify(input.companyIds),
      created_at: toDbTime(new Date()),
      expires_at: toDbTime(input.expiresAt),
    });
    return guid;
  }

  async findSession(guid: string): Promise<SessionRow | undefined> {
    const row = await this.db('sessions').where({ guid }).first();
    if (!row) return undefined;
    return {
      guid: row.guid,
      user_id: row.user_id,
      client_id: row.client_id ?? null,
      company_ids: JSON.parse(row.company_ids) as string[],
      expires_at: fromDbTime(row.expires_at)!,
      revoked_at: fromDbTime(row.revoked_at),
    };
  }

  async extendSession(guid: string, expiresAt: Date): Promise<void> {
    await this.db('sessions').where({ guid }).whereNull('revoked_at').update({ expires_at: toDbTime(expiresAt) });
  }

  /** Every revocation goes through here: the sessions row and the revocations feed change together. */
  private async markRevoked(trx: Knex.Transaction, guids: string[], now: string): Promise<string[]> {
    const revoked: string[] = [];
    for (const guid of guids) {
      if (await trx('sessions').where({ guid }).whereNull('revoked_at').update({ revoked_at: now })) revoked.push(guid);
    }
    if (revoked.length) await trx('revocations').insert(revoked.map((session_id) => ({ session_id, revoked_at: now })));
    return revoked;
  }

  async revokeSession(guid: string): Promise<void> {
    await this.db.transaction((trx) => this.markRevoked(trx, [guid], toDbTime(new Date())));
  }

  /** Revokes every live session of a user; returns their ids so that caches can drop them. */
  async revokeSessionsOfUser(userId: string): Promise<string[]> {
    return this.db.transaction(async (trx) => {
      const rows = await trx('sessions').where({ user_id: userId }).whereNull('revoked_at').select('guid');
      return this.markRevoked(trx, rows.map((r) => r.guid as string), toDbTime(new Date()));
    });
  }

  /** The revocations after `sequence`, oldest first. */
  async revocationsAfter(sequence: number, limit: number): Promise<Array<{ sequence: number; session_id: string }>> {
    const rows = await this.db('revocations').where('sequence', '>', sequence).orderBy('sequence').limit(limit).select('sequence', 'session_id');
    return rows.map((r) => ({ sequence: Number(r.sequence), session_id: r.session_id as string }));
  }

  /** The newest revocation sequence (0 when there is none). */
  async lastRevocation(): Promise<number> {
    const row = await this.db('revocations').max({ last: 'sequence' }).first();
    return Number(row?.last ?? 0);
  }

  /** Records a sign-in under `digest` (account and address), now. */
  async recordSignIn(digest: string, at: Date): Promise<void> {
    await this.db('sign_in_addresses').insert({ digest, signed_in_at: toDbTime(at) }).onConflict('digest').merge(['signed_in_at']);
  }

  /** True when a sign-in under `digest` was recorded at or after `since`. */
  async signedInSince(digest: string, since: Date): Promise<boolean> {
    return (await this.db('sign_in_addresses').where('digest', digest).where('signed_in_at', '>=', toDbTime(since)).first('digest')) !== undefined;
  }

  /** Forgets sign-ins recorded before `before`. */
  async pruneSignIns(before: Date): Promise<void> {
    await this.db('sign_in_addresses').where('signed_in_at', '<', toDbTime(before)).delete();
  }

  /** Forgets revocations older than `before` (no token they could concern is still valid). */
  async pruneRevocations(before: Date): Promise<void> {
    await this.db('revocations').where('revoked_at', '<', toDbTime(before)).delete();
  }

  async storeRefreshToken(input: { tokenHash: string; sessionId: string; expiresAt: Date }): Promise<void> {
    await this.db('refresh_tokens').insert({
      token_hash: input.tokenHash,
      session_id: input.sessionId,
      created_at: toDbTime(new Date()),
      expires_at: toDbTime(input.expiresAt),
    });
  }

  async findRefreshToken(tokenHash: string): Promise<RefreshTokenRow | undefined> {
    const row = await this.db('refresh_tokens').where({ token_hash: tokenHash }).first();
    if (!row) return undefined;
    return { token_hash: row.token_hash, session_id: row.session_id, expires_at: fromDbTime(row.expires_at)!, used_at: fromDbTime(row.used_at) };
  }

  /** Marks a refresh token used; false when it already was (a concurrent or replayed use). */
  async consumeRefreshToken(tokenHash: string): Promise<boolean> {
    const changed = await this.db('refresh_tokens').where({ token_hash: tokenHash }).whereNull('used_at').update({ used_at: toDbTime(new Date()) });
    return changed === 1;
  }

  async createApiClient(input: { clientId: string; userId: string; name: string; secretHash: string; companyIds: string[] }): Promise<ApiClientRow> {
    const now = new Date();
    await this.db('api_clients').insert({
      client_id: input.clientId,
      user_id: input.userId,
      name: input.name,
      secret_hash: input.secretHash,
      company_ids: JSON.stringify(input.companyIds),
      created_at: toDbTime(now),
    });
    return (await this.findApiClient(input.clientId))!;
  }

  async findApiClient(clientId: string): Promise<ApiClientRow | undefined> {
    const row = await this.db('api_clients').where({ client_id: clientId }).whereNull('revoked_at').first();
    return row ? toApiClient(row) : undefined;
  }

  async apiClientsOf(userId: string): Promise<ApiClientRow[]> {
    const rows = await this.db('api_clients').where({ user_id: userId }).whereNull('revoked_at').orderBy('created_at').orderBy('client_id');
    return rows.map(toApiClient);
  }

  /** Revokes the client and every live session it opened; returns the session ids (for the cache), or undefined when it is not the user's. */
  async revokeApiClient(userId: string, clientId: string): Promise<string[] | undefined> {
    return this.db.transaction(async (trx) => {
      const now = toDbTime(new Date());
      const changed = await trx('api_clients').where({ client_id: clientId, user_id: userId }).whereNull('revoked_at').update({ revoked_at: now });
      if (changed === 0) return undefined;
      const sessions = await trx('sessions').where({ client_id: clientId }).whereNull('revoked_at').select('guid');
      return this.markRevoked(trx, sessions.map((r) => r.guid as string), now);
    });
  }

  async ping(): Promise<void> {
    await this.db.raw('select 1');
  }
}

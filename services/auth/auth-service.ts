import { status } from '@grpc/grpc-js';
import { isDependencyDown } from '../../lib/dependency-down.js';
import { effectiveCompanies } from '../../lib/effective-companies.js';
import { missingTokenError, sessionEndedError } from '../../lib/grpc/caller.js';
import { RpcError } from '../../lib/grpc/errors.js';
import { isGuid, newGuid } from '../../lib/ids.js';
import { sessionCacheLookups } from '../../lib/metrics.js';
import { User, type ApiClient, type Company, type CreateApiClientResponse, type IssueTokenRequest, type IssueTokenResponse, type SignUpRequest } from '../../lib/gen/auth/v1/auth.js';
import { toMessageFields } from '../../lib/fields/messages.js';
import { USER_FIELDS } from '../../lib/fields/user.js';
import type { AccessTokens } from './domain/access-tokens.js';
import { requestedTokenCompanies, withinCompanies } from './domain/company-scope.js';
import { DUMMY_PASSWORD_HASH, hashPassword, newSecret, sha256, verifyPassword } from './domain/passwords.js';
import type { TokenAccount, TokenRateLimits } from './domain/rate-limiter.js';
import { signUpValues } from './domain/sign-up-rules.js';
import { checkedName } from './domain/text-rules.js';
import type { RevocationFeed } from './revocation-feed.js';
import type { SessionCache } from './session-cache.js';
import { DuplicateEmailError, type AuthStore, type ApiClientRow, type CompanyRow, type UserRow } from './store/auth-store.js';

export interface AuthSettings {
  signupEnabled: boolean;
  whitelabelId: string;
  refreshTokenTtlSeconds: number;
  /** The public path of the token endpoint (AUTH_PATH_PREFIX + /tokens), for messages that send a client there. */
  tokenPath: string;
}

export interface Caller {
  userId: string;
  sessionId: string;
  /** The API client whose client_credentials grant opened the session; null for the user's own session. */
  clientId: string | null;
  companyIds: string[];
  expiresAt: Date;
}

/** OAuth2 errors travel as ErrorInfo.reason so the gateway can answer with RFC 6749 bodies. */
const oauthError = (code: status, reason: string, message: string, retryAfterSeconds?: number) =>
  new RpcError(code, message, { reason, retryAfterSeconds });
const invalidGrant = (message: string) => oauthError(status.INVALID_ARGUMENT, 'invalid_grant', message);

/** The rules of the auth service: accounts, tokens, sessions and company scopes. */
export class AuthService {
  constructor(
    private readonly store: AuthStore,
    private readonly cache: SessionCache,
    private readonly tokens: AccessTokens,
    private readonly limits: TokenRateLimits,
    private readonly settings: AuthSettings,
    /** The revocations every replica made, read from the shared table (not started in the admin CLI). */
    private readonly revocations?: RevocationFeed,
  ) {}

  async signUp(input: SignUpRequest): Promise<User> {
    if (!this.settings.signupEnabled) throw new RpcError(status.PERMISSION_DENIED, 'Sign-up is disabled on this installation.');
    // The first company is named after the user when no name is given (checked as its name).
    const { values, violations } = signUpValues({ ...input, company_name: input.company_name?.trim() || input.name });
    if (violations.length) throw RpcError.invalidArgument(violations);
    const { password, company_name, ...profile } = values;
    try {
      const user = await this.store.createUserWithCompany({ ...profile, whitelabel_id: this.settings.whitelabelId }, await hashPassword(password), company_name ?? profile.name);
      return toUser(user);
    } catch (err) {
      if (err instanceof DuplicateEmailError) throw new RpcError(status.ALREADY_EXISTS, 'A user with this e-mail address already exists.');
      throw err;
    }
  }

  async issueToken(request: IssueTokenRequest, clientAddress: string): Promise<IssueTokenResponse> {
    this.tooMany(await this.limits.countRequest(clientAddress));
    switch (request.grant_type) {
      case 'password':
        return this.passwordGrant(request, clientAddress);
      case 'refresh_token':
        return this.refreshGrant(request, clientAddress);
      case 'client_credentials':
        return this.clientCredentialsGrant(request, clientAddress);
      case '':
        throw oauthError(status.INVALID_ARGUMENT, 'invalid_request', 'grant_type is required.');
      default:
        throw oauthError(status.INVALID_ARGUMENT, 'unsupported_grant_type', 'grant_type must be password, refresh_token or client_credentials.');
    }
  }

  private async passwordGrant(request: IssueTokenRequest, clientAddress: string): Promise<IssueTokenResponse> {
    if (!request.username || !request.password) {
      throw oauthError(status.INVALID_ARGUMENT, 'invalid_request', 'username and password are required.');
    }
    await this.checkSentClient(request, clientAddress);
    // Counted per user, not per spelling: the database's collation matches other spellings of
    // an e-mail address (case, accents, full-width forms) to the same user.
    const user = await this.store.findUserByEmail(request.username.trim());
    const account: TokenAccount = { kind: 'user', id: user?.guid ?? request.username.trim().toLowerCase() };
    this.tooMany(await this.limits.failuresRetryAfter(account, clientAddress));
    const passwordOk = await verifyPassword(request.password, user?.password_hash ?? DUMMY_PASSWORD_HASH);
    if (!user || !passwordOk) {
      await this.limits.recordFailure(account, clientAddress);
      throw invalidGrant('The user name or password is incorrect.');
    }
    await this.limits.recordSuccess(account, clientAddress);
    return this.startSession(user, null, request.company_id, true);
  }

  /**
   * RFC 6749 3.2.1: a client that authenticates (a client id or secret sent, in HTTP Basic or
   * the body) must be authenticated, whatever the grant (issue 32, item 15): the password and
   * refresh_token grants take no client, but credentials that are sent and wrong are 401
   * invalid_client, as with client_credentials. The session is not bound to the client (an API
   * client's own sessions are the client_credentials grant's).
   */
  private async checkSentClient(request: IssueTokenRequest, clientAddress: string): Promise<void> {
    if (request.client_id || request.client_secret) await this.authenticatedClient(request, clientAddress);
  }

  /** The API client and its owner that the request's client_id and client_secret authenticate; 401 invalid_client otherwise. */
  private async authenticatedClient(request: IssueTokenRequest, clientAddress: string): Promise<{ client: ApiClientRow; user: UserRow }> {
    if (!request.client_id || !request.client_secret) {
      throw oauthError(status.UNAUTHENTICATED, 'invalid_client', 'client_id and client_secret are required.');
    }
    // An unreadable client id is an unknown client; a database that is down is not (503, and no failure counted).
    const client = await this.store.findApiClient(request.client_id.trim().toLowerCase()).catch((err: unknown) => {
      if (isDependencyDown(err)) throw err;
      return undefined;
    });
    const account: TokenAccount = { kind: 'client', id: client?.client_id ?? request.client_id.trim().toLowerCase() };
    this.tooMany(await this.limits.failuresRetryAfter(account, clientAddress));
    const secretOk = client !== undefined && client.secret_hash === sha256(request.client_secret);
    const user = secretOk ? await this.store.findUser(client.user_id) : undefined;
    if (!client || !user) {
      await this.limits.recordFailure(account, clientAddress);
      throw oauthError(status.UNAUTHENTICATED, 'invalid_client', 'Client authentication failed.');
    }
    await this.limits.recordSuccess(account, clientAddress);
    return { client, user };
  }

  private async clientCredentialsGrant(request: IssueTokenRequest, clientAddress: string): Promise<IssueTokenResponse> {
    const { client, user } = await this.authenticatedClient(request, clientAddress);
    // A client never gets more than the companies it was created for (and the user still belongs to).
    return this.startSession(user, client.client_id, request.company_id || '*', false, client.company_ids);
  }

  private async refreshGrant(request: IssueTokenRequest, clientAddress: string): Promise<IssueTokenResponse> {
    if (!request.refresh_token) throw oauthError(status.INVALID_ARGUMENT, 'invalid_request', 'refresh_token is required.');
    await this.checkSentClient(request, clientAddress);
    const tokenHash = sha256(request.refresh_token);
    const stored = await this.store.findRefreshToken(tokenHash);
    if (!stored) throw invalidGrant('The refresh token is invalid.');
    const session = await this.store.findSession(stored.session_id);
    if (!session || session.revoked_at || stored.expires_at <= new Date()) throw invalidGrant('The refresh token is invalid or expired.');
    if (stored.used_at || !(await this.store.consumeRefreshToken(tokenHash))) {
      // A refresh token used twice was copied: end the whole session (OAuth 2.0 Security BCP 4.14).
      await this.revokeSession(session.guid);
      throw invalidGrant('The refresh token was already used; the session has been revoked.');
    }
    const user = await this.store.findUser(session.user_id);
    if (!user) throw invalidGrant('The refresh token is invalid.');
    const expiresAt = new Date(Date.now() + this.settings.refreshTokenTtlSeconds * 1000);
    await this.store.extendSession(session.guid, expiresAt);
    const memberOf = await this.store.companyIdsOf(user.guid);
    const companies = session.company_ids.filter((guid) => memberOf.includes(guid));
    return this.tokenResponse(user.guid, session.guid, companies, await this.newRefreshToken(session.guid, expiresAt));
  }

  /**
   * An operator-issued token (admin CLI): a real session of the user, for the companies named
   * like the token endpoint's company_id (empty = default company, `*`, a GUID or a comma list).
   * No password and no refresh token: the session lasts as long as the access token.
   */
  async issueTokenForUser(userId: string, companyParameter = ''): Promise<IssueTokenResponse> {
    const user = await this.store.findUser(userId);
    if (!user) throw RpcError.notFound('User');
    return this.startSession(user, null, companyParameter, false);
  }

  private async startSession(
    user: UserRow,
    clientId: string | null,
    companyParameter: string,
    withRefreshToken: boolean,
    clientScope?: string[],
  ): Promise<IssueTokenResponse> {
    const memberOf = await this.store.companyIdsOf(user.guid);
    const available = clientScope ? memberOf.filter((guid) => clientScope.includes(guid)) : memberOf;
    const { companies, refused } = requestedTokenCompanies(companyParameter, available, user.default_company_id);
    if (refused.length) {
      throw oauthError(status.INVALID_ARGUMENT, 'invalid_scope', `company_id names companies this account cannot access: ${refused.join(', ').slice(0, 300)}.`);
    }
    const lifetime = withRefreshToken ? this.settings.refreshTokenTtlSeconds : this.tokens.ttlSeconds;
    const expiresAt = new Date(Date.now() + lifetime * 1000);
    const sessionId = await this.store.createSession({ userId: user.guid, clientId, companyIds: companies, expiresAt });
    const refreshToken = withRefreshToken ? await this.newRefreshToken(sessionId, expiresAt) : '';
    return this.tokenResponse(user.guid, sessionId, companies, refreshToken);
  }

  private async newRefreshToken(sessionId: string, expiresAt: Date): Promise<string> {
    const token = newSecret();
    await this.store.storeRefreshToken({ tokenHash: sha256(token), sessionId, expiresAt });
    return token;
  }

  private async tokenResponse(userId: string, sessionId: string, companyIds: string[], refreshToken: string): Promise<IssueTokenResponse> {
    const companies = await this.store.companies(companyIds);
    return {
      token_type: 'Bearer',
      access_token: this.tokens.sign(userId, sessionId),
      expires_in: this.tokens.ttlSeconds,
      refresh_token: refreshToken,
      refresh_token_expires_in: refreshToken ? this.settings.refreshTokenTtlSeconds : 0,
      info: { companies: companies.map(({ guid, name }) => ({ guid, name })) },
    };
  }

  /** RFC 7009: access or refresh token; unknown tokens are not an error. */
  async revokeToken(token: string): Promise<void> {
    const claims = this.tokens.verify(token, { ignoreExpiration: true });
    if (claims) return this.revokeSession(claims.sessionId);
    const stored = token ? await this.store.findRefreshToken(sha256(token)) : undefined;
    if (stored) await this.revokeSession(stored.session_id);
  }

  async revokeSession(sessionId: string): Promise<void> {
    await this.store.revokeSession(sessionId);
    await this.spreadRevocations([sessionId]);
  }

  async revokeSessionsOfUser(userId: string): Promise<number> {
    const ids = await this.store.revokeSessionsOfUser(userId);
    await this.spreadRevocations(ids);
    return ids.length;
  }

  /** The check every service runs on every caller. */
  async authenticate(accessToken: string, companyHeaderValues: string[]): Promise<Caller> {
    if (!accessToken) throw missingTokenError();
    const claims = this.tokens.check(accessToken);
    if ('refused' in claims) throw this.refusedTokenError(claims);
    const session = await this.liveSession(claims.sessionId, claims.userId);
    const companyIds = effectiveCompanies(session.companyIds, companyHeaderValues);
    return { userId: claims.userId, sessionId: claims.sessionId, clientId: session.clientId, companyIds, expiresAt: claims.expiresAt };
  }

  /** RFC 6750 error_description of a refused access token: what happened and what to do next. */
  private refusedTokenError(refusal: { refused: 'expired'; expiredAt: Date } | { refused: 'foreign' }): RpcError {
    const endpoint = `POST ${this.settings.tokenPath}`;
    const message =
      refusal.refused === 'expired'
        ? `The access token expired at ${refusal.expiredAt.toISOString().replace(/\.\d{3}Z$/, 'Z')}; get a new one with grant_type=refresh_token and your refresh token (${endpoint}), or sign in again.`
        : `The access token is not a token of this server (not issued by it, altered or cut short); get one with ${endpoint}.`;
    return RpcError.unauthenticated(message, 'invalid_token');
  }

  private async liveSession(sessionId: string, userId: string) {
    let session = await this.cache.get(sessionId);
    sessionCacheLookups.inc({ result: session ? 'hit' : 'miss' });
    if (!session) {
      const row = await this.store.findSession(sessionId);
      const user = row ? await this.store.findUser(row.user_id) : undefined;
      if (!row || !user) throw RpcError.unauthenticated('The access token is no longer valid.', 'invalid_token');
      const memberOf = await this.store.companyIdsOf(row.user_id);
      session = {
        userId: row.user_id,
        clientId: row.client_id,
        companyIds: row.company_ids.filter((guid) => memberOf.includes(guid)),
        expiresAt: row.expires_at.getTime(),
        revoked: row.revoked_at !== undefined,
      };
      await this.cache.fill(sessionId, session);
    }
    // A cache entry another replica could not overwrite (Redis was down there) is not believed either.
    if (session.revoked || this.revocations?.isRevoked(sessionId) || session.expiresAt <= Date.now() || session.userId !== userId) {
      throw sessionEndedError();
    }
    return session;
  }

  async currentUser(caller: Caller): Promise<User> {
    const user = await this.store.findUser(caller.userId);
    if (!user) throw RpcError.unauthenticated('The access token is no longer valid.', 'invalid_token');
    return toUser(user);
  }

  async listCompanies(caller: Caller): Promise<Company[]> {
    return (await this.store.companies(caller.companyIds)).map(toCompany);
  }

  async createCompany(caller: Caller, name: string): Promise<Company> {
    const trimmed = checkedName(name);
    return toCompany(await this.store.createCompany(caller.userId, trimmed));
  }

  /**
   * A new API client acting as the caller's user, limited to the caller's effective company
   * set, so that a narrowed token can only make an equally narrow client.
   */
  async createApiClient(caller: Caller, name: string): Promise<CreateApiClientResponse> {
    requireUserSession(caller);
    return this.createApiClientForUser(caller.userId, caller.companyIds, name);
  }

  /** An API client acting as the user, limited to `companyIds` (the admin CLI names them). */
  async createApiClientForUser(userId: string, companyIds: string[], name: string): Promise<CreateApiClientResponse> {
    // Nothing is created for no company (PRODUCT.md 4): such a client could act for nobody.
    if (companyIds.length === 0) {
      throw new RpcError(status.INVALID_ARGUMENT, 'This request covers no company, so an API client made with it could act for none: use a token issued for a company.');
    }
    const trimmed = checkedName(name);
    const secret = newSecret();
    const client = await this.store.createApiClient({ clientId: newGuid(), userId, name: trimmed, secretHash: sha256(secret), companyIds });
    return { client_id: client.client_id, client_secret: secret, name: client.name, created_at: client.created_at, company_ids: client.company_ids };
  }

  /** The caller's live API clients inside its effective company set (a client that also acts for another company is not shown). */
  async listApiClients(caller: Caller): Promise<ApiClient[]> {
    requireUserSession(caller);
    return (await this.store.apiClientsOf(caller.userId))
      .filter((client) => withinCompanies(client.company_ids, caller.companyIds))
      .map(({ client_id, name, company_ids, created_at }) => ({ client_id, name, company_ids, created_at }));
  }

  /**
   * Revokes the client and ends every session it opened, at once. NOT_FOUND, exactly as for
   * a client that does not exist, when it is not the caller's or acts for a company outside
   * the caller's effective company set.
   */
  async deleteApiClient(caller: Caller, clientId: string): Promise<void> {
    requireUserSession(caller);
    const id = clientId.trim().toLowerCase();
    const client = isGuid(id) ? await this.store.findApiClient(id) : undefined;
    if (!client || client.user_id !== caller.userId || !withinCompanies(client.company_ids, caller.companyIds)) throw RpcError.notFoundById('API client', clientId);
    const sessions = await this.store.revokeApiClient(caller.userId, id);
    if (!sessions) throw RpcError.notFound('API client');
    await this.spreadRevocations(sessions);
  }

  /** After revoked sessions are committed: pushed to every replica, and tombstoned in the session cache, at once. */
  private async spreadRevocations(sessionIds: string[]): Promise<void> {
    const tombstones = async () => {
      for (const sessionId of sessionIds) await this.cache.markRevoked(sessionId);
    };
    await Promise.all([this.revocations?.spread(), tombstones()]);
  }

  private tooMany(retryAfter: number): void {
    if (retryAfter > 0) {
      throw oauthError(status.RESOURCE_EXHAUSTED, 'temporarily_unavailable', `Too many token requests; retry after ${retryAfter} seconds.`, retryAfter);
    }
  }
}

/**
 * API clients are managed by people: only a user's own session (password or refresh_token
 * grant, or an operator-issued token) creates, lists or deletes them. An API client's token
 * cannot, so no client ever has credentials that outlive it.
 */
function requireUserSession(caller: Caller): void {
  if (caller.clientId !== null) {
    throw new RpcError(
      status.PERMISSION_DENIED,
      "API clients can only be managed with a user's own token (password or refresh_token grant), not with an API client's token.",
      { reason: 'user_session_required' },
    );
  }
}

export function toUser(user: UserRow): User {
  return User.fromPartial(toMessageFields(USER_FIELDS, user) as Partial<User>);
}

function toCompany(company: CompanyRow): Company {
  return { guid: company.guid, name: company.name, created_at: company.created_at, updated_at: company.updated_at };
}

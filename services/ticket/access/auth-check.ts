import { Metadata } from '@grpc/grpc-js';
import { effectiveCompanies } from '../../../lib/effective-companies.js';
import { AuthServiceClient, type AuthenticateResponse } from '../../../lib/gen/auth/v1/auth.js';
import { bearerToken, companyValues, missingTokenError, sessionEndedError } from '../../../lib/grpc/caller.js';
import { CLIENT_OPTIONS, callUnary, insecure } from '../../../lib/grpc/client.js';
import { fromServiceError, isServiceError } from '../../../lib/grpc/errors.js';
import type { Logger } from '../../../lib/logger.js';
import { edgeAuthChecks } from '../../../lib/metrics.js';
import { SharedFlight } from '../../../lib/shared-flight.js';
import { PublicKeyCache } from '../../../lib/tokens/public-key-cache.js';
import { tokenKeyId, verifyAccessToken, type TokenAudience } from '../../../lib/tokens/verify.js';
import { KeptAnswers } from './kept-answers.js';
import { RevocationWatch } from './revocation-watch.js';

export interface AuthenticatedCaller {
  userId: string;
  /** The effective company set; every read and write is confined to it. */
  companyIds: string[];
}

export interface AuthCheckOptions {
  deadlineMs: number;
  /** Check callers locally while the revocation push is live (false: ask on every call). */
  local: boolean;
  /** How long an Authenticate answer is kept (the session cache TTL: company memberships are re-read as often). */
  keepSeconds: number;
  /** AUTH_JWT_ISSUER and AUTH_JWT_AUDIENCE: what a kept token is checked against locally. */
  tokens: TokenAudience;
  logger: Pick<Logger, 'info' | 'warn'>;
}

/** The public keys are fetched again this often, believed for three times as long, and at most once a second for a kid nobody knows. */
const KEYS = { refreshMs: 10_000, maxAgeMs: 30_000, minRefetchMs: 1000 };

/**
 * Every call is checked with the caller's own metadata, so a gRPC caller meets exactly the
 * checks a REST caller meets, and the auth service's UNAUTHENTICATED and INVALID_ARGUMENT
 * answers pass through unchanged.
 *
 * In the steady state without a round trip (docs/auth.md, "Checks at the edge"): the first
 * call with a token asks Authenticate for the token's companies and keeps the answer; later
 * calls with the very same token are answered from it, narrowed by their Company values with
 * the auth service's own function, and refused as soon as the revocation push names the
 * session. While the push is down or not caught up, every call asks, as before.
 *
 * An answer is kept only for a token this process verified itself with the auth service's
 * public keys (GetSigningKeys with the deadline: every 10 s, and for an unknown kid), and used
 * only while its key is still in the set: a retired signing key stops working here within
 * 10 s, not only when the answer ages out.
 */
export class AuthCheck {
  private readonly client: AuthServiceClient;
  private readonly kept = new KeptAnswers();
  /**
   * An on-sale rush starts with thousands of calls of one shop's token at once, none of them
   * kept yet: they ask the auth service once, not once each (which overran its deadline).
   */
  private readonly learning = new SharedFlight<AuthenticateResponse>();
  private readonly asking = new SharedFlight<AuthenticateResponse>();
  readonly revocations?: RevocationWatch;
  readonly publicKeys?: PublicKeyCache;

  constructor(
    address: string,
    private readonly options: AuthCheckOptions,
  ) {
    this.client = new AuthServiceClient(address, insecure(), CLIENT_OPTIONS);
    if (options.local) {
      const rememberMs = (options.keepSeconds + 60) * 1000;
      this.revocations = new RevocationWatch(this.client, rememberMs, () => this.kept.clear(), options.logger);
      this.revocations.start();
      this.publicKeys = new PublicKeyCache({
        fetch: async () => (await callUnary(this.client.getSigningKeys.bind(this.client), {}, new Metadata(), options.deadlineMs)).keys,
        ...KEYS,
      });
      this.publicKeys.start();
    }
  }

  async caller(metadata: Metadata): Promise<AuthenticatedCaller> {
    const token = bearerToken(metadata);
    if (!token) throw missingTokenError();
    const companies = companyValues(metadata);
    const watch = this.revocations;
    if (!watch?.isLive) {
      edgeAuthChecks.inc({ path: 'asked' });
      const answer = await this.ask(token, companies, metadata);
      return { userId: answer.user_id, companyIds: answer.company_ids };
    }
    const kept = this.kept.get(token);
    if (kept && this.publicKeys?.current(kept.keyId)) {
      if (watch.isRevoked(kept.sessionId)) throw sessionEndedError();
      edgeAuthChecks.inc({ path: 'local' });
      return { userId: kept.userId, companyIds: effectiveCompanies(kept.companyIds, companies) };
    }
    edgeAuthChecks.inc({ path: 'asked' });
    const answer = await this.learning.run(token, () => this.learn(token, watch, metadata));
    // Revoked while the answer was on its way (to this call or to the one it joined): the push said so first.
    if (watch.isRevoked(answer.session_id)) throw sessionEndedError();
    return { userId: answer.user_id, companyIds: effectiveCompanies(answer.company_ids, companies) };
  }

  /** Asks about a token this process does not keep, and keeps the answer when it may be used locally. */
  private async learn(token: string, watch: RevocationWatch, metadata: Metadata): Promise<AuthenticateResponse> {
    const epoch = watch.epoch;
    const answer = await this.ask(token, [], metadata);
    if (watch.isRevoked(answer.session_id)) throw sessionEndedError();
    const keyId = await this.verifiedKeyId(token, answer.session_id);
    if (keyId && watch.isLive && watch.epoch === epoch) {
      const until = Math.min(answer.expires_at?.getTime() ?? 0, Date.now() + this.options.keepSeconds * 1000);
      this.kept.keep(token, { userId: answer.user_id, sessionId: answer.session_id, companyIds: answer.company_ids, until, keyId });
    }
    return answer;
  }

  /** The kid of a token the auth service accepted, once verified here too; undefined: do not keep it. */
  private async verifiedKeyId(token: string, sessionId: string): Promise<string | undefined> {
    const kid = tokenKeyId(token);
    const key = kid === undefined ? undefined : await this.publicKeys?.keyFor(kid);
    if (!key) return undefined;
    const verified = verifyAccessToken(token, () => key, this.options.tokens);
    return verified?.sessionId === sessionId ? verified.keyId : undefined;
  }

  /** Authenticate; calls with the same token and Company values at the same time share one question. */
  private ask(token: string, companies: string[], metadata: Metadata): Promise<AuthenticateResponse> {
    return this.asking.run([token, ...companies].join('\n'), () => this.askAuthService(token, companies, metadata));
  }

  private async askAuthService(token: string, companies: string[], metadata: Metadata): Promise<AuthenticateResponse> {
    try {
      return await callUnary(
        this.client.authenticate.bind(this.client),
        { access_token: token, company: companies },
        requestIdOnly(metadata),
        this.options.deadlineMs,
      );
    } catch (err) {
      if (isServiceError(err)) throw fromServiceError(err);
      throw err;
    }
  }

  close(): void {
    this.revocations?.stop();
    this.publicKeys?.stop();
    this.client.close();
  }
}

function requestIdOnly(metadata: Metadata): Metadata {
  const forwarded = metadata.clone();
  forwarded.remove('authorization');
  forwarded.remove('company');
  return forwarded;
}

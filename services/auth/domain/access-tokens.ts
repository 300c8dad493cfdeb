import jwt from 'jsonwebtoken';
import { newGuid } from '../../../lib/ids.js';
import { TOKEN_ALGORITHM } from '../../../lib/tokens/keys.js';
import { withLowS } from '../../../lib/tokens/canonical.js';
import { verifyAccessToken, type TokenAudience, type VerifiedToken } from '../../../lib/tokens/verify.js';
import type { SigningKeys } from './signing-keys.js';

export type AccessTokenClaims = VerifiedToken;

/** Signs access tokens with the current signing key (ES256, its `kid` in the header) and checks them against every accepted key. */
export class AccessTokens {
  private readonly expected: TokenAudience;

  constructor(
    private readonly keys: SigningKeys,
    issuer: string,
    audience: string,
    readonly ttlSeconds: number,
  ) {
    this.expected = { issuer, audience };
  }

  sign(userId: string, sessionId: string): string {
    // Its one spelling: the verifiers refuse a high s (lib/tokens/canonical.ts).
    return withLowS(jwt.sign({ sid: sessionId }, this.keys.signingKey, {
      algorithm: TOKEN_ALGORITHM,
      keyid: this.keys.signingKeyId,
      subject: userId,
      issuer: this.expected.issuer,
      audience: this.expected.audience,
      expiresIn: this.ttlSeconds,
      jwtid: newGuid(),
    }));
  }

  /** Returns the claims, or undefined for any token that is not ours, not intact, not current or signed by a key no longer accepted. */
  verify(token: string, options: { ignoreExpiration?: boolean } = {}): AccessTokenClaims | undefined {
    const checked = this.check(token, options);
    return 'refused' in checked ? undefined : checked;
  }

  /**
   * The claims, or why the token is refused: `expired` for a token this server signed, intact,
   * whose time is up (the client should refresh it); `foreign` for anything else (not a JWT, not
   * signed with our key, altered, another issuer or audience, claims missing).
   */
  check(token: string, options: { ignoreExpiration?: boolean } = {}): AccessTokenClaims | { refused: 'expired'; expiredAt: Date } | { refused: 'foreign' } {
    const claims = this.decode(token, options.ignoreExpiration ?? false);
    if (claims) return claims;
    if (options.ignoreExpiration) return { refused: 'foreign' };
    const ignoringTime = this.decode(token, true);
    return ignoringTime ? { refused: 'expired', expiredAt: ignoringTime.expiresAt } : { refused: 'foreign' };
  }

  private decode(token: string, ignoreExpiration: boolean): AccessTokenClaims | undefined {
    return verifyAccessToken(token, (kid) => this.keys.keyFor(kid), this.expected, { ignoreExpiration });
  }
}

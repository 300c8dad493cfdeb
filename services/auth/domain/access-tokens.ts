import jwt from 'jsonwebtoken';
import { newGuid } from '../../../lib/ids.js';
import { TOKEN_ALGORITHM } from '../../../lib/tokens/keys.js';
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
    return jwt.sign({ sid: sessionId }, this.keys.signingKey, {
      algorithm: TOKEN_ALGORITHM,
      keyid: this.keys.signingKeyId,
      subject: userId,
      issuer: this.expected.issuer,
      audience: this.expected.audience,
      expiresIn: this.ttlSeconds,
      jwtid: newGuid(),
    });
  }

  /** Returns the claims, or undefined for any token that is not ours, not intact, not current or signed by a key no longer accepted. */
  verify(token: string, options: { ignoreExpiration?: boolean } = {}): AccessTokenClaims | undefined {
    return verifyAccessToken(token, (kid) => this.keys.keyFor(kid), this.expected, options);
  }
}

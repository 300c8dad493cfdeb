import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { newGuid } from '../../../lib/ids.js';

const ALGORITHM = 'HS256' as const;

export interface AccessTokenClaims {
  userId: string;
  sessionId: string;
  expiresAt: Date;
}

/** Signs and checks access tokens: HS256 pinned; exp, iss, aud, sub and sid all required. */
export class AccessTokens {
  /** A KeyObject made once: given a string, jsonwebtoken tries to parse it as a public key on every call (a fifth of the CPU of a request). */
  private readonly key: KeyObject;

  constructor(
    secret: string,
    private readonly issuer: string,
    private readonly audience: string,
    readonly ttlSeconds: number,
  ) {
    this.key = createSecretKey(Buffer.from(secret, 'utf8'));
  }

  sign(userId: string, sessionId: string): string {
    return jwt.sign({ sid: sessionId }, this.key, {
      algorithm: ALGORITHM,
      subject: userId,
      issuer: this.issuer,
      audience: this.audience,
      expiresIn: this.ttlSeconds,
      jwtid: newGuid(),
    });
  }

  /** Returns the claims, or undefined for any token that is not ours, not intact or not current. */
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
    try {
      const payload = jwt.verify(token, this.key, {
        algorithms: [ALGORITHM],
        issuer: this.issuer,
        audience: this.audience,
        ignoreExpiration,
      });
      if (typeof payload !== 'object' || typeof payload.exp !== 'number') return undefined;
      if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string') return undefined;
      return { userId: payload.sub, sessionId: payload.sid, expiresAt: new Date(payload.exp * 1000) };
    } catch {
      return undefined;
    }
  }
}

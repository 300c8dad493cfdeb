import type { KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { TOKEN_ALGORITHM } from './keys.js';
import { isCanonicalToken } from './canonical.js';
import { isGuid } from '../ids.js';

export interface VerifiedToken {
  userId: string;
  sessionId: string;
  expiresAt: Date;
  /** The key id in the token's header: which key signed it. */
  keyId: string;
}

export interface TokenAudience {
  issuer: string;
  audience: string;
}

/** The `kid` of a token's header, without checking anything else; undefined when it has none or is no JWT at all. */
export function tokenKeyId(token: string): string | undefined {
  let kid: unknown;
  try {
    // jws parses the payload of a `typ: JWT` header without a guard: an altered payload throws.
    kid = jwt.decode(token, { complete: true })?.header.kid;
  } catch {
    return undefined;
  }
  return typeof kid === 'string' && kid ? kid : undefined;
}

/**
 * Checks an access token: in its one spelling (lib/tokens/canonical.ts), ES256 pinned, signed by the key its `kid` names (looked up in
 * `keyFor`), and exp, iss, aud, sub and sid all present and right. Undefined for any token that
 * is not ours, not intact, not current, or signed by a key not (or no longer) accepted.
 */
export function verifyAccessToken(
  token: string,
  keyFor: (kid: string) => KeyObject | undefined,
  expected: TokenAudience,
  options: { ignoreExpiration?: boolean } = {},
): VerifiedToken | undefined {
  // One token, one spelling: a high-s signature or a non-canonical base64url part is no token of ours.
  if (!isCanonicalToken(token)) return undefined;
  const kid = tokenKeyId(token);
  const key = kid === undefined ? undefined : keyFor(kid);
  if (!kid || !key) return undefined;
  try {
    const payload = jwt.verify(token, key, {
      algorithms: [TOKEN_ALGORITHM],
      issuer: expected.issuer,
      audience: expected.audience,
      ignoreExpiration: options.ignoreExpiration ?? false,
    });
    if (typeof payload !== 'object' || typeof payload.exp !== 'number') return undefined;
    if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string') return undefined;
    return { userId: payload.sub, sessionId: payload.sid, expiresAt: new Date(payload.exp * 1000), keyId: kid };
  } catch {
    return undefined;
  }
}

/**
 * The session id a token claims (`sid`), without checking the signature: for counting only
 * (the gateway's per-token rate limit keys on the session), never for deciding access.
 * Undefined when it is no JWT or claims no session of the form we issue (a GUID).
 */
export function claimedSessionId(token: string): string | undefined {
  let sid: unknown;
  try {
    const payload = jwt.decode(token, { json: true });
    sid = payload?.sid;
  } catch {
    return undefined;
  }
  return typeof sid === 'string' && isGuid(sid) ? sid.toLowerCase() : undefined;
}

import { createPublicKey, type KeyObject } from 'node:crypto';
import { keyId, parsePrivateKey, parsePublicKeys, publicJwk, type PublicJwk } from '../../../lib/tokens/keys.js';

/**
 * The auth service's keys: one private key that signs every new access token, and the public
 * keys whose tokens are still accepted (its own, the previous signing key's until its tokens
 * have expired, the next one's before it signs; docs/auth.md, "Signing keys and rotation").
 * All of them are published (GetSigningKeys, {auth_url}/.well-known/jwks.json).
 */
export class SigningKeys {
  readonly signingKey: KeyObject;
  readonly signingKeyId: string;
  private readonly accepted = new Map<string, KeyObject>();
  readonly published: PublicJwk[];

  constructor(signingKeyText: string, acceptedKeysText = '') {
    this.signingKey = parsePrivateKey(signingKeyText);
    const own = createPublicKey(this.signingKey);
    this.signingKeyId = keyId(own);
    for (const key of [own, ...parsePublicKeys(acceptedKeysText)]) this.accepted.set(keyId(key), key);
    this.published = [...this.accepted.values()].map(publicJwk);
  }

  /** The public key a token's `kid` names, if it is accepted. */
  keyFor(kid: string): KeyObject | undefined {
    return this.accepted.get(kid);
  }
}


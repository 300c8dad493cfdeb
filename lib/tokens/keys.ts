import type { SigningKey } from '../gen/auth/v1/auth.js';
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';

/**
 * Access tokens are signed with ES256 (ECDSA on P-256): jsonwebtoken has no EdDSA, and ES256 is
 * what every JOSE library verifies. Only the auth service holds a private key; every other
 * process verifies with the public keys the auth service publishes (a JWK Set, RFC 7517).
 */
export const TOKEN_ALGORITHM = 'ES256' as const;
const CURVE = 'prime256v1';

/** A public key as published: the JWK members of an EC key, its key id, use and algorithm (proto auth.v1 SigningKey). */
export type PublicJwk = SigningKey;

/** Thrown for a key that is not an EC P-256 key in PEM or base64 DER; says which, never the key. */
export class KeyFormatError extends Error {}

/** The key id: the RFC 7638 thumbprint of the public key, so a key names itself and needs no label. */
export function keyId(publicKey: KeyObject): string {
  const jwk = publicKey.export({ format: 'jwk' });
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  return createHash('sha256').update(canonical).digest('base64url');
}

export function publicJwk(publicKey: KeyObject): PublicJwk {
  const jwk = publicKey.export({ format: 'jwk' });
  return { kid: keyId(publicKey), kty: jwk.kty!, crv: jwk.crv!, x: jwk.x!, y: jwk.y!, alg: TOKEN_ALGORITHM, use: 'sig' };
}

/** A published key back as a key object; undefined for anything but an ES256 signing key. */
export function keyFromJwk(jwk: PublicJwk): KeyObject | undefined {
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || jwk.alg !== TOKEN_ALGORITHM || jwk.use !== 'sig') return undefined;
  try {
    const key = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y } as JsonWebKey, format: 'jwk' });
    return keyId(key) === jwk.kid ? key : undefined;
  } catch {
    return undefined;
  }
}

/** A new private key, as one line of base64 DER (PKCS#8): what the generated configuration holds. */
export function generatePrivateKey(): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: CURVE });
  return privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64');
}

/** A private key from PEM (PKCS#8 or SEC1) or one line of base64 PKCS#8 DER. */
export function parsePrivateKey(text: string): KeyObject {
  const trimmed = text.trim();
  let key: KeyObject;
  try {
    key = trimmed.includes('-----BEGIN')
      ? createPrivateKey(unescapeNewlines(trimmed))
      : createPrivateKey({ key: Buffer.from(trimmed, 'base64'), format: 'der', type: 'pkcs8' });
  } catch {
    throw new KeyFormatError('must be an EC P-256 private key, in PEM or as one line of base64 PKCS#8 DER');
  }
  return p256(key, 'private');
}

/**
 * Public keys from text: PEM blocks (public or private keys), or base64 DER values (SPKI public
 * or PKCS#8 private keys) separated by commas or white space. A private key given here only
 * contributes its public half.
 */
export function parsePublicKeys(text: string): KeyObject[] {
  const trimmed = unescapeNewlines(text.trim());
  if (!trimmed) return [];
  const parts = trimmed.includes('-----BEGIN')
    ? [...trimmed.matchAll(/-----BEGIN ([A-Z ]+)-----[\s\S]*?-----END \1-----/g)].map((m) => m[0])
    : trimmed.split(/[\s,]+/);
  return parts.map((part, index) => {
    try {
      return p256(part.startsWith('-----') ? createPublicKey(part) : derKey(part), 'public');
    } catch (err) {
      if (err instanceof KeyFormatError) throw err;
      throw new KeyFormatError(`key ${index + 1}: must be an EC P-256 public (or private) key, in PEM or as base64 DER`);
    }
  });
}

function derKey(base64: string): KeyObject {
  const der = Buffer.from(base64, 'base64');
  try {
    return createPublicKey({ key: der, format: 'der', type: 'spki' });
  } catch {
    return createPublicKey(createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }));
  }
}

function p256(key: KeyObject, kind: 'private' | 'public'): KeyObject {
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== CURVE) {
    throw new KeyFormatError(`must be an EC P-256 ${kind} key (ES256); this is another kind of key`);
  }
  return key;
}

/** A PEM passed through a one-line environment value may carry literal `\n`. */
function unescapeNewlines(text: string): string {
  return text.replace(/\\n/g, '\n');
}

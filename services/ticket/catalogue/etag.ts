import { createHash } from 'node:crypto';

/**
 * A strong entity tag (AIP-154): a digest of everything that makes one representation
 * differ from another, i.e. the object's identity, its version (bumped by every change)
 * and, for tickets, the computed status, which moves with time.
 */
export function etagOf(...parts: Array<string | number>): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('base64url').slice(0, 22);
}

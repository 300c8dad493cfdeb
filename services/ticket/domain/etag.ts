import { createHash } from 'node:crypto';

/**
 * A strong entity tag (AIP-154): a digest of everything that makes one representation
 * differ from another, i.e. the object's identity, its version (bumped by every change)
 * and, for tickets, the computed status, which moves with time.
 */
export function etagOf(...parts: Array<string | number>): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('base64url').slice(0, 22);
}

/**
 * The tags of an If-Match value (the REST header, passed through as the request's etag):
 * one tag, `*`, or a comma-separated list; quotes and a W/ prefix are tolerated. No tags
 * (absent, empty, or only empty tags) means no condition.
 */
export function ifMatchTags(ifMatch: string): string[] {
  return ifMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1'))
    .filter((tag) => tag !== '');
}

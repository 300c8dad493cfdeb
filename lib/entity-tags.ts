/**
 * Entity-tag preconditions (RFC 9110 section 13.1): the one home of how an If-Match or
 * If-None-Match value is read and compared with a current etag. The ticket service applies
 * If-Match to writes; the gateway applies If-None-Match to reads (a 304 is HTTP-only).
 */

/**
 * The tags of a precondition value: one tag, `*`, or a comma-separated list; quotes and a
 * W/ prefix are tolerated. No tags (absent, empty, or only empty tags) means no condition.
 */
export function entityTags(value: string): string[] {
  return value
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1'))
    .filter((tag) => tag !== '');
}

/**
 * Whether the tags name the current etag: `*` names any existing object. The comparison is
 * the weak one (a W/ prefix is ignored), which RFC 9110 prescribes for If-None-Match; our
 * etags are always strong, so for If-Match it only forgives a client that added W/.
 */
export const tagsMatch = (tags: readonly string[], etag: string): boolean => tags.some((tag) => tag === '*' || tag === etag);

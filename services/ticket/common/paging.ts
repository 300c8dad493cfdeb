import { createHmac, timingSafeEqual } from 'node:crypto';
import { RpcError } from '../../../lib/grpc/errors.js';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

/** page_size: 0 means the default; otherwise 1..1000. */
export function pageSize(requested: number): number {
  if (requested === 0) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(requested) || requested < 1 || requested > MAX_PAGE_SIZE) {
    throw RpcError.invalidArgument([{ field: 'page_size', description: `must be from 1 to ${MAX_PAGE_SIZE} (0 for the default of ${DEFAULT_PAGE_SIZE})` }]);
  }
  return requested;
}

/**
 * Page tokens are opaque to callers: base64url of the last id served and a MAC that binds it
 * to the list it came from (`listKey`). The MAC key is fixed, because a token only moves a
 * caller within a list that is confined to its own companies anyway; what it must catch is
 * a token that was altered or taken from another list.
 */
const MAC_KEY = 'ticketing.v1 page token';

function mac(listKey: string, afterId: number): Buffer {
  return createHmac('sha256', MAC_KEY).update(`${listKey}\u0000${afterId}`).digest().subarray(0, 12);
}

export function encodePageToken(listKey: string, afterId: number): string {
  return Buffer.concat([Buffer.from(`${afterId}.`), mac(listKey, afterId)]).toString('base64url');
}

/** The id to continue after: 0 for an empty token; a violation on `page_token` for one that is not ours or not for this list. */
export function decodePageToken(token: string, listKey: string): number {
  if (token === '') return 0;
  const bad = () => RpcError.invalidArgument([{ field: 'page_token', description: 'is not a page token of this list' }]);
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(token)) throw bad();
  const raw = Buffer.from(token, 'base64url');
  const dot = raw.indexOf('.');
  if (dot < 1) throw bad();
  const idText = raw.subarray(0, dot).toString('latin1');
  if (!/^[1-9]\d{0,15}$/.test(idText)) throw bad();
  const afterId = Number(idText);
  const expected = mac(listKey, afterId);
  const given = raw.subarray(dot + 1);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw bad();
  return afterId;
}

export const eventListKey = (companyIds: readonly string[]) => `events:${[...companyIds].sort().join(',')}`;
export const ticketListKey = (eventId: string) => `tickets:${eventId}`;

import { status } from '@grpc/grpc-js';
import type { Request, Response } from 'express';
import { entityTags, tagsMatch } from '../lib/entity-tags.js';
import { isServiceError, readErrorDetails, type FieldViolation } from '../lib/grpc/errors.js';
import { INVALID_QUERY_MESSAGE, invalidFields, ProblemError, sendProblem } from './problem.js';

/** Headers and query parameters of the event and ticket routes, as their gRPC fields. */

/** A strong ETag header value. */
export const etagHeader = (etag: string) => `"${etag}"`;

/**
 * A read whose If-None-Match names the current etag (RFC 9110 13.1.2, weak comparison, `*`, a
 * list): the client's copy is current. Evaluated here, not by express's `req.fresh`, which
 * gives up whenever the request says `Cache-Control: no-cache` (as fetch does with every
 * conditional request); that is a cache's directive, an origin server answers the condition.
 */
export const notModified = (req: Request, etag: string): boolean => tagsMatch(entityTags(req.get('if-none-match') ?? ''), etag);

/**
 * The Idempotency-Key as request_id ('' when not sent; the service checks its form).
 * A header that is present but empty is refused with 400 here.
 */
export function idempotencyKey(req: Request): string {
  const value = req.headers['idempotency-key'];
  if (value === undefined) return '';
  if (value === '') throw new ProblemError({ status: 400, detail: 'The Idempotency-Key header must be 1 to 255 visible ASCII characters.' });
  return value as string;
}

export const MAX_LIMIT = 1000;

export interface ListQuery {
  /** Present when the client pages (limit and/or cursor); page size and token. */
  page?: { limit: number; cursor: string };
}

/** `limit` (1..1000) and `cursor`; without either the whole list is wanted. Refuses bad ones with a 422. */
export function listQuery(req: Request): ListQuery {
  const { limit, cursor } = req.query as Record<string, unknown>;
  if (limit === undefined && cursor === undefined) return {};
  const violations: FieldViolation[] = [];
  let size = 100;
  if (limit !== undefined) {
    if (typeof limit === 'string' && /^\d{1,4}$/.test(limit) && Number(limit) >= 1 && Number(limit) <= MAX_LIMIT) size = Number(limit);
    else violations.push({ field: 'limit', description: `must be a whole number from 1 to ${MAX_LIMIT}` });
  }
  if (cursor !== undefined && typeof cursor !== 'string') violations.push({ field: 'cursor', description: 'must be sent only once' });
  if (violations.length) throw invalidFields(violations, INVALID_QUERY_MESSAGE);
  return { page: { limit: size, cursor: (cursor as string | undefined) ?? '' } };
}

/** The Link header to the next page, relative to the list's own path. */
export function nextPageLink(req: Request, limit: number, token: string, keep: readonly string[] = []): string {
  // A filter the cursor belongs to (a list's ?state=) stays in the next page's link.
  const filters = keep.flatMap((name) => (typeof req.query[name] === 'string' ? [`&${name}=${encodeURIComponent(req.query[name])}`] : []));
  return `<${req.path}?limit=${limit}&cursor=${encodeURIComponent(token)}${filters.join('')}>; rel="next"`;
}

const QUERY_NAMES: Record<string, string> = { page_size: 'limit', page_token: 'cursor' };

/** Runs a List call; its paging violations are refused as a 422 naming the query parameters. */
export async function listCall<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const details = isServiceError(err) && err.code === status.INVALID_ARGUMENT ? readErrorDetails(err) : {};
    if (!details.fieldViolations?.length) throw err;
    throw invalidFields(
      details.fieldViolations.map((v) => ({ ...v, field: QUERY_NAMES[v.field] ?? v.field })),
      INVALID_QUERY_MESSAGE,
    );
  }
}

/** 405 with Allow for the other methods of a route. */
export function methodNotAllowed(allow: string[]) {
  return (req: Request, res: Response) => {
    res.setHeader('Allow', allow.join(', '));
    sendProblem(res, { status: 405, detail: `${req.method} is not allowed here; allowed: ${allow.join(', ')}.` });
  };
}

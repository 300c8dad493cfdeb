import { IDEMPOTENCY_KEY } from '../../lib/ids.js';
import { RESERVATION_STATES } from '../../lib/fields/reservation.js';
import { SERVER_BUSY, STOCK_CONFLICTS, TICKET_BUSY } from '../../lib/stock-conflicts.js';
import { COMPANY_HEADER_PATTERN, HEADER_TEXT_PATTERN } from './patterns.js';
import type { Schema } from './schemas.js';

/** The document's shared parameters, headers and error texts (referred to by name from the operations). */

export const PARAMETERS: Record<string, Schema> = {
  clientId: { name: 'clientId', in: 'path', required: true, schema: { type: 'string' }, description: 'client_id of the API client.' },
  Company: {
    name: 'Company',
    in: 'header',
    required: false,
    schema: { type: 'string', pattern: COMPANY_HEADER_PATTERN },
    description: 'Narrows the token\'s companies: comma-separated GUIDs (or repeated headers), or * for all of them.',
  },
  'Idempotency-Key': {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY.source },
    description: 'Any unique string (1 to 255 visible ASCII characters): a retry with the same key and body returns the first response and creates nothing; kept 24 hours.',
  },
  'If-Match': { name: 'If-Match', in: 'header', required: false, schema: { type: 'string', pattern: HEADER_TEXT_PATTERN }, description: 'An ETag from a read; a stale one gives 412.' },
  'If-None-Match': {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    schema: { type: 'string', pattern: HEADER_TEXT_PATTERN },
    description: 'ETags of the copies the client holds (a list, W/ accepted, or *); the current one gives 304 without a body.',
  },
  limit: { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000 }, description: 'Page size; without it the whole list is returned.' },
  state: { name: 'state', in: 'query', required: false, schema: { type: 'string', enum: [...RESERVATION_STATES] }, description: 'Only reservations (or orders) in this state.' },
  cursor: { name: 'cursor', in: 'query', required: false, schema: { type: 'string' }, description: 'Opaque cursor from a Link rel="next".' },
};

export const HEADERS: Record<string, Schema> = {
  Location: { schema: { type: 'string' }, description: 'Path of the new object.' },
  ETag: { schema: { type: 'string' }, description: 'Version of the object, for If-Match.' },
  Link: { schema: { type: 'string' }, description: 'rel="next" with the cursor of the next page; on the deprecated list, the successor.' },
  Deprecation: { schema: { type: 'string' }, description: 'RFC 9745.' },
  'Retry-After': { schema: { type: 'integer' } },
  'WWW-Authenticate': { schema: { type: 'string' } },
  'RateLimit-Policy': {
    schema: { type: 'string' },
    description:
      'The rate-limit policies the request counted under (draft-ietf-httpapi-ratelimit-headers-11): per client address, and per access token when one was sent, e.g. `"address";q=2400;w=60, "token";q=1200;w=60`. On every answer but the health check\'s; absent when the limits are off. See docs/rate-limits.md.',
  },
  RateLimit: {
    schema: { type: 'string' },
    description: 'What is left under each policy: `r` requests for the next `t` seconds, e.g. `"address";r=2399;t=60, "token";r=1199;t=60`.',
  },
};

/** The rate-limit fields, on every answer of a limited path (docs/rate-limits.md). */
export const RATE_LIMIT_HEADERS = { 'RateLimit-Policy': HEADERS['RateLimit-Policy']!, RateLimit: HEADERS.RateLimit! };

export const ERROR_TEXT: Record<number, string> = {
  400: 'Malformed request (bad JSON, bad Company header, missing Company where one company is needed).',
  401: 'Missing, invalid, expired or revoked token, or a Company the token does not cover.',
  403: 'Forbidden: sign-up switched off (POST /users), or an API client\'s token where a user\'s own token is needed (then WWW-Authenticate: Bearer error="insufficient_scope").',
  404: 'Not found in the effective company set.',
  409: `Conflict: a duplicate e-mail, or a refused stock move whose \`code\` says why (${Object.keys(STOCK_CONFLICTS).join(', ')}).`,
  412: 'If-Match does not match.',
  413: 'Body over the size limit.',
  415: 'Unsupported content type.',
  431: 'Authorization and Company headers too large to forward (over 8 KiB together).',
  422: 'Validation failed: errors lists every invalid field.',
  429: 'Too many requests: a rate limit (RateLimit-Policy) is used up; retry after Retry-After seconds.',
  503: `A backend service or database is unavailable, or (\`code\` ${TICKET_BUSY}) too many buyers wait for the ticket of a new reservation, or (\`code\` ${SERVER_BUSY}) the gateway is too busy to take a new sale; retry after Retry-After.`,
  504: 'A backend service did not answer in time.',
};

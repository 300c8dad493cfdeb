import { EVENT } from '../../lib/fields/event.js';
import { ORDER } from '../../lib/fields/order.js';
import { MAX_UNITS_PER_ORDER, RESERVATION, RESERVATION_STATES } from '../../lib/fields/reservation.js';
import type { Resource } from '../../lib/fields/kinds.js';
import { TICKET } from '../../lib/fields/ticket.js';
import { UNLIMITED_PATHS } from '../rate-limits.js';
import { WEBHOOK } from '../../lib/webhooks/fields.js';
import { IDEMPOTENCY_KEY } from '../../lib/ids.js';
import { SERVER_BUSY, STOCK_CONFLICTS, TICKET_BUSY } from '../../lib/stock-conflicts.js';
import { COMPANY_HEADER_PATTERN, HEADER_TEXT_PATTERN } from './patterns.js';
import { componentSchemas, inputSchemas, type Schema } from './schemas.js';
import { startHere } from './start-here.js';

/**
 * The OpenAPI 3.1 document of the REST API. Schemas come from the tables that validate
 * requests (schemas.ts); the operations below are checked against the routes the gateway
 * really serves by test/gateway/openapi.test.ts, in both directions.
 */
type Method = 'get' | 'post' | 'put' | 'delete';

interface Operation {
  tag: 'auth' | 'events' | 'tickets' | 'stock' | 'webhooks' | 'operations';
  summary: string;
  /** What the docs page shows under the summary: what it does and what to expect. */
  description: string;
  operationId: string;
  /** Schema name of the body; sent as JSON, multipart or URL-encoded. */
  body?: string;
  /** The body may be left out altogether. */
  bodyOptional?: boolean;
  /** Success status -> schema name ('' = no body), plus the error statuses this operation answers. */
  ok: { status: number; schema: string; array?: boolean; headers?: string[]; contentType?: string };
  /** A conditional read: 304 when If-None-Match names the current ETag. */
  notModified?: boolean;
  errors: number[];
  public?: boolean;
  /** Names in PARAMETERS, or a parameter of its own (a path GUID described by its table row). */
  parameters?: Array<string | Schema>;
  deprecated?: boolean;
}

const EVENT_ERRORS = [400, 401, 404, 422, 503, 504];
const API_CLIENTS_BY_USERS = 'Only a user\'s own token (password or refresh_token grant) manages API clients; an API client\'s token gets 403.';

/** A path parameter naming an object by the GUID of its table (its description is the table row's). */
const guidParameter = (name: string, resource: Resource): Schema => ({
  name,
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
  description: resource.fields.guid!.description,
});

type ItemTexts = Record<'get' | 'put' | 'delete', { summary: string; description: string }>;

/** GET, PUT and DELETE of one object (gateway/resource-routes.ts: itemRoutes), named after its schema. */
function itemOperations(tag: Operation['tag'], schema: string, resource: Resource, texts: ItemTexts): Partial<Record<Method, Operation>> {
  const guid = guidParameter('guid', resource);
  const conditional = [guid, 'Company', 'If-Match'];
  return {
    get: {
      tag,
      operationId: `get${schema}`,
      summary: texts.get.summary,
      description: `${texts.get.description} The ETag header is its version: send it back as If-None-Match to get 304 (no body) while it is unchanged, or as If-Match to make a change conditional.`,
      ok: { status: 200, schema, headers: ['ETag'] },
      notModified: true,
      errors: EVENT_ERRORS,
      parameters: [guid, 'Company', 'If-None-Match'],
    },
    put: {
      tag,
      operationId: `update${schema}`,
      summary: texts.put.summary,
      description: `${texts.put.description} Only the fields sent change (a field sent as null, or empty in a form, is cleared when nullable); output-only fields may be sent back unchanged. With If-Match, a stale ETag gives 412 and changes nothing.`,
      body: `${schema}Update`,
      ok: { status: 200, schema, headers: ['ETag'] },
      errors: [...EVENT_ERRORS, 412, 413, 415],
      parameters: conditional,
    },
    delete: {
      tag,
      operationId: `delete${schema}`,
      summary: texts.delete.summary,
      description: `${texts.delete.description} With If-Match, a stale ETag gives 412 and deletes nothing; while reserved or pending stock is held, 409 stock_held. Afterwards it reads as 404.`,
      ok: { status: 204, schema: '' },
      errors: [...EVENT_ERRORS, 409, 412],
      parameters: conditional,
    },
  };
}

/** The event of a ticket path. */
const EVENT_GUID = guidParameter('eventGuid', EVENT);

function operations(authPrefix: string): Record<string, Partial<Record<Method, Operation>>> {
  return {
    [`${authPrefix}/users`]: {
      post: {
        tag: 'auth',
        operationId: 'signUp',
        summary: 'Sign up',
        description: 'Creates the user and a company that becomes its default_company_id.',
        body: 'SignUp',
        ok: { status: 201, schema: 'User' },
        errors: [400, 403, 409, 413, 415, 422, 503],
        public: true,
      },
    },
    [`${authPrefix}/users/me`]: {
      get: { tag: 'auth', operationId: 'getCurrentUser', summary: 'The token\'s user (also a quick token check)', description: 'The user the token was issued to; 401 when the token is missing, expired or revoked.', ok: { status: 200, schema: 'User' }, errors: [400, 401, 503], parameters: ['Company'] },
    },
    [`${authPrefix}/companies`]: {
      get: {
        tag: 'auth',
        operationId: 'listCompanies',
        summary: 'Companies the request is authorized for (after the Company header)',
        description: 'The companies the token was issued for, narrowed by the Company header. A company created after the token was issued needs a new token (company_id=*).',
        ok: { status: 200, schema: 'Company', array: true },
        errors: [400, 401, 503],
        parameters: ['Company'],
      },
      post: {
        tag: 'auth',
        operationId: 'createCompany',
        summary: 'Create a company; the caller becomes a member (a new token covers it)',
        description: 'The caller becomes a member; the current token does not cover the new company, a new token (company_id=* or its GUID) does.',
        body: 'NewCompany',
        ok: { status: 201, schema: 'Company' },
        errors: [400, 401, 413, 415, 422, 503],
      },
    },
    [`${authPrefix}/clients`]: {
      post: {
        tag: 'auth',
        operationId: 'createApiClient',
        summary: 'Create API client credentials for the client_credentials grant, limited to the request\'s companies',
        description: API_CLIENTS_BY_USERS,
        body: 'NewApiClient',
        ok: { status: 201, schema: 'ApiClientCreated' },
        errors: [400, 401, 403, 413, 415, 422, 503],
        parameters: ['Company'],
      },
      get: {
        tag: 'auth',
        operationId: 'listApiClients',
        summary: 'The caller\'s API clients inside the request\'s companies (without secrets)',
        description: API_CLIENTS_BY_USERS,
        ok: { status: 200, schema: 'ApiClient', array: true },
        errors: [400, 401, 403, 503],
        parameters: ['Company'],
      },
    },
    [`${authPrefix}/clients/{clientId}`]: {
      delete: {
        tag: 'auth',
        operationId: 'deleteApiClient',
        summary: 'Revoke an API client and every session it opened',
        description: `${API_CLIENTS_BY_USERS} A client acting for a company outside the request's companies answers 404.`,
        ok: { status: 204, schema: '' },
        errors: [400, 401, 403, 404, 503],
        parameters: ['clientId', 'Company'],
      },
    },
    [`${authPrefix}/tokens`]: {
      post: {
        tag: 'auth',
        operationId: 'issueToken',
        summary: 'OAuth2 token endpoint (password, refresh_token, client_credentials)',
        description: 'Errors are RFC 6749 bodies ({error, error_description}), never problem details. Rate limited per account and per address.',
        body: 'TokenRequest',
        ok: { status: 200, schema: 'TokenResponse' },
        errors: [],
        public: true,
      },
    },
    [`${authPrefix}/tokens/revoke`]: {
      post: {
        tag: 'auth',
        operationId: 'revokeToken',
        summary: 'Revoke an access or refresh token and its session (RFC 7009)',
        description: 'Ends the whole session the token belongs to: its access and refresh tokens stop working at once. Answers 200 for an unknown or already revoked token too (RFC 7009).',
        body: 'RevokeRequest',
        ok: { status: 200, schema: 'object' },
        errors: [],
        public: true,
      },
    },
    [`${authPrefix}/.well-known/jwks.json`]: {
      get: {
        tag: 'auth',
        operationId: 'getSigningKeys',
        summary: 'The public keys that verify access tokens (JWK Set, RFC 7517)',
        description:
          'Access tokens are ES256 JWTs whose header names their key (kid). The set holds the key that signs now and every other key whose tokens are still accepted; a key missing from it no longer verifies anything. Cacheable for a minute; fetch it again for a kid you do not know.',
        ok: { status: 200, schema: 'JwkSet', contentType: 'application/jwk-set+json' },
        errors: [503],
        public: true,
      },
    },
    '/event': {
      post: {
        tag: 'events',
        operationId: 'createEvent',
        summary: 'Create an event (needs exactly one company in scope)',
        description: 'The event belongs to the one company of the request (the token\'s, or the one the Company header names; 400 when several are in scope). Only name is required. An Idempotency-Key makes a retry return the first response.',
        body: 'EventCreate',
        ok: { status: 201, schema: 'Event', headers: ['Location', 'ETag'] },
        errors: [...EVENT_ERRORS, 413, 415],
        parameters: ['Company', 'Idempotency-Key'],
      },
      get: {
        tag: 'events',
        operationId: 'listEvents',
        summary: 'List events in creation order (all, streamed, or a page with limit)',
        description: 'Without limit every event of the request\'s companies comes back in one streamed array; with limit a page, and a Link header with rel="next" while more follow.',
        ok: { status: 200, schema: 'Event', array: true, headers: ['Link'] },
        errors: [400, 401, 422, 503, 504],
        parameters: ['Company', 'limit', 'cursor'],
      },
    },
    '/event/{guid}': itemOperations('events', 'Event', EVENT, {
      get: { summary: 'Get an event', description: 'The event, when it belongs to one of the request\'s companies (else 404).' },
      put: { summary: 'Update an event (partial)', description: 'Changes the fields sent.' },
      delete: { summary: 'Delete an event and its tickets (soft)', description: 'Marks the event and every ticket of it deleted.' },
    }),
    '/event/{eventGuid}/ticket': {
      post: {
        tag: 'tickets',
        operationId: 'createTicket',
        summary: 'Create a ticket for an event',
        description: 'Only name and vat_percentage are required; the other writable fields take their defaults. The answer has the 18 creation fields (status null). A new ticket has available_stock 0 and reads sold_out until its stock is set. An Idempotency-Key makes a retry return the first response.',
        body: 'TicketCreate',
        ok: { status: 201, schema: 'TicketCreated', headers: ['Location', 'ETag'] },
        errors: [...EVENT_ERRORS, 413, 415],
        parameters: [EVENT_GUID, 'Company', 'Idempotency-Key'],
      },
      get: {
        tag: 'tickets',
        operationId: 'listEventTickets',
        summary: 'List the tickets of an event in creation order',
        description: 'Without limit every ticket of the event comes back in one streamed array; with limit a page, and a Link header with rel="next" while more follow. 404 when the event is not in the request\'s companies.',
        ok: { status: 200, schema: 'Ticket', array: true, headers: ['Link'] },
        errors: [400, 401, 404, 422, 503, 504],
        parameters: [EVENT_GUID, 'Company', 'limit', 'cursor'],
      },
    },
    '/ticket': {
      get: {
        tag: 'tickets',
        operationId: 'listAllTickets',
        summary: 'List every ticket in scope (deprecated: use the per-event list)',
        description: 'Every ticket of the request\'s companies, streamed. Deprecated (Deprecation header, RFC 9745); the Link header names the per-event list as its successor.',
        deprecated: true,
        ok: { status: 200, schema: 'Ticket', array: true, headers: ['Deprecation', 'Link'] },
        errors: [400, 401, 503, 504],
        parameters: ['Company'],
      },
    },
    '/ticket/{guid}': itemOperations('tickets', 'Ticket', TICKET, {
      get: { summary: 'Get a ticket', description: 'All fields of the ticket, with its computed status, when it belongs to one of the request\'s companies (else 404).' },
      put: { summary: 'Update a ticket (partial: only the fields sent change)', description: 'Changes the fields sent, each checked by its rule (422 lists every invalid field).' },
      delete: { summary: 'Delete a ticket (soft)', description: 'Marks the ticket deleted.' },
    }),
    ...stockOperations(),
    ...orderOperations(),
    '/livez': {
      get: { tag: 'operations', operationId: 'liveness', summary: 'Liveness of the gateway process', description: '200 whenever the gateway process answers HTTP; no backend is asked, so a backend outage never fails it (a liveness probe restarts on failure).', ok: { status: 200, schema: 'Liveness' }, errors: [], public: true },
    },
    '/readyz': {
      get: { tag: 'operations', operationId: 'readiness', summary: 'Readiness of the gateway process itself', description: '200 while the gateway takes requests, 503 once it has begun to shut down. No backend is asked: while one is down the gateway stays in rotation and answers 503 problem+json with Retry-After itself (a readiness probe takes a draining gateway out of rotation).', ok: { status: 200, schema: 'Readiness' }, errors: [503], public: true },
    },
    ...webhookOperations(),
    '/healthz': {
      get: { tag: 'operations', operationId: 'health', summary: 'Readiness of the gateway and both services', description: '200 when the auth and ticket services answer their health checks, else 503 naming the one that does not.', ok: { status: 200, schema: 'Health' }, errors: [503], public: true },
    },
    '/openapi.json': {
      get: { tag: 'operations', operationId: 'openapi', summary: 'This document', description: 'The OpenAPI 3.1 description of the REST API, generated from the field tables the API validates with.', ok: { status: 200, schema: 'object' }, errors: [], public: true },
    },
    '/docs': {
      get: { tag: 'operations', operationId: 'docs', summary: 'API documentation page', description: 'This page: Authorize logs in with the password or client-credentials flow, then Try it out calls the API.', ok: { status: 200, schema: 'html', contentType: 'text/html' }, errors: [], public: true },
    },
    '/': {
      get: { tag: 'operations', operationId: 'index', summary: 'Where to go next: the docs, this document, the auth API and health', description: 'Links to the docs page, the OpenAPI document, the auth API and the health check; no token needed.', ok: { status: 200, schema: 'object' }, errors: [], public: true },
    },
  };
}

const MOVE_ERRORS = [...EVENT_ERRORS, 409, 413, 415];

/** Webhook endpoints (PRODUCT.md 10, docs/webhooks.md). */
function webhookOperations(): Record<string, Partial<Record<Method, Operation>>> {
  const guid = guidParameter('guid', WEBHOOK);
  const item = itemOperations('webhooks', 'Webhook', WEBHOOK, {
    get: { summary: 'Get a webhook endpoint', description: 'The endpoint, without its secret, when it belongs to one of the request\'s companies (else 404).' },
    put: { summary: 'Update a webhook endpoint (partial)', description: 'Changes url, events, description or enabled; a private target is 422 naming url.' },
    delete: { summary: 'Delete a webhook endpoint', description: 'Nothing more is sent to it.' },
  });
  return {
    '/webhooks': {
      post: {
        tag: 'webhooks',
        operationId: 'createWebhook',
        summary: 'Register a webhook endpoint (needs exactly one company in scope)',
        description: 'Events of the company are POSTed to url, signed per Standard Webhooks with the secret of this answer (shown only here). A loopback, private, link-local or metadata target is 422 naming url unless the operator allows private targets.',
        body: 'WebhookCreate',
        ok: { status: 201, schema: 'WebhookCreated', headers: ['Location'] },
        errors: [...EVENT_ERRORS, 413, 415],
        parameters: ['Company', 'Idempotency-Key'],
      },
      get: {
        tag: 'webhooks',
        operationId: 'listWebhooks',
        summary: 'List webhook endpoints in creation order',
        description: 'Every endpoint of the request\'s companies (no secrets); with limit a page and a Link header with rel="next".',
        ok: { status: 200, schema: 'Webhook', array: true, headers: ['Link'] },
        errors: [400, 401, 422, 503, 504],
        parameters: ['Company', 'limit', 'cursor'],
      },
    },
    '/webhooks/{guid}': { ...item, delete: { ...item.delete!, errors: [...EVENT_ERRORS, 412] } },
    '/webhooks/{guid}/test': {
      post: {
        tag: 'webhooks',
        operationId: 'sendWebhookTest',
        summary: 'Send a webhook.test event to this endpoint',
        description: 'Queues a signed webhook.test event for this endpoint only; 202 with its id (the webhook-id header it arrives with).',
        ok: { status: 202, schema: 'WebhookTestQueued' },
        errors: EVENT_ERRORS,
        parameters: [guid, 'Company'],
      },
    },
    '/webhooks/{guid}/deliveries': {
      get: {
        tag: 'webhooks',
        operationId: 'listWebhookDeliveries',
        summary: 'The endpoint\'s recent delivery attempts, newest first',
        description: 'The latest 100 attempts: event id and type, attempt number, response status, duration, error, next retry time.',
        ok: { status: 200, schema: 'WebhookDelivery', array: true },
        errors: EVENT_ERRORS,
        parameters: [guid, 'Company'],
      },
    },
  };
}

/** A move of a reservation or an order: POST {path}/{move}, answered with the object moved. */
function moveOperation(schema: 'Reservation' | 'Order', guid: Schema, move: { operationId: string; summary: string; description: string; body: string }): Operation {
  return {
    tag: 'stock',
    ...move,
    description: `${move.description} Refused with 409 invalid_transition from a state that does not allow it, reservation_expired once expired.`,
    bodyOptional: true,
    ok: { status: 200, schema },
    errors: MOVE_ERRORS,
    parameters: [guid, 'Company'],
  };
}

/** The stock moves (PRODUCT.md 9, docs/stock-moves.md). */
function stockOperations(): Record<string, Partial<Record<Method, Operation>>> {
  const ticketGuid = guidParameter('guid', TICKET);
  const reservationGuid = guidParameter('guid', RESERVATION);
  const move = (operationId: string, summary: string, description: string, body: string) => moveOperation('Reservation', reservationGuid, { operationId, summary, description, body });
  return {
    '/ticket/{guid}/reservations': {
      post: {
        tag: 'stock',
        operationId: 'reserveTicket',
        summary: 'Reserve stock of a ticket (409 insufficient_stock or not_on_sale)',
        description: 'Holds `amount` of the ticket\'s stock for `ttl_seconds`; never more than is left. The reserved_count rises at once. In an on-sale rush, when more moves of the ticket wait than the service queues (STOCK_MOVE_QUEUE_MAX, `code` ticket_busy), or while the gateway itself is overloaded (`code` server_busy), it is refused at once with 503 and Retry-After, nothing reserved.',
        body: 'ReservationCreate',
        ok: { status: 201, schema: 'Reservation', headers: ['Location'] },
        errors: MOVE_ERRORS,
        parameters: [ticketGuid, 'Company', 'Idempotency-Key'],
      },
      get: {
        tag: 'stock',
        operationId: 'listReservations',
        summary: 'List the reservations of a ticket in creation order',
        description: 'Page by page with limit and cursor (the Link keeps ?state=), or the whole list without them.',
        ok: { status: 200, schema: 'Reservation', array: true, headers: ['Link'] },
        errors: [400, 401, 404, 422, 503, 504],
        parameters: [ticketGuid, 'Company', 'state', 'limit', 'cursor'],
      },
    },
    '/reservation/{guid}': {
      get: {
        tag: 'stock',
        operationId: 'getReservation',
        summary: 'Get a reservation',
        description: 'The reservation as it is now: one whose time is up reads as expired.',
        ok: { status: 200, schema: 'Reservation' },
        errors: EVENT_ERRORS,
        parameters: [reservationGuid, 'Company'],
      },
    },
    '/reservation/{guid}/barcodes': {
      get: {
        tag: 'stock',
        operationId: 'listReservationBarcodes',
        summary: 'Every barcode of a reservation, in issue order',
        description: `Page by page with limit and cursor, or the whole list without them. The reservation object carries at most its first ${MAX_UNITS_PER_ORDER}; only one sold before that limit holds more.`,
        ok: { status: 200, schema: 'Barcode', array: true, headers: ['Link'] },
        errors: [400, 401, 404, 422, 503, 504],
        parameters: [reservationGuid, 'Company', 'limit', 'cursor'],
      },
    },
    '/reservation/{guid}/pending': {
      post: move('markReservationPending', 'Payment started: reserved -> pending', 'The amount moves from reserved_count to pending_count; it holds for ttl_seconds from now.', 'ReservationPending'),
    },
    '/reservation/{guid}/confirm': {
      post: move('confirmReservation', 'Sold: reserved or pending -> confirmed; barcodes are issued', 'The amount moves to sold_count; barcodes are generated, taken from the body (predefined) or none, by the ticket\'s barcode_type.', 'ReservationConfirm'),
    },
    '/reservation/{guid}/release': {
      post: move('releaseReservation', 'Give the stock back: reserved or pending -> released', 'The amount leaves reserved_count or pending_count.', 'ReservationEmpty'),
    },
    '/event/{guid}/scans': {
      post: {
        tag: 'stock',
        operationId: 'scanBarcode',
        summary: 'Admit a barcode of the event, once (409 already_scanned names the first scan)',
        description: 'The ticket\'s scanned_count rises by one; a barcode unknown to the event, or of another company, is 404.',
        body: 'ScanCreate',
        ok: { status: 201, schema: 'Scan' },
        errors: MOVE_ERRORS,
        parameters: [guidParameter('guid', EVENT), 'Company'],
      },
    },
  };
}

/** The orders (PRODUCT.md 12, docs/orders.md): the moves of a reservation for all lines at once. */
function orderOperations(): Record<string, Partial<Record<Method, Operation>>> {
  const orderGuid = guidParameter('guid', ORDER);
  const description = 'Every line moves, as a reservation of its ticket would, or none.';
  const move = (operationId: string, summary: string, body: string) => moveOperation('Order', orderGuid, { operationId, summary, description, body });
  return {
    '/event/{guid}/orders': {
      post: {
        tag: 'stock',
        operationId: 'createOrder',
        summary: 'Sell a cart: reserve every line\'s stock, or none (422 or 409 names the line)',
        description: 'Each line names a live ticket of this event, each ticket at most once, at most 1,000 units in all, and a ticket sold alone (combines_products false) only on its own; each line passes the checks of a reservation of its ticket. When one fails nothing is taken: 422 naming lines[i].field, or 409 with its code and ticket_id. An order of one ticket is refused at once with 503 and Retry-After, nothing reserved, when more moves of that ticket wait than the service queues (`code` ticket_busy); any order is, while the gateway itself is overloaded (`code` server_busy).',
        body: 'OrderCreate',
        ok: { status: 201, schema: 'Order', headers: ['Location'] },
        errors: MOVE_ERRORS,
        parameters: [guidParameter('guid', EVENT), 'Company', 'Idempotency-Key'],
      },
      get: {
        tag: 'stock',
        operationId: 'listOrders',
        summary: 'List the orders of an event in creation order',
        description: 'Page by page with limit and cursor (the Link keeps ?state=), or the whole list without them. A page may stop early when its orders carry many barcodes; its Link leads on.',
        ok: { status: 200, schema: 'Order', array: true, headers: ['Link'] },
        errors: [400, 401, 404, 422, 503, 504],
        parameters: [guidParameter('guid', EVENT), 'Company', 'state', 'limit', 'cursor'],
      },
    },
    '/order/{guid}': {
      get: {
        tag: 'stock',
        operationId: 'getOrder',
        summary: 'Get an order',
        description: 'The order as it is now: one whose time is up reads as expired.',
        ok: { status: 200, schema: 'Order' },
        errors: EVENT_ERRORS,
        parameters: [orderGuid, 'Company'],
      },
    },
    '/order/{guid}/pending': { post: move('markOrderPending', 'Payment started: reserved -> pending, every line', 'ReservationPending') },
    '/order/{guid}/confirm': { post: move('confirmOrder', 'Sold: reserved or pending -> confirmed, every line; barcodes are issued', 'OrderConfirm') },
    '/order/{guid}/release': { post: move('releaseOrder', 'Give every line\'s stock back: reserved or pending -> released', 'ReservationEmpty') },
    '/order/{guid}/barcodes/{code}': {
      put: {
        tag: 'stock',
        operationId: 'setBarcodeHolder',
        summary: 'Name, change or clear who may enter with a barcode of the order (409 not_personalizable)',
        description:
          'Only a barcode of one of the order\'s lines (an order has barcodes once confirmed; any other code is 404). A first holder needs the ticket\'s late_personalization; a different holder, or null, its swappable; otherwise 409 not_personalizable. The same holder again is 200 with no change. Answers the order.',
        body: 'BarcodeHolderUpdate',
        ok: { status: 200, schema: 'Order' },
        errors: MOVE_ERRORS,
        parameters: [orderGuid, { name: 'code', in: 'path', required: true, schema: { type: 'string', maxLength: 64 }, description: 'The barcode.' }, 'Company'],
      },
    },
  };
}

const PARAMETERS: Record<string, Schema> = {
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

const HEADERS: Record<string, Schema> = {
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
const RATE_LIMIT_HEADERS = { 'RateLimit-Policy': HEADERS['RateLimit-Policy']!, RateLimit: HEADERS.RateLimit! };

const ERROR_TEXT: Record<number, string> = {
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

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const BODY_TYPES = ['application/json', 'multipart/form-data', 'application/x-www-form-urlencoded'];
const INPUT_SCHEMAS = inputSchemas();
const COMPONENT_SCHEMAS = componentSchemas();

/** A request body: the same schema in every body format the gateway reads, with its example (the one the docs page pre-fills). */
const bodyOf = (schema: Schema, description?: unknown): Schema => {
  const named = typeof schema.$ref === 'string' ? COMPONENT_SCHEMAS[schema.$ref.split('/').pop()!] : schema;
  const example = (named?.examples as unknown[] | undefined)?.[0];
  return {
    ...(description ? { description } : {}),
    required: true,
    content: Object.fromEntries(BODY_TYPES.map((type) => [type, { schema, ...(example === undefined ? {} : { example }) }])),
  };
};

/**
 * The resources' creation and update bodies (schemas.ts: inputSchemas), the schema inline in
 * each format (a JSON-pointer $ref into a request body is not resolved by openapi-typescript).
 */
const requestBodies = (optional: ReadonlySet<string>): Record<string, Schema> =>
  Object.fromEntries(
    Object.entries(INPUT_SCHEMAS).map(([name, schema]) => [name, { ...bodyOf(schema, schema.description), ...(optional.has(name) ? { required: false } : {}) }]),
  );

/** An operation's body: the shared component when there is one. */
function requestBodyOf(name: string): Schema {
  return Object.hasOwn(INPUT_SCHEMAS, name) ? { $ref: `#/components/requestBodies/${name}` } : bodyOf(ref(name));
}

function successResponse(ok: Operation['ok'], limited: boolean): Schema {
  const headers = { ...Object.fromEntries((ok.headers ?? []).map((h) => [h, HEADERS[h]!])), ...(limited ? RATE_LIMIT_HEADERS : {}) };
  const withHeaders = Object.keys(headers).length ? { headers } : {};
  const description = ok.status === 204 ? 'Done; no body.' : 'Success.';
  if (ok.status === 204 || ok.schema === '') return { description, ...withHeaders };
  let schema: Schema = ok.schema === 'object' ? { type: 'object' } : ok.schema === 'text' || ok.schema === 'html' ? { type: 'string' } : ref(ok.schema);
  if (ok.array) schema = { type: 'array', items: schema };
  return { description, ...withHeaders, content: { [ok.contentType ?? 'application/json']: { schema } } };
}

/** `limited`: the path is rate limited (every path but the health check's); `readsBody`: the gateway reads a body of this method (POST, PUT, PATCH), even where the operation takes none. */
function build(operation: Operation, limited: boolean, readsBody: boolean): Schema {
  const responses: Record<string, Schema> = { [String(operation.ok.status)]: successResponse(operation.ok, limited) };
  if (operation.notModified) responses['304'] = { description: 'Not modified: the client\'s copy is current.', headers: { ETag: HEADERS.ETag, ...RATE_LIMIT_HEADERS } };
  const tokenEndpoint = operation.operationId === 'issueToken' || operation.operationId === 'revokeToken';
  // What the gateway itself answers before any service: headers it cannot forward, bodies it cannot read.
  const gatewayErrors = [...(operation.tag === 'operations' ? [] : tokenEndpoint ? [400, 431] : [400, 401, 431]), ...(operation.body || readsBody ? [413, 415] : []), ...(limited ? [429] : [])];
  for (const status of [...new Set([...operation.errors, ...gatewayErrors])].sort()) responses[String(status)] = { $ref: `#/components/responses/E${status}` };
  if (tokenEndpoint) {
    const oauth = { content: { 'application/json': { schema: ref('OAuthError') } } };
    const retry = { 'Retry-After': HEADERS['Retry-After'] };
    for (const status of gatewayErrors) responses[String(status)] = { description: `RFC 6749 invalid_request: ${ERROR_TEXT[status]}`, headers: RATE_LIMIT_HEADERS, ...oauth };
    responses['400'] = { description: 'RFC 6749 error.', headers: RATE_LIMIT_HEADERS, ...oauth };
    if (operation.operationId === 'issueToken') responses['401'] = { description: 'invalid_client.', headers: RATE_LIMIT_HEADERS, ...oauth };
    responses['429'] = {
      description: `Too many requests: the API's rate limit (RateLimit-Policy)${operation.operationId === 'issueToken' ? ', or too many token requests from this address or failed attempts for this account (TOKEN_RATE_LIMIT_*)' : ''}.`,
      headers: { ...retry, ...RATE_LIMIT_HEADERS },
      ...oauth,
    };
    responses['503'] = { description: 'temporarily_unavailable.', headers: { ...retry, ...RATE_LIMIT_HEADERS }, ...oauth };
  }
  return {
    tags: [operation.tag],
    operationId: operation.operationId,
    summary: operation.summary,
    description: operation.description,
    ...(operation.deprecated ? { deprecated: true } : {}),
    ...(operation.public ? { security: [] } : {}),
    ...(operation.parameters ? { parameters: operation.parameters.map((p) => (typeof p === 'string' ? PARAMETERS[p] : p)) } : {}),
    ...(operation.body ? { requestBody: requestBodyOf(operation.body) } : {}),
    responses,
  };
}

/**
 * A bearer token pasted in, or got by the docs page itself through the token endpoint's
 * OAuth2 flows. The tokenUrl is relative (resolved against the server URL, itself relative
 * to this document), so both keep working behind a path prefix.
 */
function securitySchemes(authPrefix: string): Record<string, Schema> {
  const tokenUrl = `${authPrefix.replace(/^\//, '')}/tokens`;
  return {
    bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: `An access token from POST ${authPrefix}/tokens, pasted in.` },
    password: {
      type: 'oauth2',
      description:
        `A user logs in: the e-mail address and password of sign-up (client_id and client_secret stay empty); the page gets the token from POST ${authPrefix}/tokens. ` +
        'The token covers the user\'s default company. No scopes.',
      flows: { password: { tokenUrl, scopes: {} } },
    },
    clientCredentials: {
      type: 'oauth2',
      description: `An API client (POST ${authPrefix}/clients): its client_id and client_secret; the page gets the token from POST ${authPrefix}/tokens. No scopes.`,
      flows: { clientCredentials: { tokenUrl, scopes: {} } },
    },
  };
}

export function openApiDocument(options: { authPrefix: string; serverUrl?: string }): Schema {
  const paths: Record<string, Record<string, Schema>> = {};
  /** Bodies an operation lets be left out altogether (the stock moves). */
  const optionalBodies = new Set<string>();
  for (const [path, methods] of Object.entries(operations(options.authPrefix))) {
    paths[path] = Object.fromEntries(Object.entries(methods).map(([method, operation]) => [method, build(operation!, !UNLIMITED_PATHS.has(path), ['post', 'put', 'patch'].includes(method))]));
    for (const operation of Object.values(methods)) if (operation?.body && operation.bodyOptional) optionalBodies.add(operation.body);
  }
  const errorResponses = Object.fromEntries(
    Object.entries(ERROR_TEXT).map(([status, description]) => {
      // Shared by every path, so the health check's 503 lists the rate-limit fields too (it never carries them).
      const headers: Record<string, Schema> = { ...RATE_LIMIT_HEADERS };
      if (status === '401' || status === '403') headers['WWW-Authenticate'] = HEADERS['WWW-Authenticate']!;
      if (status === '429' || status === '503') headers['Retry-After'] = HEADERS['Retry-After']!;
      return [`E${status}`, { description, ...(Object.keys(headers).length ? { headers } : {}), content: { 'application/problem+json': { schema: ref('Problem') } } }];
    }),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Ticketing API',
      version: '1.0.0',
      description: startHere(options.authPrefix),
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    // Relative to this document, so the API keeps working behind a path prefix.
    servers: [{ url: options.serverUrl ?? '.', description: 'This gateway: the server that serves this document, under the same path prefix.' }],
    tags: [
      { name: 'auth', description: 'Accounts, tokens and companies (the auth service).' },
      { name: 'events', description: 'Events (the ticket service).' },
      { name: 'tickets', description: 'Tickets of events (the ticket service).' },
      { name: 'stock', description: 'Stock moves: reserve, pay, confirm, release, expire, scan (docs/stock-moves.md).' },
      { name: 'webhooks', description: 'Signed webhooks of every change (docs/webhooks.md).' },
      { name: 'operations', description: 'Health and this documentation.' },
    ],
    security: [{ bearer: [] }, { password: [] }, { clientCredentials: [] }],
    paths,
    components: {
      securitySchemes: securitySchemes(options.authPrefix),
      schemas: COMPONENT_SCHEMAS,
      requestBodies: requestBodies(optionalBodies),
      responses: errorResponses,
    },
  };
}

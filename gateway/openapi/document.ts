import { UNLIMITED_PATHS } from '../rate-limits.js';
import { ERROR_TEXT, HEADERS, PARAMETERS, RATE_LIMIT_HEADERS } from './components.js';
import type { Operation } from './operation.js';
import { authPaths } from './paths/auth.js';
import { eventPaths } from './paths/events.js';
import { operationPaths } from './paths/operations.js';
import { stockPaths } from './paths/stock.js';
import { ticketPaths } from './paths/tickets.js';
import { webhookPaths } from './paths/webhooks.js';
import { couponPaths } from './paths/coupons.js';
import { componentSchemas, inputSchemas, type Schema } from './schemas.js';
import { startHere } from './start-here.js';

/**
 * The OpenAPI 3.1 document of the REST API, assembled from its operations (paths/, a file per
 * tag). Schemas come from the tables that validate requests (schemas.ts); the operations are
 * checked against the routes the gateway really serves by test/gateway/openapi.test.ts, in
 * both directions.
 */

const operations = (authPrefix: string) => ({ ...authPaths(authPrefix), ...eventPaths(), ...ticketPaths(), ...stockPaths(), ...webhookPaths(), ...couponPaths(), ...operationPaths() });

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const BODY_TYPES = ['application/json', 'multipart/form-data', 'application/x-www-form-urlencoded'];

/** A body with a nested object or a list of them (an order's lines, a holder) is read from JSON only: a form cannot carry it. */
function carriesObjects(schema: Schema): boolean {
  const isObject = (property: Schema | undefined) => [property?.type].flat().includes('object');
  return Object.values((schema.properties ?? {}) as Record<string, Schema>).some((property) => isObject(property) || isObject(property.items as Schema | undefined));
}
const INPUT_SCHEMAS = inputSchemas();
const COMPONENT_SCHEMAS = componentSchemas();

/** A request body: the same schema in every body format the gateway reads, with its example (the one the docs page pre-fills). */
const bodyOf = (schema: Schema, description?: unknown): Schema => {
  const named = typeof schema.$ref === 'string' ? COMPONENT_SCHEMAS[schema.$ref.split('/').pop()!] : schema;
  const example = (named?.examples as unknown[] | undefined)?.[0];
  return {
    ...(description ? { description } : {}),
    required: true,
    content: Object.fromEntries((carriesObjects(named ?? schema) ? ['application/json'] : BODY_TYPES).map((type) => [type, { schema, ...(example === undefined ? {} : { example }) }])),
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
      { name: 'coupons', description: 'Coupons of events and their codes (docs/coupons.md).' },
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

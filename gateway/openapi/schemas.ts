import { EVENT } from '../../lib/fields/event.js';
import { creationFields, defaultsOf, INT32_MAX, requiredFields, type FieldDef, type FieldTable, type Resource } from '../../lib/fields/kinds.js';
import { TICKET } from '../../lib/fields/ticket.js';
import { SIGN_UP, USER } from '../../lib/fields/user.js';
import { MOVE_BODIES, RESERVATION, SCAN } from '../../lib/fields/reservation.js';
import { MOVES, SALE_MOVES } from '../../lib/stock-moves.js';
import { integersUpTo } from '../../lib/webhooks/url-pattern.js';
import { CURRENCY_DIGITS } from '../../lib/money.js';
import { ORDER, ORDER_BODIES, ORDER_FIELDS, ORDER_LINES, SET_HOLDER } from '../../lib/fields/order.js';
import { BUSY_CODES, SERVER_BUSY, STOCK_CONFLICTS, TICKET_BUSY } from '../../lib/stock-conflicts.js';
import { DELIVERY, WEBHOOK } from '../../lib/webhooks/fields.js';
import { ADD_CODES, CODE_PATTERN, COUPON, COUPON_CODE, PREFIX_PATTERN } from '../../lib/fields/coupon.js';
import { NEW_NAME_FIELDS } from '../../lib/fields/user.js';
import { exampleBody, exampleOf } from './examples.js';
import { decimalPattern, HTTP_URL_PATTERN, NOT_BLANK_PATTERN, TIMESTAMP_PATTERN } from './patterns.js';

/**
 * JSON Schemas (OpenAPI 3.1 = JSON Schema 2020-12) generated from the field tables the API
 * runs on (lib/fields): kinds, value rules, roles (every field but a writable one is
 * readOnly), defaults, examples (examples.ts), descriptions and the creation field list.
 */
export type Schema = Record<string, unknown>;

const TIMESTAMP: Schema = { type: 'string', format: 'date-time', examples: ['2027-07-01T18:00:00+00:00'] };
const GUID: Schema = { type: 'string', format: 'uuid' };
/** The currencies an event may have (lib/money.ts). */
const CURRENCY_SCHEMA: Schema = { enum: Object.keys(CURRENCY_DIGITS).sort() };

const nullable = (schema: Schema): Schema => ({ ...schema, type: [schema.type as string, 'null'] });

/** What a boolean field takes (gateway/field-input.ts): the JSON booleans and their string and number forms. */
const BOOLEAN_FORMS = [true, false, 'true', 'false', '1', '0', 1, 0];

/** What the field's role says: a field the client does not write is readOnly (generated clients and the docs page leave it out of a request). */
const roleOf = (def: FieldDef): Schema => (def.role === 'writable' ? {} : { readOnly: true });

/** What a field looks like in a response. */
function responseSchema(def: FieldDef): Schema {
  const kind = def.kind;
  let schema: Schema;
  switch (kind.type) {
    case 'guid':
      schema = GUID;
      break;
    case 'text':
      // What was stored is answered as it is (a private target's URL too): the format without the request's pattern.
      schema = kind.format === 'currency' ? { type: 'string', ...CURRENCY_SCHEMA } : kind.format ? { type: 'string', format: kind.format === 'url' ? 'uri' : kind.format } : { type: 'string' };
      break;
    case 'decimal':
      schema = { type: 'number' };
      break;
    case 'integer':
      schema = { type: 'integer' };
      break;
    case 'boolean':
      schema = { type: 'boolean' };
      break;
    case 'timestamp':
      schema = TIMESTAMP;
      break;
    case 'enum':
      schema = { type: 'string', enum: def.nullable ? [...kind.values, null] : [...kind.values] };
      break;
    case 'text-list':
      schema = { type: 'array', items: { type: 'string' } };
      break;
    case 'object':
      schema = nestedObject(kind.fields, responseSchema);
      break;
    case 'object-list':
      schema = { type: 'array', items: nestedObject(kind.fields, responseSchema) };
      break;
  }
  return { ...(def.nullable ? nullable(schema) : schema), ...roleOf(def), description: def.description, examples: [exampleOf(def)] };
}

/** A text kind's format: `url` is an absolute http(s) URL, stated by a pattern too. */
function formatOf(kind: FieldDef['kind']): Schema {
  if (kind.type !== 'text' || !kind.format) return {};
  if (kind.format === 'currency') return CURRENCY_SCHEMA;
  return kind.format === 'url' ? { format: 'uri', pattern: HTTP_URL_PATTERN } : { format: kind.format };
}

/** What a client may send for a writable field, from its value rule. */
function ruleSchema(def: FieldDef): Schema {
  const kind = def.kind;
  const described = (schema: Schema, note?: string): Schema => ({ ...schema, description: note ? `${def.description} ${note}` : def.description, examples: [exampleOf(def)] });
  switch (kind.type) {
    case 'guid':
    case 'text': {
      const minLength = kind.type === 'text' ? (kind.min ?? (kind.notBlank ? 1 : undefined)) : undefined;
      // A URL's pattern says more than "not blank"; a text's pattern is at most one.
      const notBlank = kind.type === 'text' && kind.notBlank && kind.format !== 'url' ? { pattern: NOT_BLANK_PATTERN } : {};
      const schema: Schema = {
        type: 'string',
        ...(kind.type === 'guid' ? { format: 'uuid' } : formatOf(kind)),
        ...(kind.type === 'text' ? { maxLength: kind.max } : {}),
        ...(minLength !== undefined ? { minLength } : {}),
        ...notBlank,
        ...(def.writeOnly ? { writeOnly: true } : {}),
      };
      return described(def.nullable ? nullable(schema) : schema);
    }
    case 'decimal':
      // minimum and maximum hold for a number, the pattern for the string form; "at most 2 decimals" of a
      // number stays in words: multipleOf 0.01 fails binary floating point validators (9.99 / 0.01).
      return described(
        {
          type: def.nullable ? ['number', 'string', 'null'] : ['number', 'string'],
          minimum: Number(kind.min),
          maximum: Number(kind.max),
          pattern: decimalPattern(kind),
        },
        `A number from ${kind.min} to ${kind.max} with at most 2 decimals; its string form is accepted too. Stored exactly.`,
      );
    case 'integer': {
      // As for a decimal: minimum and maximum hold for a number, the pattern for the string form (spelled out for ranges from 0 or 1).
      const max = kind.max ?? INT32_MAX;
      if (kind.min !== 0 && kind.min !== 1) return described({ type: 'integer', minimum: kind.min, maximum: max });
      const upTo = integersUpTo(String(max));
      // From 1: without the alternative that is 0 (a one-digit maximum's range starts at 1).
      const alternatives = kind.min === 0 ? upTo : upTo.filter((a) => a !== '0').map((a) => a.replace(/^\[0-/, '[1-'));
      const pattern = `^(?:${alternatives.join('|')})$`;
      const type = def.nullable ? ['integer', 'string', 'null'] : ['integer', 'string'];
      return described({ type, minimum: kind.min, maximum: max, pattern }, 'Its string form is accepted too.');
    }
    case 'boolean':
      return described({ enum: [...BOOLEAN_FORMS, ...(def.nullable ? [null] : [])] }, 'true or false; the forms "true", "false", "1", "0", 1 and 0 are accepted too (a form body sends only strings).');
    case 'enum':
      return described({ type: 'string', enum: [...kind.values] });
    case 'text-list':
      return described({
        type: 'array',
        items: kind.values ? { type: 'string', enum: [...kind.values] } : { type: 'string' },
        ...(kind.minItems ? { minItems: kind.minItems } : {}),
        ...(kind.maxItems ? { maxItems: kind.maxItems } : {}),
      });
    case 'timestamp': {
      const timestamp = { ...TIMESTAMP, pattern: TIMESTAMP_PATTERN };
      return described(def.nullable ? nullable(timestamp) : timestamp, 'Must carry a UTC offset (Z or +HH:MM).');
    }
    case 'object': {
      const object = nestedObject(kind.fields, ruleSchema, requiredFields(kind.fields));
      return described(def.nullable ? nullable(object) : object);
    }
    case 'object-list':
      return described({ type: 'array', items: nestedObject(kind.fields, ruleSchema, requiredFields(kind.fields)), ...(kind.maxItems ? { maxItems: kind.maxItems } : {}) });
  }
}

/** A nested object of a field table (a holder, an order line): each member by `schemaOf`; `required`: those it must have (every member, as it reads). */
function nestedObject(fields: FieldTable, schemaOf: (def: FieldDef) => Schema, required?: string[]): Schema {
  const members = Object.keys(fields).filter((field) => !fields[field]!.notInJson);
  const properties = Object.fromEntries(members.map((field) => [field, schemaOf(fields[field]!)]));
  return { type: 'object', properties, required: required ?? members, additionalProperties: false };
}

function objectOf(fields: Iterable<string>, schemaOf: (field: string) => Schema, extra: Schema = {}): Schema {
  const properties = Object.fromEntries([...fields].map((field) => [field, schemaOf(field)]));
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false, ...extra };
}

/** The fields of a resource's JSON object. */
const jsonFields = (resource: Resource) => Object.keys(resource.fields).filter((field) => !resource.fields[field]!.notInJson);

/** The creation answer of a webhook endpoint: the object with its secret, the one answer that shows it. */
function webhookCreatedSchema(): Schema {
  const table: Resource['fields'] = WEBHOOK.fields;
  const fields = Object.keys(table).filter((field) => field === 'secret' || !table[field]!.notInJson);
  return objectOf(fields, (field) => responseSchema(table[field]!), { description: 'The new endpoint with its signing secret: shown only in this response.' });
}

/** A resource as it reads (every field). */
function resourceSchema(resource: Resource, description: string): Schema {
  return objectOf(jsonFields(resource), (field) => responseSchema(resource.fields[field]!), { description });
}

/** The creation response: the fields marked for it, computed ones null. */
function creationSchema(resource: Resource, description: string): Schema {
  const schemaOf = (field: string) => {
    const def = resource.fields[field]!;
    return def.role === 'computed' ? { type: 'null', readOnly: true, description: def.description } : responseSchema(def);
  };
  return objectOf(creationFields(resource.fields), schemaOf, { description });
}

const SERVER_MANAGED_NOTE = 'Read-only, managed by the service: may be sent back unchanged; a different value is refused (422).';
const IGNORED_NOTE = 'Read-only: ignored when sent.';

/** A request body of a resource: the writable fields by their rules (with defaults at creation), the others as they read. */
function inputSchema(resource: Resource, creation: boolean, description: string): Schema {
  const defaults: Record<string, unknown> = creation ? defaultsOf(resource.fields) : {};
  const properties: Record<string, Schema> = {};
  for (const field of jsonFields(resource)) {
    const def = resource.fields[field]!;
    if (def.role === 'writable') {
      const fallback = defaults[field];
      const withDefault = fallback === undefined ? {} : { default: def.kind.type === 'decimal' && fallback !== null ? Number(fallback) : fallback };
      properties[field] = { ...ruleSchema(def), ...withDefault };
    } else {
      properties[field] = { ...responseSchema(def), description: `${def.description} ${def.role === 'server-managed' ? SERVER_MANAGED_NOTE : IGNORED_NOTE}` };
    }
  }
  const required = creation ? requiredFields(resource.fields) : [];
  return { type: 'object', description, properties, ...(required.length ? { required } : {}), additionalProperties: false, examples: [exampleBody(resource)] };
}

/** A request body that is not a resource (sign-up): its fields by their rules; keys it lacks are ignored. */
function requestSchema(resource: Resource, description: string): Schema {
  const properties = Object.fromEntries(Object.entries(resource.fields).map(([field, def]) => [field, ruleSchema(def)]));
  return { type: 'object', description, required: requiredFields(resource.fields), properties, examples: [exampleBody(resource)] };
}

const readOnly = (schema: Schema, description: string): Schema => ({ ...schema, readOnly: true, description });

/** A company (gateway/json.ts: companyJson). */
const COMPANY_FIELDS: Record<string, Schema> = {
  guid: readOnly(GUID, 'The company\'s id: name it in the Company header or a token request\'s company_id.'),
  name: readOnly({ type: 'string' }, 'The company\'s name.'),
  created_at: readOnly(TIMESTAMP, 'When the company was created.'),
  updated_at: readOnly(TIMESTAMP, 'When the company last changed.'),
};

/** An API client (gateway/json.ts: apiClientJson), its secret in the creation answer only. */
const API_CLIENT_FIELDS: Record<string, Schema> = {
  client_id: readOnly(GUID, 'The client_id of the client_credentials grant.'),
  name: readOnly({ type: 'string' }, 'The name given at creation.'),
  company_ids: readOnly({ type: 'array', items: GUID }, 'The companies its tokens may cover, at most.'),
  created_at: readOnly(TIMESTAMP, 'When it was created.'),
  client_secret: readOnly({ type: 'string' }, 'The client_secret of the client_credentials grant: shown only in this answer, store it now.'),
};

/** The body naming a new company or API client (lib/fields/user.ts: NEW_NAME_FIELDS), with an example name of its own. */
const namedBody = (description: string, example: string): Schema => ({
  ...requestSchema({ noun: 'name', fields: { name: { ...NEW_NAME_FIELDS.name, example } }, orderRules: [] }, description),
});

/** An order request body: its own fields, and `lines`, each by the line table (where it has one). */
function orderInputSchema(bodies: { own: Resource; line?: Resource }, linesRequired: boolean, description: string): Schema {
  const own = inputSchema(bodies.own, true, description);
  if (!bodies.line) return own;
  const line = inputSchema(bodies.line, true, 'One line.');
  const lines = { type: 'array', ...(linesRequired ? { minItems: ORDER_LINES.min } : {}), maxItems: ORDER_LINES.max, description: ORDER_FIELDS.lines.description, items: line };
  const example = { lines: [exampleBody(bodies.line)], ...exampleBody(bodies.own) };
  return { ...own, properties: { lines, ...(own.properties as Schema) }, ...(linesRequired ? { required: ['lines'] } : {}), examples: [example] };
}

/** The extension members a refused stock move adds to a problem. */
const STOCK_PROBLEM_MEMBERS: Record<string, Schema> = {
  code: {
    type: 'string',
    enum: [...Object.keys(STOCK_CONFLICTS), ...BUSY_CODES],
    description: `A 409 of a stock move (or of a delete blocked by held stock): why, for the shop to explain. ${TICKET_BUSY}: a 503 refusing a reservation because too many buyers wait for its ticket; ${SERVER_BUSY}: a 503 refusing a new reservation or order because the gateway itself is overloaded; either way nothing was reserved, try again after Retry-After.`,
  },
  scanned_at: { ...TIMESTAMP, description: 'already_scanned: when the barcode was first scanned.' },
  cancelled_at: { ...TIMESTAMP, description: 'barcode_cancelled: when the barcode was cancelled.' },
  barcode: { type: 'string', description: 'already_scanned or barcode_cancelled refusing a cancellation: the barcode named that was scanned or cancelled already.' },
  ticket_id: { ...GUID, description: 'A refused order line: the GUID of its ticket.' },
  coupon_code: { type: 'string', description: 'coupon_code_taken: the code that is taken within the event (ignoring case).' },
  remaining: { type: 'integer', minimum: 0, description: 'insufficient_stock: how many can still be reserved (available_stock - availability_margin - sold_count - reserved_count - pending_count); a smaller amount up to it may succeed.' },
};

/** POST /coupon/:guid/codes: the body by its table, with the patterns of a code and of a prefix. */
function codesAddSchema(): Schema {
  const schema = inputSchema(ADD_CODES, true, 'Either codes or generate (with an optional prefix), not both; a null limit means no limit. JSON for codes.');
  const properties = schema.properties as Record<string, Schema>;
  const codes = properties.codes as Schema & { items: Schema & { properties: Record<string, Schema> } };
  const code = codes.items.properties.code!;
  codes.items.properties.code = { ...code, pattern: CODE_PATTERN };
  properties.codes = { ...codes, minItems: 1 };
  const prefix = properties.prefix!;
  properties.prefix = { ...prefix, pattern: PREFIX_PATTERN };
  return { ...schema, examples: [{ generate: 10, prefix: 'SUMMER-' }] };
}

/**
 * The request bodies of the resources (creation and update), as `components.requestBodies`
 * rather than `components.schemas`: a generator reads a `default` in a schema as "always
 * present" (openapi-typescript's defaultNonNullable makes such a property required), which
 * holds for what the server returns, not for what a client sends. Inside a request body a
 * default is what it is: the value taken when the field is not sent.
 */
export function inputSchemas(): Record<string, Schema> {
  return {
    TicketCreate: inputSchema(TICKET, true, `${requiredFields(TICKET.fields).join(' and ')} are required; other writable fields may be set too. JSON, multipart or URL-encoded.`),
    TicketUpdate: inputSchema(TICKET, false, 'Any subset of the ticket fields; only those sent change. null (or an empty form value) clears a nullable field.'),
    EventCreate: inputSchema(EVENT, true, 'A new event.'),
    EventUpdate: inputSchema(EVENT, false, 'Any subset of the event fields.'),
    // The stock moves' bodies (lib/fields/reservation.ts).
    ReservationCreate: inputSchema(MOVE_BODIES.reserve, true, 'A reservation of the ticket\'s stock.'),
    // The bodies of the moves of a sale, named by their rows (lib/stock-moves.ts `wire.body`).
    ...Object.fromEntries(
      SALE_MOVES.map((move) => {
        const body = MOVE_BODIES[move];
        return [`Reservation${MOVES[move].wire.body}`, inputSchema(body, true, Object.keys(body.fields).length ? `${MOVES[move].wire.summary}.` : 'No fields.')];
      }),
    ),
    ScanCreate: inputSchema(MOVE_BODIES.scan, true, 'A barcode read at the door.'),
    OrderCreate: orderInputSchema(ORDER_BODIES.create, true, 'A cart: every line is taken, or none. JSON only.'),
    OrderConfirm: orderInputSchema(ORDER_BODIES.confirm, false, 'Sold: each line\'s barcodes are issued; only the lines of predefined tickets need one. JSON only.'),
    OrderCancel: orderInputSchema(ORDER_BODIES.cancel, false, `${MOVES.cancel.wire.summary}; the cancellation is recorded with its refund_amount.`),
    BarcodeHolderUpdate: inputSchema(SET_HOLDER, true, 'The barcode\'s holder, or null to clear it. JSON only.'),
    WebhookCreate: inputSchema(WEBHOOK, true, 'A new webhook endpoint (docs/webhooks.md).'),
    WebhookUpdate: inputSchema(WEBHOOK, false, 'Any subset of url, events, description, enabled.'),
    CouponCreate: inputSchema(COUPON, true, 'A new coupon of the event (docs/coupons.md).'),
    CouponUpdate: inputSchema(COUPON, false, 'Any subset of the coupon fields; discount_type and value must still fit together.'),
    CouponCodesAdd: codesAddSchema(),
  };
}

export function componentSchemas(): Record<string, Schema> {
  return {
    Ticket: resourceSchema(TICKET, 'A ticket with all fields of the spec table (reads, lists and the update response).'),
    TicketCreated: creationSchema(TICKET, 'The creation response: exactly these 18 fields; status is null.'),
    Event: resourceSchema(EVENT, 'An event.'),
    User: resourceSchema(USER, 'The user: the signed-up or the token\'s own.'),
    SignUp: requestSchema(SIGN_UP, 'A new user and its first company (which becomes its default_company_id). Other keys are ignored.'),
    Company: objectOf(Object.keys(COMPANY_FIELDS), (field) => COMPANY_FIELDS[field]!, { description: 'A company: the owner of events, tickets and webhooks.' }),
    NewCompany: namedBody('A new company; the caller becomes a member.', 'Lovelace Events'),
    NewApiClient: namedBody('New API client credentials, limited to the request\'s companies.', 'Box office'),
    ApiClient: objectOf(['client_id', 'name', 'company_ids', 'created_at'], (field) => API_CLIENT_FIELDS[field]!, {
      description: 'API client credentials for the client_credentials grant; its tokens never cover more than company_ids.',
    }),
    ApiClientCreated: objectOf(Object.keys(API_CLIENT_FIELDS), (field) => API_CLIENT_FIELDS[field]!, {
      description: 'The new client, with its secret: shown only in this response.',
    }),
    TokenRequest: {
      type: 'object',
      required: ['grant_type'],
      description: 'RFC 6749 token request. Client credentials may also come as HTTP Basic.',
      properties: {
        grant_type: {
          type: 'string',
          enum: ['password', 'refresh_token', 'client_credentials'],
          description: 'password: a user\'s e-mail and password; refresh_token: a new token pair for a refresh token; client_credentials: an API client.',
        },
        username: { type: 'string', description: 'password grant: the e-mail address', examples: ['ada@example.com'] },
        password: { type: 'string', writeOnly: true, description: 'password grant: the user\'s password.' },
        company_id: { type: 'string', description: 'One company GUID, a comma-separated list, or * (default: the user\'s default company).' },
        refresh_token: { type: 'string', writeOnly: true, description: 'refresh_token grant: the refresh token (single use).' },
        client_id: { type: 'string', description: 'client_credentials grant: the API client\'s client_id (or HTTP Basic).' },
        client_secret: { type: 'string', writeOnly: true, description: 'client_credentials grant: the API client\'s client_secret (or HTTP Basic).' },
      },
      examples: [{ grant_type: 'password', username: 'ada@example.com', password: 'correct horse battery staple' }],
    },
    TokenResponse: {
      type: 'object',
      required: ['token_type', 'access_token', 'expires_in', 'info'],
      properties: {
        token_type: { type: 'string', enum: ['Bearer'], description: 'Always Bearer: send the access token as Authorization: Bearer <access_token>.' },
        access_token: { type: 'string', description: 'The access token (a JWT).' },
        expires_in: { type: 'integer', description: 'Seconds until the access token expires.' },
        refresh_token: { type: 'string', description: 'Single use; absent for client_credentials.' },
        refresh_token_expires_in: { type: 'integer', description: 'Seconds until the refresh token expires.' },
        info: {
          type: 'object',
          required: ['companies'],
          description: 'What the token covers.',
          properties: {
            companies: {
              type: 'array',
              description: 'The companies the token covers.',
              items: objectOf(['guid', 'name'], (field) => COMPANY_FIELDS[field]!),
            },
          },
        },
      },
    },
    RevokeRequest: {
      type: 'object',
      required: ['token'],
      description: 'RFC 7009 revocation request.',
      properties: {
        token: { type: 'string', minLength: 1, writeOnly: true, description: 'The access or refresh token whose session ends.' },
        token_type_hint: { type: 'string', enum: ['access_token', 'refresh_token'], description: 'Which kind of token it is (optional; both are tried).' },
      },
      // Not a token of this server: revoking it answers 200 all the same (RFC 7009); paste a real one in.
      examples: [{ token: 'paste-the-access-or-refresh-token-here' }],
    },
    JwkSet: {
      type: 'object',
      description: 'A JWK Set (RFC 7517): EC P-256 public keys for ES256.',
      required: ['keys'],
      properties: {
        keys: {
          type: 'array',
          description: 'The key that signs now, and every other key whose tokens are still accepted.',
          items: {
            type: 'object',
            required: ['kid', 'kty', 'crv', 'x', 'y', 'alg', 'use'],
            properties: {
              kid: { type: 'string', description: 'The RFC 7638 thumbprint of the key: the kid of the tokens it signs.' },
              kty: { type: 'string', enum: ['EC'], description: 'Key type: elliptic curve.' },
              crv: { type: 'string', enum: ['P-256'], description: 'The curve.' },
              x: { type: 'string', description: 'The x coordinate of the public point, base64url.' },
              y: { type: 'string', description: 'The y coordinate of the public point, base64url.' },
              alg: { type: 'string', enum: ['ES256'], description: 'The algorithm of the tokens it verifies.' },
              use: { type: 'string', enum: ['sig'], description: 'Signatures.' },
            },
          },
        },
      },
    },
    OAuthError: {
      type: 'object',
      required: ['error'],
      properties: {
        error: {
          type: 'string',
          enum: ['invalid_request', 'invalid_client', 'invalid_grant', 'invalid_scope', 'unsupported_grant_type', 'temporarily_unavailable'],
          description: 'The RFC 6749 error code.',
        },
        error_description: { type: 'string', description: 'What went wrong, for a person.' },
      },
    },
    Problem: {
      type: 'object',
      description: 'RFC 9457 problem details.',
      required: ['type', 'title', 'status', 'detail'],
      properties: {
        type: { type: 'string', description: 'A URI naming the kind of problem (about:blank for plain HTTP errors).' },
        title: { type: 'string', description: 'The HTTP status\'s short text.' },
        status: { type: 'integer', description: 'The HTTP status code.' },
        detail: { type: 'string', description: 'What went wrong with this request and what to do about it.' },
        ...STOCK_PROBLEM_MEMBERS,
        error_count: {
          type: 'integer',
          minimum: 21,
          description: 'How many invalid fields there were in all, when there were more than the 20 that `errors` lists (422).',
        },
        errors: {
          type: 'array',
          maxItems: 20,
          description: 'One entry per invalid field (422): the first 20; a field name longer than 200 characters, or a message longer than 1,000, is cut and ends in "...".',
          items: {
            type: 'object',
            required: ['field', 'message'],
            properties: {
              field: { type: 'string', description: 'The field, as named in the request body.' },
              message: { type: 'string', description: 'What is wrong with its value.' },
            },
          },
        },
      },
    },
    Reservation: resourceSchema(RESERVATION, 'Stock of a ticket held, being paid for, or sold.'),
    Order: resourceSchema(ORDER, 'A cart of several tickets of one event, sold all or nothing.'),
    Scan: resourceSchema(SCAN, 'A barcode admitted at the door.'),
    Barcode: { type: 'string', description: 'A barcode issued by a confirmation.' },
    Liveness: {
      type: 'object',
      required: ['status'],
      properties: { status: { type: 'string', enum: ['ok'], description: 'ok: the gateway process answers.' } },
    },
    Readiness: {
      type: 'object',
      required: ['status'],
      properties: { status: { type: 'string', enum: ['ok', 'draining'], description: 'ok: the gateway takes requests; draining: it is shutting down (503), send them elsewhere.' } },
    },
    Webhook: resourceSchema(WEBHOOK, 'A webhook endpoint (docs/webhooks.md); the secret is never shown again after creation.'),
    WebhookCreated: webhookCreatedSchema(),
    Coupon: resourceSchema(COUPON, 'A coupon: a campaign of one event (docs/coupons.md).'),
    CouponCode: resourceSchema(COUPON_CODE, 'A code of a coupon: what buyers type.'),
    WebhookDelivery: resourceSchema(DELIVERY, 'One attempt to deliver an event to the endpoint.'),
    WebhookTestQueued: objectOf(['event_id'], () => ({ type: 'string', description: 'The queued webhook.test event: its webhook-id header.' })),
    Health: {
      type: 'object',
      required: ['status', 'services'],
      properties: {
        status: { type: 'string', enum: ['ok', 'unavailable'], description: 'ok when every service is SERVING.' },
        services: { type: 'object', additionalProperties: { type: 'string' }, description: 'Each service (gateway, auth, ticket) and its state: SERVING or NOT_SERVING.' },
      },
    },
  };
}

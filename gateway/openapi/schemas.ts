import { INT32_MAX } from '../../services/ticket/domain/field-checks.js';
import type { FieldRule } from '../../services/ticket/domain/field-rules.js';
import { EVENT_RULES } from '../../services/ticket/domain/event-validation.js';
import { TICKET_STATUSES } from '../../services/ticket/domain/ticket-status.js';
import { REQUIRED_TICKET_FIELDS, SERVER_MANAGED_TICKET_FIELDS, TICKET_DEFAULTS } from '../../services/ticket/domain/ticket-fields.js';
import { TICKET_RULES } from '../../services/ticket/domain/ticket-validation.js';
import { SERVER_MANAGED_EVENT_FIELDS } from '../../services/ticket/domain/event-fields.js';
import { EVENT_FIELDS } from '../event-input.js';
import type { FieldType } from '../field-input.js';
import { TICKET_CREATION_FIELDS } from '../ticket-json.js';
import { TICKET_FIELDS } from '../ticket-input.js';
import { reservationSchemas, STOCK_PROBLEM_MEMBERS } from './reservation-schemas.js';

/**
 * JSON Schemas (OpenAPI 3.1 = JSON Schema 2020-12) generated from the tables the API runs
 * on: the gateway's field-type tables (what a body value may look like), the services'
 * value rules (ranges, lengths, enumerations) and defaults, and the creation field list.
 */
export type Schema = Record<string, unknown>;

const TIMESTAMP: Schema = { type: 'string', format: 'date-time', examples: ['2027-07-01T18:00:00+00:00'] };
const GUID: Schema = { type: 'string', format: 'uuid' };

const nullable = (schema: Schema): Schema => ({ ...schema, type: [schema.type as string, 'null'] });

/** What a field looks like in a response, from its type in the gateway's table. */
function responseSchema(field: string, type: FieldType): Schema {
  if (field === 'status') return { type: ['string', 'null'], enum: [...TICKET_STATUSES, null], description: 'Computed on every read; null in the creation response.' };
  if (field === 'updated_at') return TIMESTAMP;
  if (field === 'guid' || field.endsWith('_id')) return GUID;
  switch (type) {
    case 'text':
      return { type: 'string' };
    case 'nullable-text':
      return { type: ['string', 'null'] };
    case 'decimal':
      return { type: 'number' };
    case 'nullable-decimal':
      return { type: ['number', 'null'] };
    case 'integer':
      return { type: 'integer' };
    case 'boolean':
      return { type: 'boolean' };
    case 'timestamp':
      return TIMESTAMP;
    case 'nullable-timestamp':
    case 'ignored':
      return nullable(TIMESTAMP);
  }
}

/** What a client may send for a writable field, from its value rule. */
export function ruleSchema(rule: FieldRule): Schema {
  switch (rule.kind) {
    case 'text': {
      const schema: Schema = { type: 'string', maxLength: rule.max, ...(rule.notBlank ? { minLength: 1 } : {}) };
      return rule.nullable ? nullable(schema) : schema;
    }
    case 'decimal':
      return {
        type: rule.nullable ? ['number', 'string', 'null'] : ['number', 'string'],
        minimum: Number(rule.range.min),
        maximum: Number(rule.range.max),
        description: `A number from ${rule.range.min} to ${rule.range.max} with at most 2 decimals; its string form is accepted too. Stored exactly.`,
      };
    case 'integer':
      return { type: 'integer', minimum: rule.min, maximum: INT32_MAX };
    case 'boolean':
      return { type: 'boolean', description: 'In form bodies: true/false/1/0.' };
    case 'enum':
      return { type: 'string', enum: [...rule.values] };
    case 'timestamp':
      return { ...(rule.nullable ? nullable(TIMESTAMP) : TIMESTAMP), description: 'Must carry a UTC offset (Z or +HH:MM).' };
  }
}

function objectOf(fields: Iterable<string>, schemaOf: (field: string) => Schema, extra: Schema = {}): Schema {
  const properties = Object.fromEntries([...fields].map((field) => [field, schemaOf(field)]));
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false, ...extra };
}

const SERVER_MANAGED_NOTE = 'Managed by the service: may be sent back unchanged; a different value is refused (422).';
const IGNORED_NOTE = 'Output only: ignored when sent.';

/** A request body of a ticket or event: the writable fields by their rules, the others as they read. */
function inputSchema(
  fields: ReadonlyMap<string, FieldType>,
  rules: Record<string, FieldRule>,
  serverManaged: readonly string[],
  options: { required?: readonly string[]; defaults?: Record<string, unknown>; description: string },
): Schema {
  const properties: Record<string, Schema> = {};
  for (const [field, type] of fields) {
    const rule = rules[field];
    if (rule) {
      const fallback = options.defaults?.[field];
      const withDefault = fallback === undefined ? {} : { default: rule.kind === 'decimal' && fallback !== null ? Number(fallback) : fallback };
      properties[field] = { ...ruleSchema(rule), ...withDefault };
    } else if (serverManaged.includes(field)) {
      properties[field] = { ...responseSchema(field, type), description: SERVER_MANAGED_NOTE };
    } else {
      properties[field] = { ...responseSchema(field, type), description: IGNORED_NOTE };
    }
  }
  return {
    type: 'object',
    description: options.description,
    properties,
    ...(options.required ? { required: [...options.required] } : {}),
    additionalProperties: false,
  };
}

function apiClientField(field: string): Schema {
  if (field === 'client_id') return GUID;
  if (field === 'company_ids') return { type: 'array', items: GUID };
  if (field === 'created_at') return TIMESTAMP;
  return { type: 'string' };
}

export function componentSchemas(): Record<string, Schema> {
  return {
    Ticket: objectOf(TICKET_FIELDS.keys(), (field) => responseSchema(field, TICKET_FIELDS.get(field)!), {
      description: 'A ticket with all fields of the spec table (reads, lists and the update response).',
    }),
    TicketCreated: objectOf(TICKET_CREATION_FIELDS, (field) => (field === 'status' ? { type: 'null' } : responseSchema(field, TICKET_FIELDS.get(field)!)), {
      description: 'The creation response: exactly these 18 fields; status is null.',
    }),
    TicketCreate: inputSchema(TICKET_FIELDS, TICKET_RULES, SERVER_MANAGED_TICKET_FIELDS, {
      required: REQUIRED_TICKET_FIELDS,
      defaults: TICKET_DEFAULTS,
      description: 'name and vat_percentage are required; other writable fields may be set too. JSON, multipart or URL-encoded.',
    }),
    TicketUpdate: inputSchema(TICKET_FIELDS, TICKET_RULES, SERVER_MANAGED_TICKET_FIELDS, {
      description: 'Any subset of the ticket fields; only those sent change. null (or an empty form value) clears a nullable field.',
    }),
    Event: objectOf(EVENT_FIELDS.keys(), (field) => (field === 'status' ? { type: 'string', enum: ['normal'] } : responseSchema(field, EVENT_FIELDS.get(field)!)), {
      description: 'An event.',
    }),
    EventCreate: inputSchema(EVENT_FIELDS, EVENT_RULES, SERVER_MANAGED_EVENT_FIELDS, { required: ['name'], description: 'A new event.' }),
    EventUpdate: inputSchema(EVENT_FIELDS, EVENT_RULES, SERVER_MANAGED_EVENT_FIELDS, { description: 'Any subset of the event fields.' }),
    User: objectOf(['guid', 'default_company_id', 'whitelabel_id', 'name', 'email', 'phone', 'created_at', 'updated_at', 'deleted_at'], (field) => {
      if (field === 'guid' || field.endsWith('_id')) return GUID;
      if (field === 'email') return { type: 'string', format: 'email' };
      if (field === 'phone') return { type: ['string', 'null'] };
      if (field === 'deleted_at') return nullable(TIMESTAMP);
      return field.endsWith('_at') ? TIMESTAMP : { type: 'string' };
    }),
    SignUp: {
      type: 'object',
      required: ['name', 'email', 'password'],
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 255 },
        email: { type: 'string', format: 'email', maxLength: 320 },
        password: { type: 'string', minLength: 8, maxLength: 1024, writeOnly: true },
        company_name: { type: 'string', maxLength: 255, description: 'Name of the new company; the user name when absent.' },
        phone: { type: 'string', maxLength: 64 },
      },
    },
    Company: objectOf(['guid', 'name', 'created_at', 'updated_at'], (field) => (field === 'guid' ? GUID : field === 'name' ? { type: 'string' } : TIMESTAMP)),
    NewCompany: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1, maxLength: 255 } } },
    NewApiClient: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1, maxLength: 255 } } },
    ApiClient: objectOf(['client_id', 'name', 'company_ids', 'created_at'], apiClientField, {
      description: 'API client credentials for the client_credentials grant; its tokens never cover more than company_ids.',
    }),
    ApiClientCreated: objectOf(['client_id', 'name', 'company_ids', 'created_at', 'client_secret'], apiClientField, {
      description: 'The new client, with its secret: shown only in this response.',
    }),
    TokenRequest: {
      type: 'object',
      required: ['grant_type'],
      description: 'RFC 6749 token request. Client credentials may also come as HTTP Basic.',
      properties: {
        grant_type: { type: 'string', enum: ['password', 'refresh_token', 'client_credentials'] },
        username: { type: 'string', description: 'password grant: the e-mail address' },
        password: { type: 'string', writeOnly: true },
        company_id: { type: 'string', description: 'One company GUID, a comma-separated list, or * (default: the user\'s default company).' },
        refresh_token: { type: 'string', writeOnly: true },
        client_id: { type: 'string' },
        client_secret: { type: 'string', writeOnly: true },
      },
    },
    TokenResponse: {
      type: 'object',
      required: ['token_type', 'access_token', 'expires_in', 'info'],
      properties: {
        token_type: { type: 'string', enum: ['Bearer'] },
        access_token: { type: 'string' },
        expires_in: { type: 'integer' },
        refresh_token: { type: 'string', description: 'Single use; absent for client_credentials.' },
        refresh_token_expires_in: { type: 'integer' },
        info: {
          type: 'object',
          required: ['companies'],
          properties: { companies: { type: 'array', items: objectOf(['guid', 'name'], (f) => (f === 'guid' ? GUID : { type: 'string' })) } },
        },
      },
    },
    RevokeRequest: {
      type: 'object',
      required: ['token'],
      properties: { token: { type: 'string' }, token_type_hint: { type: 'string', enum: ['access_token', 'refresh_token'] } },
    },
    OAuthError: {
      type: 'object',
      required: ['error'],
      properties: {
        error: {
          type: 'string',
          enum: ['invalid_request', 'invalid_client', 'invalid_grant', 'invalid_scope', 'unsupported_grant_type', 'temporarily_unavailable'],
        },
        error_description: { type: 'string' },
      },
    },
    Problem: {
      type: 'object',
      description: 'RFC 9457 problem details.',
      required: ['type', 'title', 'status', 'detail'],
      properties: {
        type: { type: 'string' },
        title: { type: 'string' },
        status: { type: 'integer' },
        detail: { type: 'string' },
        ...STOCK_PROBLEM_MEMBERS,
        errors: {
          type: 'array',
          description: 'One entry per invalid field (422).',
          items: { type: 'object', required: ['field', 'message'], properties: { field: { type: 'string' }, message: { type: 'string' } } },
        },
      },
    },
    ...reservationSchemas(),
    Health: {
      type: 'object',
      required: ['status', 'services'],
      properties: {
        status: { type: 'string', enum: ['ok', 'unavailable'] },
        services: { type: 'object', additionalProperties: { type: 'string' } },
      },
    },
  };
}

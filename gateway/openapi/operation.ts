import type { Resource } from '../../lib/fields/kinds.js';
import type { Schema } from './schemas.js';

/** An operation of the REST API as the document describes it (document.ts builds its OpenAPI form). */
export type Method = 'get' | 'post' | 'put' | 'delete';

export interface Operation {
  tag: 'auth' | 'events' | 'tickets' | 'stock' | 'webhooks' | 'coupons' | 'operations';
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


/** Operations by path and method. */
export type Paths = Record<string, Partial<Record<Method, Operation>>>;

export const EVENT_ERRORS = [400, 401, 404, 422, 503, 504];
export const MOVE_ERRORS = [...EVENT_ERRORS, 409, 413, 415];

/** A path parameter naming an object by the GUID of its table (its description is the table row's). */
export const guidParameter = (name: string, resource: Resource): Schema => ({
  name,
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
  description: resource.fields.guid!.description,
});

type ItemTexts = Record<'get' | 'put' | 'delete', { summary: string; description: string }>;

/** GET, PUT and DELETE of one object (gateway/resource-routes.ts: itemRoutes), named after its schema. */
export function itemOperations(tag: Operation['tag'], schema: string, resource: Resource, texts: ItemTexts): Partial<Record<Method, Operation>> {
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


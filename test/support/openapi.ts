import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** A response as the validator needs it: status, headers (lower-case names) and the raw body. */
export interface SeenResponse {
  status: number;
  headers: Record<string, string | undefined>;
  body: string;
}

export interface OpenApiValidator {
  document: any;
  /** Errors of `value` against components/schemas/`schemaName`, or the JSON schema of components/requestBodies/`schemaName` ([] when valid). */
  schema(schemaName: string, value: unknown): string[];
  /**
   * Errors of a response against the operation of `method` and `path` in the document ([]
   * when valid): its status must be documented, its content type and body must match, and
   * the headers the document requires (WWW-Authenticate, Retry-After) must be there. A
   * path or method the document does not name must be answered with a problem.
   */
  response(method: string, path: string, response: SeenResponse): string[];
}

/** Requests to no documented operation: unknown route, other method, or refused before routing. */
const UNDOCUMENTED_STATUSES = [400, 401, 404, 405, 413, 415, 431];

/** Validates against the document the gateway serves at /openapi.json. */
export function openApiValidator(document: any): OpenApiValidator {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'doc', components: document.components });
  const messages = (check: ReturnType<typeof ajv.compile>, value: unknown) =>
    check(value) ? [] : (check.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);

  const templates = Object.keys(document.paths).map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`),
  }));
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
  const compile = (key: string, schema: unknown) => {
    if (!compiled.has(key)) compiled.set(key, ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/'))));
    return compiled.get(key)!;
  };
  const schema = (schemaName: string, value: unknown) => {
    const where = document.components.schemas[schemaName] ? `schemas/${schemaName}` : `requestBodies/${schemaName}/content/application~1json/schema`;
    return messages(ajv.getSchema(`doc#/components/${where}`)!, value);
  };

  const bodyErrors = (key: string, content: Record<string, { schema?: unknown }> | undefined, response: SeenResponse): string[] => {
    if (!content) return response.body === '' ? [] : [`expected no body, got ${JSON.stringify(response.body.slice(0, 100))}`];
    const type = (response.headers['content-type'] ?? '').split(';')[0]!.trim();
    const media = content[type];
    if (!media) return [`content type ${JSON.stringify(type)} is not one of ${Object.keys(content).join(', ')}`];
    if (!/json/.test(type)) return [];
    let value: unknown;
    try {
      value = JSON.parse(response.body);
    } catch {
      return [`body is not JSON: ${JSON.stringify(response.body.slice(0, 100))}`];
    }
    return media.schema ? messages(compile(`${key} ${type}`, media.schema), value) : [];
  };

  const headerErrors = (status: number, response: SeenResponse): string[] => {
    const errors: string[] = [];
    if (status === 401 && !response.headers['www-authenticate']) errors.push('401 without WWW-Authenticate');
    if ((status === 429 || status === 503) && !response.headers['retry-after']) errors.push(`${status} without Retry-After`);
    return errors;
  };

  const response = (method: string, path: string, seen: SeenResponse): string[] => {
    // HEAD is GET without the body.
    if (method === 'HEAD') return response('GET', path, { ...seen, body: '' }).filter((error) => !error.startsWith('body is not JSON'));
    // Express routes are not strict: a trailing slash names the same route.
    const pathOnly = path.split('?')[0]!.replace(/(.)\/$/, '$1');
    const match = templates.find((t) => t.template === pathOnly) ?? templates.find((t) => t.pattern.test(pathOnly));
    const operation = match ? document.paths[match.template][method.toLowerCase()] : undefined;
    if (!operation) {
      // Express answers OPTIONS by itself with the route's methods.
      if (method === 'OPTIONS' && seen.status === 200) return seen.headers.allow ? [] : ['OPTIONS answered without Allow'];
      if (!UNDOCUMENTED_STATUSES.includes(seen.status)) return [`${seen.status} for an undocumented operation ${method} ${pathOnly}`];
      return [...headerErrors(seen.status, seen), ...bodyErrors('problem', { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } }, seen)];
    }
    let documented = operation.responses[String(seen.status)];
    if (!documented) return [`status ${seen.status} is not documented for ${method} ${match!.template}`];
    if (documented.$ref) documented = document.components.responses[documented.$ref.split('/').pop()];
    const key = `${method} ${match!.template} ${seen.status}`;
    return [...headerErrors(seen.status, seen), ...bodyErrors(key, documented.content, seen)];
  };

  return { document, schema, response };
}

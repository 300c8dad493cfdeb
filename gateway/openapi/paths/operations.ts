import type { Paths } from '../operation.js';

/** Health and this documentation. */
export function operationPaths(): Paths {
  return {
    '/livez': {
      get: { tag: 'operations', operationId: 'liveness', summary: 'Liveness of the gateway process', description: '200 whenever the gateway process answers HTTP; no backend is asked, so a backend outage never fails it (a liveness probe restarts on failure).', ok: { status: 200, schema: 'Liveness' }, errors: [], public: true },
    },
    '/readyz': {
      get: { tag: 'operations', operationId: 'readiness', summary: 'Readiness of the gateway process itself', description: '200 while the gateway takes requests, 503 once it has begun to shut down. No backend is asked: while one is down the gateway stays in rotation and answers 503 problem+json with Retry-After itself (a readiness probe takes a draining gateway out of rotation).', ok: { status: 200, schema: 'Readiness' }, errors: [503], public: true },
    },
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

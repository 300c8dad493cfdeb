import type { Express } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config.js';
import { EVENT, EVENT_STATUSES } from '../../lib/fields/event.js';
import type { FieldDef } from '../../lib/fields/kinds.js';
import { TICKET } from '../../lib/fields/ticket.js';
import { createLogger } from '../../lib/logger.js';
import { createApp } from '../../gateway/app.js';
import { createBackendClients } from '../../gateway/clients.js';
import { bearer, request, type Account } from '../support/http.js';
import { openApiValidator } from '../support/openapi.js';
import { startTestStack, type TestStack } from '../support/stack.js';
import { startSuite } from '../support/suite.js';

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  rawPath?: string;
}

/** Every (METHOD path) the express app serves, in OpenAPI path form; `all` routes (405 answers) are not operations. */
function servedRoutes(app: Express): string[] {
  const routes: string[] = [];
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        const path = `${prefix}${layer.route.path}`.replace(/:(\w+)/g, '{$1}');
        for (const [method, on] of Object.entries(layer.route.methods)) if (on && method !== '_all') routes.push(`${method.toUpperCase()} ${path}`);
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack, typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? `${prefix}${layer.rawPath}` : prefix);
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  // The docs page's own script and static files are not operations of the API.
  return [...new Set(routes)].filter((route) => !route.includes(' /docs/assets/')).sort();
}

function documentedRoutes(document: { paths: Record<string, Record<string, unknown>> }): string[] {
  return Object.entries(document.paths)
    .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`))
    .sort();
}

describe('OpenAPI document', () => {
  let stack: TestStack;
  let account: Account;
  let document: any;
  let validate: (schemaName: string, value: unknown) => string[];

  beforeAll(async () => {
    ({ stack, account } = await startSuite());
    document = (await request(`${stack.baseUrl}/openapi.json`)).body;
    validate = openApiValidator(document).schema;
  });
  afterAll(() => stack?.stop());

  it('is served at /openapi.json as OpenAPI 3.1', async () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.title).toBeTruthy();
  });

  it('names exactly the routes the gateway serves', () => {
    const config = loadConfig({ AUTH_PATH_PREFIX: '/auth' });
    const clients = createBackendClients('127.0.0.1:1', '127.0.0.1:1');
    try {
      const app = createApp(config, clients, createLogger('test', 'silent'));
      const served = servedRoutes(app);
      expect(served.length).toBeGreaterThan(15);
      expect(documentedRoutes(document)).toEqual(served);
    } finally {
      clients.close();
    }
  });

  it('follows the auth prefix of the configuration', async () => {
    const other = await startTestStack({ AUTH_PATH_PREFIX: '/identity' });
    try {
      const otherDocument = (await request(`${other.baseUrl}/openapi.json`)).body;
      const paths = Object.keys(otherDocument.paths);
      expect(paths).toContain('/identity/users/me');
      expect(paths.some((p) => p.startsWith('/auth/'))).toBe(false);
      expect(otherDocument.components.securitySchemes.oauth2.flows.password.tokenUrl).toBe('identity/tokens');
    } finally {
      await other.stop();
    }
  });

  it('describes the real responses: user, company, token, event, ticket (creation and full), problem', async () => {
    const auth = bearer(account.accessToken);
    const me = await request(`${stack.authUrl}/users/me`, { headers: auth });
    expect(validate('User', me.body)).toEqual([]);
    const companies = await request(`${stack.authUrl}/companies`, { headers: auth });
    expect(validate('Company', companies.body[0])).toEqual([]);
    const token = await request(`${stack.authUrl}/tokens`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'password', username: account.email, password: account.password }),
    });
    expect(validate('TokenResponse', token.body)).toEqual([]);

    const event = await request(`${stack.baseUrl}/event`, { method: 'POST', headers: auth, json: { name: 'Doc', start: '2027-01-01T10:00:00+01:00' } });
    expect(event.status).toBe(201);
    expect(validate('Event', event.body)).toEqual([]);
    const created = await request(`${stack.baseUrl}/event/${event.body.guid}/ticket`, { method: 'POST', headers: auth, json: { name: 'A', vat_percentage: '9.5' } });
    expect(validate('TicketCreated', created.body)).toEqual([]);
    const updated = await request(`${stack.baseUrl}/ticket/${created.body.guid}`, {
      method: 'PUT',
      headers: auth,
      json: { min_price: 9.99, available_from: '2027-01-01T00:00:00Z', description: 'x' },
    });
    expect(validate('Ticket', updated.body)).toEqual([]);
    const read = await request(`${stack.baseUrl}/ticket/${created.body.guid}`, { headers: auth });
    expect(validate('Ticket', read.body)).toEqual([]);

    const problem = await request(`${stack.baseUrl}/ticket/${created.body.guid}`, { method: 'PUT', headers: auth, json: { increment: 0 } });
    expect(problem.status).toBe(422);
    expect(validate('Problem', problem.body)).toEqual([]);
  });

  it('request schemas take what the API takes and refuse what it refuses', async () => {
    const good = { name: 'Regular', vat_percentage: 21, status_overrule: 'sold_out', available_stock: 10, min_price: '9.99', available_until: null };
    expect(validate('TicketCreate', good)).toEqual([]);
    for (const bad of [
      { vat_percentage: 21 },
      { name: 'x', vat_percentage: 101 },
      { name: 'x', vat_percentage: 21, status_overrule: 'maybe' },
      { name: 'x', vat_percentage: 21, increment: 0 },
      { name: 'x'.repeat(256), vat_percentage: 21 },
      { name: 'x', vat_percentage: 21, colour: 'red' },
    ]) {
      expect(validate('TicketCreate', bad), JSON.stringify(bad).slice(0, 80)).not.toEqual([]);
    }
    const ticketCreate = document.components.requestBodies.TicketCreate.content['application/json'].schema;
    expect(ticketCreate.properties.barcode_type.enum).toEqual(['generate', 'predefined', 'none']);
    expect(ticketCreate.properties.max_orderable_amount_per_order.default).toBe(20);
    expect(ticketCreate.required).toEqual(['name', 'vat_percentage']);
    expect(Object.keys(document.components.schemas.TicketCreated.properties)).toHaveLength(18);
    expect(Object.keys(document.components.schemas.Ticket.properties)).toHaveLength(34);
  });

  it('describes every operation and parameter; resource properties and path GUIDs by their table rows', () => {
    const undescribed: string[] = [];
    for (const [path, methods] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(methods)) {
        if (!operation.description) undescribed.push(`${method} ${path}`);
        for (const parameter of operation.parameters ?? []) if (!parameter.description) undescribed.push(`${method} ${path} ${parameter.name}`);
      }
    }
    expect(undescribed).toEqual([]);
    expect(document.paths['/ticket/{guid}'].get.parameters[0].description).toBe(TICKET.fields.guid.description);
    expect(document.paths['/event/{eventGuid}/ticket'].post.parameters[0].description).toBe(EVENT.fields.guid.description);
    for (const [field, row] of Object.entries<FieldDef>(TICKET.fields)) {
      if (!row.notInJson) expect(document.components.schemas.Ticket.properties[field].description, field).toBe(row.description);
    }
    expect(document.components.schemas.Event.properties.status.enum).toEqual([...EVENT_STATUSES]);
  });

  it('describes the OAuth2 password and client-credentials flows at the configured token endpoint, relative to the server', () => {
    const { flows } = document.components.securitySchemes.oauth2;
    expect(flows.password.tokenUrl).toBe('auth/tokens');
    expect(flows.clientCredentials.tokenUrl).toBe('auth/tokens');
    expect(document.security).toEqual([{ bearer: [] }, { oauth2: [] }]);
    expect(document.servers).toEqual([{ url: '.' }]);
  });

  it('serves a documentation page from local assets, no CDN', async () => {
    const page = await request(`${stack.baseUrl}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).not.toMatch(/https?:\/\//);
    for (const asset of [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)) {
      const response = await request(new URL(asset, `${stack.baseUrl}/docs`).href);
      expect(response.status, asset).toBe(200);
    }
  });
});

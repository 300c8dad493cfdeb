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
      expect(otherDocument.components.securitySchemes.password.flows.password.tokenUrl).toBe('identity/tokens');
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

  it('describes the OAuth2 password and client-credentials flows as two schemes at the configured token endpoint, relative to the server', () => {
    const { password, clientCredentials } = document.components.securitySchemes;
    expect(password.flows).toEqual({ password: { tokenUrl: 'auth/tokens', scopes: {} } });
    expect(clientCredentials.flows).toEqual({ clientCredentials: { tokenUrl: 'auth/tokens', scopes: {} } });
    expect(document.security).toEqual([{ bearer: [] }, { password: [] }, { clientCredentials: [] }]);
    expect(document.servers).toHaveLength(1);
    expect(document.servers[0].url).toBe('.');
    expect(document.servers[0].description).toMatch(/\w/);
  });

  it('describes every property of every schema', () => {
    const undescribed: string[] = [];
    const walk = (node: unknown, where: string): void => {
      if (!node || typeof node !== 'object') return;
      const schema = node as Record<string, any>;
      for (const [name, property] of Object.entries<any>(schema.properties ?? {})) if (!property.$ref && !property.description) undescribed.push(`${where}/properties/${name}`);
      for (const [key, child] of Object.entries(schema)) if (key !== 'example' && key !== 'examples') walk(child, `${where}/${key}`);
    };
    walk(document, '#');
    expect(undescribed).toEqual([]);
  });

  it('marks every field a client does not write readOnly, in the responses and the request bodies', () => {
    for (const [field, row] of Object.entries<FieldDef>(TICKET.fields)) {
      if (row.notInJson) continue;
      const readOnly = row.role !== 'writable';
      expect(Boolean(document.components.schemas.Ticket.properties[field].readOnly), field).toBe(readOnly);
      for (const body of ['TicketCreate', 'TicketUpdate']) {
        expect(Boolean(document.components.requestBodies[body].content['application/json'].schema.properties[field].readOnly), `${body} ${field}`).toBe(readOnly);
      }
    }
    expect(document.components.requestBodies.EventUpdate.content['application/json'].schema.properties.created_at.readOnly).toBe(true);
    expect(document.components.requestBodies.WebhookUpdate.content['application/json'].schema.properties.company_id.readOnly).toBe(true);
  });

  it('gives every request body an example that its schema takes, with no readOnly field and no two equal ends of a window', () => {
    const bodies: Array<[string, any]> = [];
    for (const [path, methods] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(methods)) {
        if (!operation.requestBody) continue;
        const body = operation.requestBody.$ref ? document.components.requestBodies[operation.requestBody.$ref.split('/').pop()] : operation.requestBody;
        bodies.push([`${method} ${path}`, body]);
      }
    }
    expect(bodies.length).toBeGreaterThan(15);
    const probes: Record<string, { schema: unknown; example: unknown }> = {};
    for (const [operation, body] of bodies) {
      for (const [type, media] of Object.entries<any>(body.content)) {
        expect(media.example, `${operation} ${type}`).toBeTypeOf('object');
        const schema = media.schema.$ref ? document.components.schemas[media.schema.$ref.split('/').pop()] : media.schema;
        for (const field of Object.keys(media.example)) expect(schema.properties[field].readOnly, `${operation} ${field}`).toBeFalsy();
        probes[`${operation} ${type}`] = { schema: media.schema, example: media.example };
      }
    }
    // Each media schema as a component of its own (a JSON pointer name: Probe0, Probe1, ...).
    const named = Object.entries(probes);
    const schemas = { ...document.components.schemas, ...Object.fromEntries(named.map(([, probe], i) => [`Probe${i}`, probe.schema])) };
    const check = openApiValidator({ ...document, components: { ...document.components, schemas } });
    named.forEach(([name, probe], i) => expect(check.schema(`Probe${i}`, probe.example), name).toEqual([]));
    const ticket = document.components.requestBodies.TicketCreate.content['application/json'];
    expect(ticket.example).toEqual({ name: 'Regular', vat_percentage: 21, available_stock: 100 });
    // Every property's own example is valid too: a client that builds a body from them (all at once) gets no equal sale-window ends.
    const properties = ticket.schema.properties;
    expect(Date.parse(properties.available_from.examples[0])).toBeLessThan(Date.parse(properties.available_until.examples[0]));
  });

  it('states the rules the server enforces on text: not blank, a URL, known event types, decimal strings, headers', () => {
    const ticketCreate = document.components.requestBodies.TicketCreate.content['application/json'].schema;
    expect(ticketCreate.properties.name.pattern).toBe('\\S');
    const vat = new RegExp(ticketCreate.properties.vat_percentage.pattern);
    expect(['0', '21', '9.5', '99.99', '100', '100.00'].filter((v) => !vat.test(v))).toEqual([]);
    expect(['abc', '100.01', '101', '-1', '1e2', '9.999', ''].filter((v) => vat.test(v))).toEqual([]);
    const webhook = document.components.requestBodies.WebhookCreate.content['application/json'].schema;
    expect(webhook.properties.url.format).toBe('uri');
    const url = new RegExp(webhook.properties.url.pattern);
    expect(url.test('https://shop.example.com/hook?x=1')).toBe(true);
    // Each refused by the server or by format uri (found by the contract test): a scheme, a user, an address literal, two fragments, bad punycode.
    expect(['ftp://a.example', 'https://user:pw@a.example/', 'not a url', 'http://10.0.0.1/', 'HTTP://a##', 'http://xn--v4c-yq6y.example/'].filter((v) => url.test(v))).toEqual([]);
    expect(webhook.properties.events.minItems).toBe(1);
    expect(webhook.properties.events.items.enum).toContain('*');
    expect(webhook.properties.events.items.enum).toContain('ticket.created');
    expect(document.components.schemas.RevokeRequest.properties.token.minLength).toBe(1);
    expect(document.components.schemas.NewCompany.properties.name.pattern).toBe('\\S');
    const parameter = (name: string) => document.paths['/event'].post.parameters.find((p: any) => p.name === name).schema;
    const company = new RegExp(parameter('Company').pattern);
    const guid = account.companyId;
    expect([guid, '*', `${guid}, *`, guid.toUpperCase()].filter((v) => !company.test(v))).toEqual([]);
    expect(['x', '', `${guid},`, `${guid};*`].filter((v) => company.test(v))).toEqual([]);
    const key = new RegExp(parameter('Idempotency-Key').pattern);
    expect(key.test('order-4711')).toBe(true);
    expect(['clé-1', 'a b', ''].filter((v) => key.test(v))).toEqual([]);
  });

  it('takes every request body example unchanged: sign up, log in, create an event, a ticket, reserve, pay, confirm, and the rest', async () => {
    const example = (operationId: string) => {
      for (const methods of Object.values<Record<string, any>>(document.paths)) {
        for (const operation of Object.values<any>(methods)) {
          if (operation.operationId !== operationId) continue;
          const body = operation.requestBody.$ref ? document.components.requestBodies[operation.requestBody.$ref.split('/').pop()] : operation.requestBody;
          return body.content['application/json'].example;
        }
      }
      throw new Error(`no operation ${operationId}`);
    };
    const other = await startTestStack({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    try {
      const post = (path: string, json: unknown, headers: Record<string, string> = {}) => request(`${other.baseUrl}${path}`, { method: 'POST', headers, json });
      const expectOk = (response: { status: number; text: string }, what: string) => expect(response.status, `${what}: ${response.text}`).toBeLessThan(300);
      expectOk(await post('/auth/users', example('signUp')), 'signUp');
      const token = await post('/auth/tokens', example('issueToken'));
      expectOk(token, 'issueToken');
      const auth = bearer(token.body.access_token);
      const event = await post('/event', example('createEvent'), auth);
      expectOk(event, 'createEvent');
      const ticket = await post(`/event/${event.body.guid}/ticket`, example('createTicket'), auth);
      expectOk(ticket, 'createTicket');
      const reservation = await post(`/ticket/${ticket.body.guid}/reservations`, example('reserveTicket'), auth);
      expectOk(reservation, 'reserveTicket');
      expectOk(await post(`/reservation/${reservation.body.guid}/pending`, example('markReservationPending'), auth), 'markReservationPending');
      expectOk(await post(`/reservation/${reservation.body.guid}/confirm`, example('confirmReservation'), auth), 'confirmReservation');
      const second = await post(`/ticket/${ticket.body.guid}/reservations`, example('reserveTicket'), auth);
      expectOk(await post(`/reservation/${second.body.guid}/release`, example('releaseReservation'), auth), 'releaseReservation');
      const put = (path: string, json: unknown) => request(`${other.baseUrl}${path}`, { method: 'PUT', headers: auth, json });
      expectOk(await put(`/ticket/${ticket.body.guid}`, example('updateTicket')), 'updateTicket');
      expectOk(await put(`/event/${event.body.guid}`, example('updateEvent')), 'updateEvent');
      const webhook = await post('/webhooks', example('createWebhook'), auth);
      expectOk(webhook, 'createWebhook');
      expectOk(await put(`/webhooks/${webhook.body.guid}`, example('updateWebhook')), 'updateWebhook');
      expectOk(await post('/auth/companies', example('createCompany'), auth), 'createCompany');
      expectOk(await post('/auth/clients', example('createApiClient'), auth), 'createApiClient');
      expectOk(await post('/auth/tokens/revoke', example('revokeToken')), 'revokeToken');
      // A barcode nobody sold: well formed, so not found rather than refused.
      expect((await post(`/event/${event.body.guid}/scans`, example('scanBarcode'), auth)).status).toBe(404);
    } finally {
      await other.stop();
    }
  });

  it('describes an order and its refusals, and takes the order bodies\' examples with the example ticket replaced by a real one', async () => {
    const auth = bearer(account.accessToken);
    const post = (path: string, json: unknown) => request(`${stack.baseUrl}${path}`, { method: 'POST', headers: auth, json });
    const example = (name: string) => structuredClone(document.components.requestBodies[name].content['application/json'].example);
    const event = await post('/event', { name: 'Orders' });
    const ticket = await post(`/event/${event.body.guid}/ticket`, { name: 'A', vat_percentage: 21, available_stock: 10, available_in_cashr: true });
    const body = example('OrderCreate');
    body.lines[0].ticket_id = ticket.body.guid;
    const created = await post(`/event/${event.body.guid}/orders`, body);
    expect(created.status, created.text).toBe(201);
    expect(validate('Order', created.body)).toEqual([]);
    const confirmBody = example('OrderConfirm');
    confirmBody.lines[0].ticket_id = ticket.body.guid;
    const confirmed = await post(`/order/${created.body.guid}/confirm`, confirmBody);
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body.lines[0].barcodes.length).toBeGreaterThan(0);
    expect(validate('Order', confirmed.body)).toEqual([]);
    const refused = await post(`/event/${event.body.guid}/orders`, { lines: [{ ticket_id: ticket.body.guid, amount: 10 }] });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.ticket_id).toBe(ticket.body.guid);
    expect(validate('Problem', refused.body)).toEqual([]);
  });

  it('opens with "start here", its steps linking to operations of the page and its other links to what the gateway serves', async () => {
    const description: string = document.info.description;
    expect(description).toMatch(/^\*\*Start here\*\*/);
    const links = [...description.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!);
    const operations = new Set(Object.values<Record<string, any>>(document.paths).flatMap((methods) => Object.values<any>(methods).map((o) => `#/${o.tags[0]}/${o.operationId}`)));
    const steps = links.filter((link) => link.startsWith('#'));
    expect(steps).toEqual(['#/auth/signUp', '#/events/createEvent', '#/tickets/createTicket', '#/stock/reserveTicket', '#/stock/confirmReservation']);
    for (const step of steps) expect(operations.has(step), step).toBe(true);
    const pages = links.filter((link) => !link.startsWith('#'));
    expect(pages.length).toBeGreaterThanOrEqual(3);
    for (const link of pages) {
      expect(link, 'relative, so it holds behind a path prefix').not.toMatch(/^(\/|[a-z]+:)/);
      expect((await request(new URL(link, `${stack.baseUrl}/docs`).href)).status, link).toBe(200);
    }
  });

  it('answers every method a documented path lacks with 405 and Allow naming the documented ones (the docs, health and auth paths too)', async () => {
    const methods = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'];
    const wrong: string[] = [];
    for (const [template, operations] of Object.entries<Record<string, unknown>>(document.paths)) {
      const path = template.replace(/\{[^}]+\}/g, '5f0c2a8e-1d4b-4c8e-9a3f-2b7d6e1f0a94');
      const documented = Object.keys(operations).map((m) => m.toUpperCase());
      const allow = [...documented, ...(documented.includes('GET') ? ['HEAD'] : [])].sort();
      for (const method of methods.filter((m) => !documented.includes(m))) {
        const response = await request(`${stack.baseUrl}${path}`, { method, headers: bearer(account.accessToken), ...(method === 'GET' || method === 'DELETE' ? {} : { json: {} }) });
        const allowed = (response.headers.get('allow') ?? '').split(/,\s*/).sort();
        if (response.status !== 405 || allowed.join() !== allow.join()) wrong.push(`${method} ${template}: ${response.status} Allow: ${response.headers.get('allow')}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('refuses a name that is not a string, as its schema says: sign-up, a company, an API client (422, like an event)', async () => {
    const auth = bearer(account.accessToken);
    const bodies: Array<[string, Record<string, unknown>, string]> = [
      ['/users', { name: 0, email: 'zero@example.com', password: 'long enough' }, 'name'],
      ['/users', { name: 'Zero', email: 'zero@example.com', password: 'long enough', phone: 5 }, 'phone'],
      ['/companies', { name: 0 }, 'name'],
      ['/clients', { name: 0 }, 'name'],
    ];
    for (const [path, body, field] of bodies) {
      const response = await request(`${stack.authUrl}${path}`, { method: 'POST', headers: auth, json: body });
      expect(response.status, `${path} ${response.text}`).toBe(422);
      expect(response.body.errors).toEqual([{ field, message: 'must be a string' }]);
      expect(validate('Problem', response.body)).toEqual([]);
    }
    const event = await request(`${stack.baseUrl}/event`, { method: 'POST', headers: auth, json: { name: 0 } });
    expect(event.body.errors).toEqual([{ field: 'name', message: 'must be a string' }]);
    // Nothing was made: the company list is the account's one company still.
    expect((await request(`${stack.authUrl}/companies`, { headers: auth })).body).toHaveLength(1);
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

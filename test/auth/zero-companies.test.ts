import { credentials, status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthServiceClient } from '../../lib/gen/auth/v1/auth.js';
import { Event, EventServiceClient } from '../../lib/gen/ticketing/v1/event.js';
import { TicketServiceClient } from '../../lib/gen/ticketing/v1/ticket.js';
import { callerMetadata, grpcCall, grpcFailure, tokenRequest } from '../support/grpc.js';
import { bearer, passwordToken, request, signUpAndLogin, type Account } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/stack.js';

/**
 * A token covering zero companies (spec 5.2: "zero or more may be named"), asked for with
 * company_id=none: it is valid, sees empty lists, creates nothing and reads nothing.
 */
describe('a token covering zero companies', () => {
  let stack: TestStack;
  let account: Account;
  let none: string;
  let eventId: string;
  let ticketId: string;
  let auth: AuthServiceClient;
  let events: EventServiceClient;
  let tickets: TicketServiceClient;

  beforeAll(async () => {
    stack = await startTestStack();
    account = await signUpAndLogin(stack);
    const event = await request(`${stack.baseUrl}/event`, { method: 'POST', headers: bearer(account.accessToken), json: { name: 'Existing' } });
    eventId = event.body.guid;
    const ticket = await request(`${stack.baseUrl}/event/${eventId}/ticket`, { method: 'POST', headers: bearer(account.accessToken), json: { name: 'Existing', vat_percentage: 21 } });
    ticketId = ticket.body.guid;
    none = (await passwordToken(stack, account.email, account.password, 'none')).access_token;
    auth = new AuthServiceClient(stack.authGrpcAddress, credentials.createInsecure());
    events = new EventServiceClient(stack.ticketGrpcAddress, credentials.createInsecure());
    tickets = new TicketServiceClient(stack.ticketGrpcAddress, credentials.createInsecure());
  });
  afterAll(async () => {
    for (const client of [auth, events, tickets]) client?.close();
    await stack?.stop();
  });

  const token = (form: Record<string, string>) => request(`${stack.authUrl}/tokens`, { method: 'POST', body: new URLSearchParams(form) });

  it('is issued for company_id=none (any case), with no companies in info and a refresh token that keeps none', async () => {
    for (const value of ['none', ' NONE ']) {
      const issued = await token({ grant_type: 'password', username: account.email, password: account.password, company_id: value });
      expect(issued.status).toBe(200);
      expect(issued.body.info).toEqual({ companies: [] });
      const refreshed = await token({ grant_type: 'refresh_token', refresh_token: issued.body.refresh_token });
      expect(refreshed.body.info).toEqual({ companies: [] });
    }
    // An empty company_id is an omitted one (RFC 6749 3.2): the default company.
    const empty = await token({ grant_type: 'password', username: account.email, password: account.password, company_id: '' });
    expect(empty.body.info.companies.map((c: { guid: string }) => c.guid)).toEqual([account.companyId]);
    const mixed = await token({ grant_type: 'password', username: account.email, password: account.password, company_id: `none,${account.companyId}` });
    expect(mixed.status).toBe(400);
    expect(mixed.body.error).toBe('invalid_scope');
  });

  it('REST: sees empty lists', async () => {
    expect((await request(`${stack.authUrl}/users/me`, { headers: bearer(none) })).status).toBe(200);
    for (const url of [`${stack.authUrl}/companies`, `${stack.baseUrl}/event`, `${stack.baseUrl}/ticket`, `${stack.baseUrl}/event?limit=10`]) {
      const response = await request(url, { headers: bearer(none) });
      expect(response.status, url).toBe(200);
      expect(response.body, url).toEqual([]);
    }
    expect((await request(`${stack.authUrl}/companies`, { headers: bearer(none, { company: '*' }) })).body).toEqual([]);
    expect((await request(`${stack.authUrl}/companies`, { headers: bearer(none, { company: account.companyId }) })).status).toBe(401);
  });

  it('REST: reads nothing (404) and creates nothing', async () => {
    const reads = [
      request(`${stack.baseUrl}/event/${eventId}`, { headers: bearer(none) }),
      request(`${stack.baseUrl}/event/${eventId}/ticket`, { headers: bearer(none) }),
      request(`${stack.baseUrl}/ticket/${ticketId}`, { headers: bearer(none) }),
      request(`${stack.baseUrl}/ticket/${ticketId}`, { method: 'PUT', headers: bearer(none), json: { name: 'Changed' } }),
      request(`${stack.baseUrl}/event/${eventId}/ticket`, { method: 'POST', headers: bearer(none), json: { name: 'New', vat_percentage: 21 } }),
      request(`${stack.baseUrl}/ticket/${ticketId}`, { method: 'DELETE', headers: bearer(none) }),
      request(`${stack.baseUrl}/event/${eventId}`, { method: 'DELETE', headers: bearer(none) }),
    ];
    for (const response of await Promise.all(reads)) expect(response.status).toBe(404);

    // Creating an event needs exactly one company (PRODUCT.md 4): 400.
    const event = await request(`${stack.baseUrl}/event`, { method: 'POST', headers: bearer(none), json: { name: 'Nowhere' } });
    expect(event.status).toBe(400);
    const client = await request(`${stack.authUrl}/clients`, { method: 'POST', headers: bearer(none), json: { name: 'nowhere' } });
    expect(client.status).toBe(400);
    expect(client.body.detail).toMatch(/covers no company/);

    const mine = bearer(account.accessToken);
    expect((await request(`${stack.baseUrl}/event`, { headers: mine })).body.map((e: { guid: string }) => e.guid)).toEqual([eventId]);
    expect((await request(`${stack.baseUrl}/event/${eventId}/ticket`, { headers: mine })).body.map((t: { guid: string; name: string }) => [t.guid, t.name])).toEqual([[ticketId, 'Existing']]);
    expect((await request(`${stack.authUrl}/clients`, { headers: mine })).body).toEqual([]);
  });

  it('gRPC: IssueToken with company_id "none"; empty lists, NOT_FOUND reads, INVALID_ARGUMENT creations', async () => {
    const issued = await grpcCall(
      auth.issueToken.bind(auth),
      tokenRequest({ grant_type: 'password', username: account.email, password: account.password, company_id: 'none' }),
      callerMetadata(null),
    );
    expect(issued.info?.companies).toEqual([]);
    const md = () => callerMetadata(issued.access_token);
    expect((await grpcCall(auth.listCompanies.bind(auth), {}, md())).companies).toEqual([]);
    expect((await grpcCall(events.listEvents.bind(events), { page_size: 0, page_token: '' }, md())).events).toEqual([]);
    expect((await grpcFailure(grpcCall(events.getEvent.bind(events), { guid: eventId }, md()))).code).toBe(status.NOT_FOUND);
    expect((await grpcFailure(grpcCall(tickets.getTicket.bind(tickets), { guid: ticketId }, md()))).code).toBe(status.NOT_FOUND);
    expect((await grpcFailure(grpcCall(tickets.listTickets.bind(tickets), { event_id: eventId, page_size: 0, page_token: '' }, md()))).code).toBe(status.NOT_FOUND);
    const created = await grpcFailure(grpcCall(events.createEvent.bind(events), { event: Event.fromPartial({ name: 'Nowhere' }), request_id: '' }, md()));
    expect(created.code).toBe(status.INVALID_ARGUMENT);
    expect((await grpcFailure(grpcCall(auth.createApiClient.bind(auth), { name: 'nowhere' }, md()))).code).toBe(status.INVALID_ARGUMENT);
  });

  it('an API client can be asked for no company too', async () => {
    const created = await request(`${stack.authUrl}/clients`, { method: 'POST', headers: bearer(account.accessToken), json: { name: 'zero' } });
    const issued = await token({ grant_type: 'client_credentials', client_id: created.body.client_id, client_secret: created.body.client_secret, company_id: 'none' });
    expect(issued.status).toBe(200);
    expect(issued.body.info).toEqual({ companies: [] });
    expect((await request(`${stack.baseUrl}/event`, { headers: bearer(issued.body.access_token) })).body).toEqual([]);
  });
});

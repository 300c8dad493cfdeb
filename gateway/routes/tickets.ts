import { Router, type Request, type Response } from 'express';
import type { Ticket } from '../../lib/gen/ticketing/v1/ticket.js';
import { validateOnly } from '../../lib/grpc/validate-only.js';
import type { Logger } from '../../lib/logger.js';
import { pipeJsonArray } from '../array-json.js';
import type { BodyKind } from '../body.js';
import { callWithTypeErrors } from '../body-input.js';
import type { BackendClients } from '../clients.js';
import { metadataFor, type Caller } from '../request-context.js';
import { etagHeader, idempotencyKey, ifMatch, listCall, listQuery, methodNotAllowed, nextPageLink } from '../request-input.js';
import { ticketCreationJson, ticketJson } from '../ticket-json.js';
import { newTicketInput, ticketChangesInput } from '../ticket-input.js';

/** A whole-list stream may run long; the ticket service still answers within the usual deadline when it is down. */
const STREAM_DEADLINE_MS = 10 * 60_000;

/** GET /ticket is deprecated (RFC 9745: since 2026-01-01), with the per-event list as its successor. */
const DEPRECATION = '@1767225600';
const SUCCESSOR = '</event/{eventGUID}/ticket>; rel="successor-version"';

const bodyOf = (req: Request) => req.body as Record<string, unknown>;
const bodyKind = (res: Response) => res.locals.bodyKind as BodyKind;

/** REST face of TicketService (docs/ticket-api.md). */
export function ticketRoutes(clients: BackendClients, call: Caller, logger: Logger): Router {
  const router = Router();
  const tickets = clients.tickets;
  const createTicket = tickets.createTicket.bind(tickets);
  const updateTicket = tickets.updateTicket.bind(tickets);

  const sendTicket = (res: Response, ticket: Ticket) => res.set('ETag', etagHeader(ticket.etag)).json(ticketJson(ticket));

  const streamTickets = async (req: Request, res: Response, eventId: string) => {
    const source = tickets.streamTickets({ event_id: eventId }, metadataFor(req), { deadline: Date.now() + STREAM_DEADLINE_MS });
    if ((await pipeJsonArray(res, source, ticketJson)) === 'failed') {
      logger.warn({ requestId: res.locals.requestId, path: req.path }, 'ticket stream failed after the first item; response cut off');
    }
  };

  router.post('/event/:eventGuid/ticket', async (req, res) => {
    const requestId = idempotencyKey(req, res);
    if (requestId === undefined) return;
    const input = newTicketInput(bodyOf(req), bodyKind(res));
    const request = { event_id: req.params.eventGuid!, ticket: input.ticket, request_id: requestId };
    const ticket = await callWithTypeErrors(res, input.violations, (check) => call(check ? validateOnly(createTicket) : createTicket, request, req));
    if (!ticket) return;
    res.status(201).location(`/ticket/${ticket.guid}`).set('ETag', etagHeader(ticket.etag)).json(ticketCreationJson(ticket));
  });

  router.get('/event/:eventGuid/ticket', async (req, res) => {
    const query = listQuery(req, res);
    if (!query) return;
    if (!query.page) return streamTickets(req, res, req.params.eventGuid!);
    const { limit, cursor } = query.page;
    const page = await listCall(res, () => call(tickets.listTickets.bind(tickets), { event_id: req.params.eventGuid!, page_size: limit, page_token: cursor }, req));
    if (!page) return;
    if (page.next_page_token) res.set('Link', nextPageLink(req, limit, page.next_page_token));
    res.json(page.tickets.map(ticketJson));
  });
  router.all('/event/:eventGuid/ticket', methodNotAllowed(['GET', 'HEAD', 'POST']));

  router.get('/ticket', async (req, res) => {
    res.set({ Deprecation: DEPRECATION, Link: SUCCESSOR });
    await streamTickets(req, res, '');
  });
  router.all('/ticket', methodNotAllowed(['GET', 'HEAD']));

  router.get('/ticket/:guid', async (req, res) => {
    sendTicket(res, await call(tickets.getTicket.bind(tickets), { guid: req.params.guid! }, req));
  });

  router.put('/ticket/:guid', async (req, res) => {
    const input = ticketChangesInput(req.params.guid!, bodyOf(req), bodyKind(res));
    const request = { ticket: input.ticket, update_mask: input.updateMask, etag: ifMatch(req) };
    const ticket = await callWithTypeErrors(res, input.violations, (check) => call(check ? validateOnly(updateTicket) : updateTicket, request, req));
    if (ticket) sendTicket(res, ticket);
  });

  router.delete('/ticket/:guid', async (req, res) => {
    await call(tickets.deleteTicket.bind(tickets), { guid: req.params.guid!, etag: ifMatch(req) }, req);
    res.status(204).end();
  });
  router.all('/ticket/:guid', methodNotAllowed(['GET', 'HEAD', 'PUT', 'DELETE']));

  return router;
}

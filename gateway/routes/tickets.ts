import { Router, type Request, type Response } from 'express';
import type { Ticket } from '../../lib/gen/ticketing/v1/ticket.js';
import { TICKET } from '../../lib/fields/ticket.js';
import type { Logger } from '../../lib/logger.js';
import { pipeJsonArray } from '../array-json.js';
import { ticketBackend } from '../backends.js';
import type { BackendClients } from '../clients.js';
import type { Caller } from '../request-context.js';
import { methodNotAllowed } from '../request-input.js';
import { creationJson, resourceJson } from '../resource-json.js';
import { createRoute, itemRoutes, listRoute, param, type ResourceFace } from '../resource-routes.js';

/** A whole-list stream may run long; the ticket service still answers within the usual deadline when it is down. */
const STREAM_DEADLINE_MS = 10 * 60_000;

/** GET /ticket is deprecated (RFC 9745: since 2026-01-01), with the per-event list as its successor. */
const DEPRECATION = '@1767225600';
const SUCCESSOR = '</event/{eventGUID}/ticket>; rel="successor-version"';

const ticketJson = (ticket: Ticket) => resourceJson(TICKET.fields, ticket);

/** REST face of TicketService (docs/ticket-api.md). */
export function ticketRoutes(clients: BackendClients, call: Caller, logger: Logger): Router {
  const router = Router();
  const backend = ticketBackend(clients.tickets, call);
  const face: ResourceFace<Ticket> = { resource: TICKET, backend: backend.item, createdJson: (ticket) => creationJson(TICKET.fields, ticket) };

  const streamTickets = async (req: Request, res: Response, eventId: string) => {
    const source = backend.stream({ event_id: eventId }, call.metadata(req), { deadline: Date.now() + STREAM_DEADLINE_MS });
    if ((await pipeJsonArray(res, source, (batch) => batch.tickets.map(ticketJson))) === 'failed') {
      logger.warn({ requestId: res.locals.requestId, path: req.path }, 'ticket stream failed after the first item; response cut off');
    }
  };

  createRoute(router, '/event/:eventGuid/ticket', face, 'eventGuid');
  listRoute(router, '/event/:eventGuid/ticket', {
    page: async (req, limit, cursor) => {
      const { tickets, next_page_token } = await backend.list(req, { event_id: param(req, 'eventGuid'), page_size: limit, page_token: cursor });
      return { items: tickets, next: next_page_token };
    },
    whole: (req, res) => streamTickets(req, res, param(req, 'eventGuid')),
    toJson: ticketJson,
  });
  router.all('/event/:eventGuid/ticket', methodNotAllowed(['GET', 'HEAD', 'POST']));

  router.get('/ticket', async (req, res) => {
    res.set({ Deprecation: DEPRECATION, Link: SUCCESSOR });
    await streamTickets(req, res, '');
  });
  router.all('/ticket', methodNotAllowed(['GET', 'HEAD']));

  itemRoutes(router, face);
  return router;
}

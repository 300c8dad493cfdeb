import { Router, type Request, type Response } from 'express';
import type { Event } from '../../lib/gen/ticketing/v1/event.js';
import { validateOnly } from '../../lib/grpc/validate-only.js';
import { writePages } from '../array-json.js';
import type { BodyKind } from '../body.js';
import { callWithTypeErrors } from '../body-input.js';
import type { BackendClients } from '../clients.js';
import { eventJson } from '../event-json.js';
import { eventChangesInput, newEventInput } from '../event-input.js';
import type { Caller } from '../request-context.js';
import { etagHeader, idempotencyKey, ifMatch, listCall, listQuery, MAX_LIMIT, methodNotAllowed, nextPageLink } from '../request-input.js';

const bodyOf = (req: Request) => req.body as Record<string, unknown>;
const bodyKind = (res: Response) => res.locals.bodyKind as BodyKind;

/** REST face of EventService (PRODUCT.md section 5, docs/ticket-api.md). */
export function eventRoutes(clients: BackendClients, call: Caller): Router {
  const router = Router();
  const events = clients.events;
  const createEvent = events.createEvent.bind(events);
  const updateEvent = events.updateEvent.bind(events);
  const listEvents = (req: Request, page_size: number, page_token: string) => call(events.listEvents.bind(events), { page_size, page_token }, req);

  const sendEvent = (res: Response, event: Event) => res.set('ETag', etagHeader(event.etag)).json(eventJson(event));

  /** The whole list, written page by page as the pages arrive. */
  const streamEvents = async (req: Request, res: Response) => {
    const first = await listEvents(req, MAX_LIMIT, '');
    await writePages(
      res,
      first,
      (page) => page.events.map(eventJson),
      (page) => (page.next_page_token ? listEvents(req, MAX_LIMIT, page.next_page_token) : undefined),
    );
  };

  router.post('/event', async (req, res) => {
    const requestId = idempotencyKey(req, res);
    if (requestId === undefined) return;
    const input = newEventInput(bodyOf(req), bodyKind(res));
    const request = { event: input.event, request_id: requestId };
    const event = await callWithTypeErrors(res, input.violations, (check) => call(check ? validateOnly(createEvent) : createEvent, request, req));
    if (!event) return;
    res.status(201).location(`/event/${event.guid}`);
    sendEvent(res, event);
  });

  router.get('/event', async (req, res) => {
    const query = listQuery(req, res);
    if (!query) return;
    if (!query.page) return streamEvents(req, res);
    const { limit, cursor } = query.page;
    const page = await listCall(res, () => listEvents(req, limit, cursor));
    if (!page) return;
    if (page.next_page_token) res.set('Link', nextPageLink(req, limit, page.next_page_token));
    res.json(page.events.map(eventJson));
  });
  router.all('/event', methodNotAllowed(['GET', 'HEAD', 'POST']));

  router.get('/event/:guid', async (req, res) => {
    sendEvent(res, await call(events.getEvent.bind(events), { guid: req.params.guid! }, req));
  });

  router.put('/event/:guid', async (req, res) => {
    const input = eventChangesInput(req.params.guid!, bodyOf(req), bodyKind(res));
    const request = { event: input.event, update_mask: input.updateMask, etag: ifMatch(req) };
    const event = await callWithTypeErrors(res, input.violations, (check) => call(check ? validateOnly(updateEvent) : updateEvent, request, req));
    if (event) sendEvent(res, event);
  });

  router.delete('/event/:guid', async (req, res) => {
    await call(events.deleteEvent.bind(events), { guid: req.params.guid!, etag: ifMatch(req) }, req);
    res.status(204).end();
  });
  router.all('/event/:guid', methodNotAllowed(['GET', 'HEAD', 'PUT', 'DELETE']));

  return router;
}

import { Router, type Request, type Response } from 'express';
import type { Event } from '../../lib/gen/ticketing/v1/event.js';
import { EVENT } from '../../lib/fields/event.js';
import { writePages } from '../array-json.js';
import { eventBackend } from '../backends.js';
import type { BackendClients } from '../clients.js';
import type { Caller } from '../request-context.js';
import { MAX_LIMIT, methodNotAllowed } from '../request-input.js';
import { resourceJson } from '../resource-json.js';
import { createRoute, itemRoutes, listRoute, type ResourceFace } from '../resource-routes.js';

const eventJson = (event: Event) => resourceJson(EVENT.fields, event);

/** REST face of EventService (PRODUCT.md section 5, docs/ticket-api.md). */
export function eventRoutes(clients: BackendClients, call: Caller): Router {
  const router = Router();
  const backend = eventBackend(clients.events, call);
  const face: ResourceFace<Event> = { resource: EVENT, backend: backend.item };
  const page = async (req: Request, limit: number, cursor: string) => {
    const { events, next_page_token } = await backend.list(req, { page_size: limit, page_token: cursor });
    return { items: events, next: next_page_token };
  };

  /** The whole list, written page by page as the pages arrive. */
  const whole = async (req: Request, res: Response) => {
    const first = await page(req, MAX_LIMIT, '');
    await writePages(res, first, (current) => current.items.map(eventJson), (current) => (current.next ? page(req, MAX_LIMIT, current.next) : undefined));
  };

  createRoute(router, '/event', face);
  listRoute(router, '/event', { page, whole, toJson: eventJson });
  router.all('/event', methodNotAllowed(['GET', 'HEAD', 'POST']));
  itemRoutes(router, face);
  return router;
}

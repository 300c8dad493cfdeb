import { Router, type Request, type Response } from 'express';
import type { Event } from '../../lib/gen/ticketing/v1/event.js';
import { EVENT } from '../../lib/fields/event.js';
import { JsonArrayWriter } from '../array-json.js';
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
    let current = await page(req, MAX_LIMIT, '');
    const writer = new JsonArrayWriter(res);
    writer.start();
    for (;;) {
      for (const event of current.items) if (!(await writer.write(eventJson(event)))) return;
      if (!current.next) break;
      try {
        current = await page(req, MAX_LIMIT, current.next);
      } catch {
        // Headers are out: the only honest signal left is a broken response.
        res.destroy();
        return;
      }
    }
    writer.end();
  };

  createRoute(router, '/event', face);
  listRoute(router, '/event', { page, whole, toJson: eventJson });
  router.all('/event', methodNotAllowed(['GET', 'HEAD', 'POST']));
  itemRoutes(router, face);
  return router;
}

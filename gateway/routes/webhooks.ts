import { Router, type Request, type Response } from 'express';
import { fieldNames, type FieldDef } from '../../lib/fields/kinds.js';
import { DELIVERY_FIELDS, WEBHOOK, WEBHOOK_FIELDS } from '../../lib/webhooks/fields.js';
import type { Webhook } from '../../lib/gen/ticketing/v1/webhook.js';
import { writePages } from '../array-json.js';
import { webhookBackend } from '../backends.js';
import type { BackendClients } from '../clients.js';
import type { Caller } from '../request-context.js';
import { MAX_LIMIT, methodNotAllowed } from '../request-input.js';
import { resourceJson } from '../resource-json.js';
import { createRoute, itemRoutes, listRoute, param, type ResourceFace } from '../resource-routes.js';

const PATH = '/webhooks';
const webhookJson = (webhook: Webhook) => resourceJson(WEBHOOK_FIELDS, webhook);

/** The creation answer: the endpoint with its secret, the one answer that shows it, in the table's order. */
function createdJson(webhook: Webhook): Record<string, unknown> {
  const json = webhookJson(webhook);
  const shown = fieldNames(WEBHOOK_FIELDS).filter((field) => field === 'secret' || !(WEBHOOK_FIELDS[field] as FieldDef).notInJson);
  return Object.fromEntries(shown.map((field) => [field, field === 'secret' ? webhook.secret : json[field]]));
}

/** REST face of WebhookService (PRODUCT.md section 10, docs/webhooks.md). */
export function webhookRoutes(clients: BackendClients, call: Caller): Router {
  const router = Router();
  const backend = webhookBackend(clients.webhooks, call);
  const face: ResourceFace<Webhook> = { resource: WEBHOOK, backend: backend.item, createdJson, path: PATH };
  const page = async (req: Request, limit: number, cursor: string) => {
    const { webhooks, next_page_token } = await backend.list(req, { page_size: limit, page_token: cursor });
    return { items: webhooks, next: next_page_token };
  };
  const whole = async (req: Request, res: Response) => {
    const first = await page(req, MAX_LIMIT, '');
    await writePages(res, first, (current) => current.items.map(webhookJson), (current) => (current.next ? page(req, MAX_LIMIT, current.next) : undefined));
  };

  createRoute(router, PATH, face);
  listRoute(router, PATH, { page, whole, toJson: webhookJson });
  router.all(PATH, methodNotAllowed(['GET', 'HEAD', 'POST']));

  router.post(`${PATH}/:guid/test`, async (req, res) => {
    const { event_id } = await backend.sendTest(req, { guid: param(req, 'guid') });
    res.status(202).json({ event_id });
  });
  router.all(`${PATH}/:guid/test`, methodNotAllowed(['POST']));

  router.get(`${PATH}/:guid/deliveries`, async (req, res) => {
    const { deliveries } = await backend.deliveries(req, { guid: param(req, 'guid'), page_size: 0 });
    res.json(deliveries.map((delivery) => resourceJson(DELIVERY_FIELDS, delivery)));
  });
  router.all(`${PATH}/:guid/deliveries`, methodNotAllowed(['GET', 'HEAD']));

  itemRoutes(router, face);
  return router;
}

import { Router, type Request, type RequestHandler, type Response } from 'express';
import { MOVE_BODIES, RESERVATION_FIELDS, SCAN_FIELDS } from '../../lib/fields/reservation.js';
import type { Reservation } from '../../lib/gen/ticketing/v1/reservation.js';
import { writePages } from '../array-json.js';
import { reservationBackend } from '../backends.js';
import type { BodyKind } from '../body.js';
import { resourceInput, type ResourceInput } from '../body-input.js';
import type { BackendClients } from '../clients.js';
import { sendInvalidFields } from '../problem.js';
import type { Caller } from '../request-context.js';
import { idempotencyKey, MAX_LIMIT, methodNotAllowed } from '../request-input.js';
import { resourceJson } from '../resource-json.js';
import { listRoute, param } from '../resource-routes.js';
import { stateFilter } from '../state-filter.js';

const reservationJson = (reservation: Reservation) => resourceJson(RESERVATION_FIELDS, reservation);

/** A move's body as its request fields, by the move's body table; a body with type errors is answered with 422 (undefined). */
function moveBody(req: Request, res: Response, move: keyof typeof MOVE_BODIES): ResourceInput['fields'] | undefined {
  const input = resourceInput(MOVE_BODIES[move], req.body as Record<string, unknown>, res.locals.bodyKind as BodyKind, 'refuse');
  if (!input.violations.length) return input.fields;
  sendInvalidFields(res, input.violations);
  return undefined;
}

/** REST face of ReservationService (PRODUCT.md 9, docs/stock-moves.md); `admitSale` may refuse a new reservation when the gateway is overloaded. */
export function reservationRoutes(clients: BackendClients, call: Caller, admitSale: RequestHandler): Router {
  const router = Router();
  const backend = reservationBackend(clients.reservations, call);
  const page = async (req: Request, limit: number, cursor: string) => {
    const request = { ticket_id: param(req, 'guid'), state: stateFilter(req), page_size: limit, page_token: cursor };
    const { reservations, next_page_token } = await backend.list(req, request);
    return { items: reservations, next: next_page_token };
  };
  const whole = async (req: Request, res: Response) => {
    const first = await page(req, MAX_LIMIT, '');
    await writePages(res, first, (current) => current.items.map(reservationJson), (current) => (current.next ? page(req, MAX_LIMIT, current.next) : undefined));
  };

  router.post('/ticket/:guid/reservations', admitSale, async (req, res) => {
    const requestId = idempotencyKey(req, res);
    if (requestId === undefined) return;
    const body = moveBody(req, res, 'reserve');
    if (!body) return;
    const reservation = await backend.reserve(req, { amount: 0, ...body, ticket_id: param(req, 'guid'), request_id: requestId });
    res.status(201).location(`/reservation/${reservation.guid}`).json(reservationJson(reservation));
  });
  listRoute(router, '/ticket/:guid/reservations', { page, whole, toJson: reservationJson, filters: ['state'] });
  router.all('/ticket/:guid/reservations', methodNotAllowed(['GET', 'HEAD', 'POST']));

  const barcodePage = async (req: Request, limit: number, cursor: string) => {
    const { barcodes, next_page_token } = await backend.barcodes(req, { guid: param(req, 'guid'), page_size: limit, page_token: cursor });
    return { items: barcodes, next: next_page_token };
  };
  const allBarcodes = async (req: Request, res: Response) => {
    const first = await barcodePage(req, MAX_LIMIT, '');
    await writePages(res, first, (current) => current.items, (current) => (current.next ? barcodePage(req, MAX_LIMIT, current.next) : undefined));
  };
  listRoute(router, '/reservation/:guid/barcodes', { page: barcodePage, whole: allBarcodes, toJson: (code: string) => code });
  router.all('/reservation/:guid/barcodes', methodNotAllowed(['GET', 'HEAD']));

  router.get('/reservation/:guid', async (req, res) => {
    res.json(reservationJson(await backend.get(req, { guid: param(req, 'guid') })));
  });
  router.all('/reservation/:guid', methodNotAllowed(['GET', 'HEAD']));

  for (const move of ['pending', 'confirm', 'release'] as const) {
    router.post(`/reservation/:guid/${move}`, async (req, res) => {
      const body = moveBody(req, res, move);
      if (!body) return;
      res.json(reservationJson(await backend[move](req, { barcodes: [], ...body, guid: param(req, 'guid') })));
    });
    router.all(`/reservation/:guid/${move}`, methodNotAllowed(['POST']));
  }

  router.post('/event/:guid/scans', async (req, res) => {
    const body = moveBody(req, res, 'scan');
    if (!body) return;
    const scan = await backend.scan(req, { barcode: '', ...body, event_id: param(req, 'guid') });
    res.status(201).json(resourceJson(SCAN_FIELDS, scan));
  });
  router.all('/event/:guid/scans', methodNotAllowed(['POST']));

  return router;
}

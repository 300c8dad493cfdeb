import { Router, type Request, type RequestHandler, type Response } from 'express';
import { MOVE_BODIES, RESERVATION_FIELDS, SCAN_FIELDS } from '../../lib/fields/reservation.js';
import type { Reservation } from '../../lib/gen/ticketing/v1/reservation.js';
import { writePages } from '../array-json.js';
import { reservationBackend } from '../backends.js';
import { bodyFields } from '../body-input.js';
import type { BackendClients } from '../clients.js';
import type { Caller } from '../request-context.js';
import { idempotencyKey, MAX_LIMIT, methodNotAllowed } from '../request-input.js';
import { resourceJson } from '../resource-json.js';
import { listRoute, param } from '../resource-routes.js';
import { stateFilter } from '../state-filter.js';
import { saleMoveRoutes } from './sale-moves.js';

const reservationJson = (reservation: Reservation) => resourceJson(RESERVATION_FIELDS, reservation);

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
    const requestId = idempotencyKey(req);
    const body = bodyFields(MOVE_BODIES.reserve, req, res);
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

  saleMoveRoutes(router, '/reservation', backend.moves, (move, req, res) => bodyFields(MOVE_BODIES[move], req, res), reservationJson);

  router.post('/event/:guid/scans', async (req, res) => {
    const requestId = idempotencyKey(req);
    const body = bodyFields(MOVE_BODIES.scan, req, res);
    const scan = await backend.scan(req, { barcode: '', ...body, event_id: param(req, 'guid'), request_id: requestId });
    res.status(201).json(resourceJson(SCAN_FIELDS, scan));
  });
  router.all('/event/:guid/scans', methodNotAllowed(['POST']));

  return router;
}

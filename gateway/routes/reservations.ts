import { Router, type Request, type Response } from 'express';
import type { Reservation } from '../../lib/gen/ticketing/v1/reservation.js';
import { writePages } from '../array-json.js';
import type { BodyKind } from '../body.js';
import type { BackendClients } from '../clients.js';
import { sendProblem } from '../problem.js';
import type { Caller } from '../request-context.js';
import { idempotencyKey, listCall, listQuery, MAX_LIMIT, methodNotAllowed, nextPageLink } from '../request-input.js';
import { reservationJson, scanJson } from '../reservation-json.js';
import { moveInput, type MoveInput } from '../reservation-input.js';

const bodyOf = (req: Request) => req.body as Record<string, unknown>;
const bodyKind = (res: Response) => res.locals.bodyKind as BodyKind;

/** Answers a body's type errors with 422; true when it did. */
function refusedInput(res: Response, input: MoveInput): boolean {
  if (!input.violations.length) return false;
  sendProblem(res, { status: 422, detail: 'The request has invalid fields.', errors: input.violations });
  return true;
}

/** REST face of ReservationService (PRODUCT.md 9, docs/stock-moves.md). */
export function reservationRoutes(clients: BackendClients, call: Caller): Router {
  const router = Router();
  const service = clients.reservations;
  const listPage = (req: Request, ticket_id: string, state: string, page_size: number, page_token: string) =>
    call(service.listReservations.bind(service), { ticket_id, state, page_size, page_token }, req);

  router.post('/ticket/:guid/reservations', async (req, res) => {
    const requestId = idempotencyKey(req, res);
    if (requestId === undefined) return;
    const input = moveInput(bodyOf(req), bodyKind(res), ['amount', 'ttl_seconds'], ['amount']);
    if (refusedInput(res, input)) return;
    const request = { ticket_id: req.params.guid!, amount: input.amount!, ttl_seconds: input.ttl_seconds, request_id: requestId };
    const reservation = await call(service.reserveTicket.bind(service), request, req);
    res.status(201).location(`/reservation/${reservation.guid}`).json(reservationJson(reservation));
  });

  router.get('/ticket/:guid/reservations', async (req, res) => {
    const query = listQuery(req, res);
    if (!query) return;
    const state = typeof req.query.state === 'string' ? req.query.state : '';
    if (req.query.state !== undefined && typeof req.query.state !== 'string') {
      return sendProblem(res, { status: 422, detail: 'The request has invalid query parameters.', errors: [{ field: 'state', description: 'must be sent only once' }] });
    }
    const ticketId = req.params.guid;
    if (query.page) {
      const { limit, cursor } = query.page;
      const page = await listCall(res, () => listPage(req, ticketId, state, limit, cursor));
      if (!page) return;
      // The cursor belongs to the filtered list: the next link keeps the filter.
      if (page.next_page_token) res.set('Link', nextPageLink(req, limit, page.next_page_token).replace('>;', state ? `&state=${encodeURIComponent(state)}>;` : '>;'));
      return res.json(page.reservations.map(reservationJson));
    }
    // The whole list, written page by page as the pages arrive.
    const first = await listCall(res, () => listPage(req, ticketId, state, MAX_LIMIT, ''));
    if (!first) return;
    await writePages(
      res,
      first,
      (page) => page.reservations.map(reservationJson),
      (page) => (page.next_page_token ? listPage(req, ticketId, state, MAX_LIMIT, page.next_page_token) : undefined),
    );
  });
  router.all('/ticket/:guid/reservations', methodNotAllowed(['GET', 'HEAD', 'POST']));

  router.get('/reservation/:guid', async (req, res) => {
    res.json(reservationJson(await call(service.getReservation.bind(service), { guid: req.params.guid! }, req)));
  });
  router.all('/reservation/:guid', methodNotAllowed(['GET', 'HEAD']));

  const sendMove = (res: Response, reservation: Reservation) => res.json(reservationJson(reservation));

  router.post('/reservation/:guid/pending', async (req, res) => {
    const input = moveInput(bodyOf(req), bodyKind(res), ['ttl_seconds']);
    if (refusedInput(res, input)) return;
    sendMove(res, await call(service.markReservationPending.bind(service), { guid: req.params.guid!, ttl_seconds: input.ttl_seconds }, req));
  });
  router.post('/reservation/:guid/confirm', async (req, res) => {
    const input = moveInput(bodyOf(req), bodyKind(res), ['barcodes']);
    if (refusedInput(res, input)) return;
    sendMove(res, await call(service.confirmReservation.bind(service), { guid: req.params.guid!, barcodes: input.barcodes }, req));
  });
  router.post('/reservation/:guid/release', async (req, res) => {
    const input = moveInput(bodyOf(req), bodyKind(res), []);
    if (refusedInput(res, input)) return;
    sendMove(res, await call(service.releaseReservation.bind(service), { guid: req.params.guid! }, req));
  });
  for (const move of ['pending', 'confirm', 'release']) router.all(`/reservation/:guid/${move}`, methodNotAllowed(['POST']));

  router.post('/event/:guid/scans', async (req, res) => {
    const input = moveInput(bodyOf(req), bodyKind(res), ['barcode'], ['barcode']);
    if (refusedInput(res, input)) return;
    const scan = await call(service.scanBarcode.bind(service), { event_id: req.params.guid!, barcode: input.barcode! }, req);
    res.status(201).json(scanJson(scan));
  });
  router.all('/event/:guid/scans', methodNotAllowed(['POST']));

  return router;
}

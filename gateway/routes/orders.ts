import { Router, type Request, type RequestHandler, type Response } from 'express';
import { MOVE_BODIES } from '../../lib/fields/reservation.js';
import { ORDER_BODIES, ORDER_FIELDS, SET_HOLDER } from '../../lib/fields/order.js';
import type { SaleMove } from '../../lib/stock-moves.js';
import type { ConfirmLine, NewOrderLine, Order, SetBarcodeHolderRequest } from '../../lib/gen/ticketing/v1/order.js';
import { writePages } from '../array-json.js';
import { orderBackend } from '../backends.js';
import type { BodyKind } from '../body.js';
import { bodyFields, resourceInput } from '../body-input.js';
import { invalidFields } from '../problem.js';
import type { BackendClients } from '../clients.js';
import { orderBody } from '../order-input.js';
import { resourceJson } from '../resource-json.js';
import type { Caller } from '../request-context.js';
import { idempotencyKey, MAX_LIMIT, methodNotAllowed } from '../request-input.js';
import { listRoute, param } from '../resource-routes.js';
import { stateFilter } from '../state-filter.js';
import { saleMoveRoutes } from './sale-moves.js';
import { CouponTries } from '../coupon-tries.js';

const orderJson = (order: Order) => resourceJson(ORDER_FIELDS, order);

/**
 * The body of PUT /order/:guid/barcodes/:code: `holder` must be sent (null clears it; over
 * gRPC an unset holder is the null, so only JSON can leave it out). 422 (undefined) otherwise.
 */
function holderBody(req: Request, res: Response): Pick<SetBarcodeHolderRequest, 'holder'> {
  const body = req.body as Record<string, unknown>;
  const input = resourceInput(SET_HOLDER, body, res.locals.bodyKind as BodyKind, 'refuse');
  const missing = Object.hasOwn(body, 'holder') ? [] : [{ field: 'holder', description: 'is required: {name, email}, or null to clear the holder' }];
  const violations = [...missing, ...input.violations];
  if (violations.length) throw invalidFields(violations);
  return input.fields as Pick<SetBarcodeHolderRequest, 'holder'>;
}

/** A move's body: the order's own where it has one (confirm: lines; cancel: a fee), else a reservation's (lib/fields/reservation.ts MOVE_BODIES). */
function orderMoveBody(move: SaleMove, req: Request, res: Response): Record<string, unknown> {
  if (!isOrderBody(move)) return bodyFields(MOVE_BODIES[move], req, res);
  const body = orderBody(req, res, move);
  if (move === 'cancel') return { barcodes: [], ...body.fields };
  return { ...body.fields, lines: body.lines.map((line) => ({ ticket_id: '', barcodes: [], holders: [], ...line }) as ConfirmLine) };
}

const isOrderBody = (move: SaleMove): move is SaleMove & keyof typeof ORDER_BODIES => Object.hasOwn(ORDER_BODIES, move);

/** REST face of OrderService (PRODUCT.md 12, docs/orders.md); `admitSale` may refuse a new order when the gateway is overloaded. */
export function orderRoutes(clients: BackendClients, call: Caller, admitSale: RequestHandler, couponTries: CouponTries = new CouponTries()): Router {
  const router = Router();
  const backend = orderBackend(clients.orders, call);

  router.post('/event/:guid/orders', admitSale, async (req, res) => {
    const requestId = idempotencyKey(req);
    const body = orderBody(req, res, 'create');
    const lines = body.lines.map((line) => ({ ticket_id: '', amount: 0, ...line }) as NewOrderLine);
    const create = () => backend.create(req, { ...body.fields, lines, event_id: param(req, 'guid'), request_id: requestId });
    const order = await couponTries.send(req, typeof body.fields.coupon_code === 'string', create);
    res.status(201).location(`/order/${order.guid}`).json(orderJson(order));
  });
  const page = async (req: Request, limit: number, cursor: string) => {
    const { orders, next_page_token } = await backend.list(req, { event_id: param(req, 'guid'), state: stateFilter(req), page_size: limit, page_token: cursor });
    return { items: orders, next: next_page_token };
  };
  const whole = async (req: Request, res: Response) => {
    const first = await page(req, MAX_LIMIT, '');
    await writePages(res, first, (current) => current.items.map(orderJson), (current) => (current.next ? page(req, MAX_LIMIT, current.next) : undefined));
  };
  listRoute(router, '/event/:guid/orders', { page, whole, toJson: orderJson, filters: ['state'] });
  router.all('/event/:guid/orders', methodNotAllowed(['GET', 'HEAD', 'POST']));

  router.get('/order/:guid', async (req, res) => {
    res.json(orderJson(await backend.get(req, { guid: param(req, 'guid') })));
  });
  router.all('/order/:guid', methodNotAllowed(['GET', 'HEAD']));

  saleMoveRoutes(router, '/order', backend.moves, orderMoveBody, orderJson);

  router.put('/order/:guid/barcodes/:code', async (req, res) => {
    const body = holderBody(req, res);
    res.json(orderJson(await backend.setHolder(req, { ...body, guid: param(req, 'guid'), code: param(req, 'code') })));
  });
  router.all('/order/:guid/barcodes/:code', methodNotAllowed(['PUT']));

  return router;
}

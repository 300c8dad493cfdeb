import { Router, type Request, type Response } from 'express';
import { ADD_CODES, CODE_LIMITS, COUPON, COUPON_CODE_FIELDS } from '../../lib/fields/coupon.js';
import type { AddCouponCodesRequest, Coupon, CouponCode, CouponCodeInput } from '../../lib/gen/ticketing/v1/coupon.js';
import { writePages } from '../array-json.js';
import { couponBackend } from '../backends.js';
import type { BodyKind } from '../body.js';
import { resourceInput } from '../body-input.js';
import type { BackendClients } from '../clients.js';
import { invalidFields } from '../problem.js';
import type { Caller } from '../request-context.js';
import { idempotencyKey, MAX_LIMIT, methodNotAllowed } from '../request-input.js';
import { resourceJson } from '../resource-json.js';
import { createRoute, itemRoutes, listRoute, param, type ListFace, type ResourceFace } from '../resource-routes.js';

const couponJson = (coupon: Coupon) => resourceJson(COUPON.fields, coupon);
const codeJson = (code: CouponCode) => resourceJson(COUPON_CODE_FIELDS, code);

type Page<T> = { items: T[]; next: string };

/** A list served paged (limit, cursor) or whole, from its page call. */
function pagedList<T>(page: (req: Request, limit: number, cursor: string) => Promise<Page<T>>, toJson: (item: T) => unknown): ListFace<T> {
  const whole = async (req: Request, res: Response) => {
    const first = await page(req, MAX_LIMIT, '');
    await writePages(res, first, (current) => current.items.map(toJson), (current) => (current.next ? page(req, MAX_LIMIT, current.next) : undefined));
  };
  return { page, whole, toJson };
}

/** The limits sent as null (no limit), which a message cannot carry as values: named in null_fields. */
const nullLimits = (body: Record<string, unknown>, kind: BodyKind) =>
  CODE_LIMITS.filter((field) => Object.hasOwn(body, field) && (body[field] === null || (kind === 'form' && body[field] === '')));

/** The body of POST /coupon/:guid/codes as AddCouponCodesRequest: types by the table (lib/fields/coupon.ts), every rule the service's. */
function addCodesRequest(req: Request, res: Response): Omit<AddCouponCodesRequest, 'guid' | 'request_id'> {
  const body = req.body as Record<string, unknown>;
  const kind = res.locals.bodyKind as BodyKind;
  const input = resourceInput(ADD_CODES, body, kind, 'refuse');
  if (input.violations.length) throw invalidFields(input.violations);
  const fields = input.fields as Partial<AddCouponCodesRequest> & { codes?: Array<Partial<CouponCodeInput>> };
  const sentCodes = Array.isArray(body.codes) ? (body.codes as Array<Record<string, unknown>>) : [];
  const codes = (fields.codes ?? []).map((code, i) => ({ ...code, null_fields: nullLimits(sentCodes[i] ?? {}, 'json') }) as CouponCodeInput);
  return { ...fields, codes, null_fields: nullLimits(body, kind) };
}

/** REST face of CouponService (PRODUCT.md 15, docs/coupons.md): the coupons of an event and their codes. */
export function couponRoutes(clients: BackendClients, call: Caller): Router {
  const router = Router();
  const backend = couponBackend(clients.coupons, call);
  const face: ResourceFace<Coupon> = { resource: COUPON, backend: backend.item, path: '/coupon' };

  createRoute(router, '/event/:guid/coupons', face, 'guid');
  listRoute(
    router,
    '/event/:guid/coupons',
    pagedList(async (req, limit, cursor) => {
      const { coupons, next_page_token } = await backend.list(req, { event_id: param(req, 'guid'), page_size: limit, page_token: cursor });
      return { items: coupons, next: next_page_token };
    }, couponJson),
  );
  router.all('/event/:guid/coupons', methodNotAllowed(['GET', 'HEAD', 'POST']));

  router.post('/coupon/:guid/codes', async (req, res) => {
    const request = { ...addCodesRequest(req, res), guid: param(req, 'guid'), request_id: idempotencyKey(req) };
    const { codes } = await backend.addCodes(req, request);
    res.status(201).json(codes.map(codeJson));
  });
  listRoute(
    router,
    '/coupon/:guid/codes',
    pagedList(async (req, limit, cursor) => {
      const { codes, next_page_token } = await backend.listCodes(req, { guid: param(req, 'guid'), page_size: limit, page_token: cursor });
      return { items: codes, next: next_page_token };
    }, codeJson),
  );
  router.all('/coupon/:guid/codes', methodNotAllowed(['GET', 'HEAD', 'POST']));

  router.delete('/coupon/:guid/codes/:code', async (req, res) => {
    await backend.deleteCode(req, { guid: param(req, 'guid'), code: param(req, 'code') });
    res.status(204).end();
  });
  router.all('/coupon/:guid/codes/:code', methodNotAllowed(['DELETE']));

  itemRoutes(router, face);
  return router;
}

import { COUPON } from '../../../lib/fields/coupon.js';
import { EVENT } from '../../../lib/fields/event.js';
import { EVENT_ERRORS, guidParameter, itemOperations, type Paths } from '../operation.js';

/** The event of a coupon path, and the coupon of a code path. */
const EVENT_GUID = guidParameter('guid', EVENT);
const COUPON_GUID = guidParameter('guid', COUPON);
const CODE = { name: 'code', in: 'path', required: true, schema: { type: 'string' }, description: 'The code, matched ignoring case.' };

/** The coupon catalogue (PRODUCT.md 15, docs/coupons.md). */
export function couponPaths(): Paths {
  const item = itemOperations('coupons', 'Coupon', COUPON, {
    get: { summary: 'Get a coupon', description: 'The coupon, when its event is live and belongs to one of the request\'s companies (else 404).' },
    put: { summary: 'Update a coupon (partial)', description: 'Changes the fields sent; discount_type and value must still fit together afterwards (422 naming value).' },
    delete: { summary: 'Delete a coupon (soft)', description: 'Its codes stop working at once; orders keep what they got. Its codes stay taken within the event.' },
  });
  return {
    '/event/{guid}/coupons': {
      post: {
        tag: 'coupons',
        operationId: 'createCoupon',
        summary: 'Create a coupon for an event',
        description: 'name and discount_type are required; value is required for percentage, fixed and price and must be null for none; ticket_ids null or live tickets of the event. An Idempotency-Key makes a retry return the first response.',
        body: 'CouponCreate',
        ok: { status: 201, schema: 'Coupon', headers: ['Location', 'ETag'] },
        errors: [...EVENT_ERRORS, 413, 415],
        parameters: [EVENT_GUID, 'Company', 'Idempotency-Key'],
      },
      get: {
        tag: 'coupons',
        operationId: 'listEventCoupons',
        summary: 'List the live coupons of an event in creation order',
        description: 'Without limit the whole list; with limit a page, and a Link header with rel="next" while more follow. 404 when the event is not in the request\'s companies.',
        ok: { status: 200, schema: 'Coupon', array: true, headers: ['Link'] },
        errors: [400, 401, 404, 422, 503, 504],
        parameters: [EVENT_GUID, 'Company', 'limit', 'cursor'],
      },
    },
    '/coupon/{guid}': { ...item, delete: { ...item.delete!, description: 'Marks the coupon deleted: its codes stop working at once; orders keep what they got. With If-Match, a stale ETag gives 412 and deletes nothing. Afterwards it reads as 404.', errors: [...EVENT_ERRORS, 412] } },
    '/coupon/{guid}/codes': {
      post: {
        tag: 'coupons',
        operationId: 'addCouponCodes',
        summary: 'Add codes to a coupon, given or generated (all or nothing)',
        description: 'Either codes (each 4 to 64 printable ASCII characters without spaces) or generate (1 to 1000, with an optional prefix). A code taken within the event, ignoring case, by another code or by the request itself: 409 coupon_code_taken naming it (coupon_code), and no code is added. 201 with the codes added.',
        body: 'CouponCodesAdd',
        ok: { status: 201, schema: 'CouponCode', array: true },
        errors: [...EVENT_ERRORS, 409, 413, 415],
        parameters: [COUPON_GUID, 'Company', 'Idempotency-Key'],
      },
      get: {
        tag: 'coupons',
        operationId: 'listCouponCodes',
        summary: 'List the codes of a coupon in the order they were added',
        description: 'Each code with its limits and how many orders hold it now. Without limit the whole list; with limit a page, and a Link header with rel="next" while more follow.',
        ok: { status: 200, schema: 'CouponCode', array: true, headers: ['Link'] },
        errors: [400, 401, 404, 422, 503, 504],
        parameters: [COUPON_GUID, 'Company', 'limit', 'cursor'],
      },
    },
    '/coupon/{guid}/codes/{code}': {
      delete: {
        tag: 'coupons',
        operationId: 'deleteCouponCode',
        summary: 'Delete a code of a coupon',
        description: 'The code (matched ignoring case) stops working and its text may be added again; orders keep what they got. 404 when the coupon has no such code.',
        ok: { status: 204, schema: '' },
        errors: EVENT_ERRORS,
        parameters: [COUPON_GUID, CODE, 'Company'],
      },
    },
  };
}

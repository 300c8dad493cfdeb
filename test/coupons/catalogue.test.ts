/**
 * The coupon catalogue (PRODUCT.md 15 "Coupon" and "Codes") over REST and gRPC: coupons of an
 * event (create, read, list, partial update, soft delete, every rule a 422 naming its field),
 * their codes given or generated (all or nothing, unique within the event ignoring case,
 * paged), and the company confinement.
 */
import { credentials, status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Coupon, CouponServiceClient, DiscountType } from '../../lib/gen/ticketing/v1/coupon.js';
import { readErrorDetails } from '../../lib/grpc/errors.js';
import { callerMetadata, grpcCall, grpcFailure } from '../support/grpc.js';
import { bearer, GUID, request, signUpAndLogin, type Account } from '../support/http.js';
import type { TestStack } from '../support/stack.js';
import { startSuite } from '../support/suite.js';

let stack: TestStack;
let account: Account;
let stranger: Account;

beforeAll(async () => {
  ({ stack, account } = await startSuite());
  stranger = await signUpAndLogin(stack, { companyName: 'Other Co' });
});
afterAll(() => stack?.stop());

const COUPON_KEYS = ['guid', 'company_id', 'event_id', 'name', 'discount_type', 'value', 'ticket_ids', 'valid_from', 'valid_until', 'created_at', 'updated_at', 'deleted_at'];
const CODE_KEYS = ['code', 'usage_count', 'applies_to_count', 'used_count', 'created_at'];

const api = (who: Account, method: string, path: string, json?: unknown) => request(`${stack.baseUrl}${path}`, { method, headers: bearer(who.accessToken), json });
const fieldsOf = (res: { body: any }) => (res.body.errors ?? []).map((e: any) => e.field);

async function newEvent(who: Account = account, currency = 'EUR'): Promise<string> {
  const res = await api(who, 'POST', '/event', { name: 'Coupon fair', currency });
  expect(res.status, res.text).toBe(201);
  return res.body.guid;
}

async function newTicket(event: string): Promise<string> {
  const res = await api(account, 'POST', `/event/${event}/ticket`, { name: 'Entry', vat_percentage: 21, min_price: 20 });
  expect(res.status, res.text).toBe(201);
  return res.body.guid;
}

async function newCoupon(event: string, body: Record<string, unknown> = { name: 'Ten off', discount_type: 'percentage', value: 10 }): Promise<any> {
  const res = await api(account, 'POST', `/event/${event}/coupons`, body);
  expect(res.status, res.text).toBe(201);
  return res.body;
}

describe('coupons over REST', () => {
  it('create, read, list, partial update and soft delete', async () => {
    const event = await newEvent();
    const ticket = await newTicket(event);
    const created = await api(account, 'POST', `/event/${event}/coupons`, {
      name: 'Early birds',
      discount_type: 'fixed',
      value: '2.50',
      ticket_ids: [ticket],
      valid_from: '2027-05-01T00:00:00+02:00',
      valid_until: '2027-06-30T00:00:00Z',
    });
    expect(created.status, created.text).toBe(201);
    expect(Object.keys(created.body)).toEqual(COUPON_KEYS);
    expect(created.body.guid).toMatch(GUID);
    expect(created.headers.get('location')).toBe(`/coupon/${created.body.guid}`);
    expect(created.body).toMatchObject({ company_id: account.companyId, event_id: event, discount_type: 'fixed', value: 2.5, ticket_ids: [ticket], valid_from: '2027-04-30T22:00:00+00:00', deleted_at: null });

    const read = await api(account, 'GET', `/coupon/${created.body.guid}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    const other = await newCoupon(event);
    expect(other.ticket_ids).toBeNull();
    expect(other.value).toBe(10);
    const list = await api(account, 'GET', `/event/${event}/coupons`);
    expect(list.body.map((c: any) => c.guid)).toEqual([created.body.guid, other.guid]);
    const page = await api(account, 'GET', `/event/${event}/coupons?limit=1`);
    expect(page.body.map((c: any) => c.guid)).toEqual([created.body.guid]);
    expect(page.headers.get('link')).toContain('rel="next"');

    const put = await api(account, 'PUT', `/coupon/${created.body.guid}`, { name: 'Early birds 2', ticket_ids: null });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ name: 'Early birds 2', ticket_ids: null, discount_type: 'fixed', value: 2.5, valid_until: '2027-06-30T00:00:00+00:00' });
    const toNone = await api(account, 'PUT', `/coupon/${created.body.guid}`, { discount_type: 'none', value: null });
    expect(toNone.status, toNone.text).toBe(200);
    expect(toNone.body).toMatchObject({ discount_type: 'none', value: null });

    expect((await api(account, 'DELETE', `/coupon/${created.body.guid}`)).status).toBe(204);
    expect((await api(account, 'GET', `/coupon/${created.body.guid}`)).status).toBe(404);
    expect((await api(account, 'GET', `/event/${event}/coupons`)).body.map((c: any) => c.guid)).toEqual([other.guid]);
  });

  it.each([
    ['name', { name: '', discount_type: 'none' }],
    ['name', { name: 'x'.repeat(256), discount_type: 'none' }],
    ['name', { discount_type: 'none' }],
    ['discount_type', { name: 'A', discount_type: 'half' }],
    ['discount_type', { name: 'A' }],
    ['value', { name: 'A', discount_type: 'percentage', value: 100.01 }],
    ['value', { name: 'A', discount_type: 'percentage', value: '12.345' }],
    ['value', { name: 'A', discount_type: 'percentage' }],
    ['value', { name: 'A', discount_type: 'fixed', value: -1 }],
    ['value', { name: 'A', discount_type: 'price', value: null }],
    ['value', { name: 'A', discount_type: 'none', value: 5 }],
    ['value', { name: 'A', discount_type: 'fixed', value: 'ten' }],
    ['ticket_ids', { name: 'A', discount_type: 'none', ticket_ids: [] }],
    ['ticket_ids', { name: 'A', discount_type: 'none', ticket_ids: ['3f2b8c1e-5d4a-4b7e-9c1f-2a6d8e0b4c7a'] }],
    ['valid_until', { name: 'A', discount_type: 'none', valid_from: '2027-01-02T00:00:00Z', valid_until: '2027-01-01T00:00:00Z' }],
    ['valid_until', { name: 'A', discount_type: 'none', valid_from: '2027-01-01T00:00:00Z', valid_until: '2027-01-01T00:00:00Z' }],
  ])('422 naming %s for %j', async (field, body) => {
    const event = await newEvent();
    const res = await api(account, 'POST', `/event/${event}/coupons`, body);
    expect(res.status, res.text).toBe(422);
    expect(fieldsOf(res)).toContain(field);
  });

  it('every refused field in one answer', async () => {
    const event = await newEvent();
    const res = await api(account, 'POST', `/event/${event}/coupons`, { name: '', discount_type: 'bogus', ticket_ids: ['3f2b8c1e-5d4a-4b7e-9c1f-2a6d8e0b4c7a'] });
    expect(res.status).toBe(422);
    expect(fieldsOf(res).sort()).toEqual(['discount_type', 'name', 'ticket_ids']);
  });

  it('ticket_ids: each once, live tickets of that event only', async () => {
    const event = await newEvent();
    const ticket = await newTicket(event);
    const twice = await api(account, 'POST', `/event/${event}/coupons`, { name: 'A', discount_type: 'none', ticket_ids: [ticket, ticket.toUpperCase()] });
    expect(twice.status).toBe(422);
    expect(fieldsOf(twice)).toEqual(['ticket_ids']);
    const upper = await api(account, 'POST', `/event/${event}/coupons`, { name: 'A', discount_type: 'none', ticket_ids: [ticket.toUpperCase()] });
    expect(upper.status, upper.text).toBe(201);
    expect(upper.body.ticket_ids).toEqual([ticket]);
    const elsewhere = await newTicket(await newEvent());
    const foreign = await api(account, 'POST', `/event/${event}/coupons`, { name: 'A', discount_type: 'none', ticket_ids: [elsewhere] });
    expect(fieldsOf(foreign)).toEqual(['ticket_ids']);
    expect((await api(account, 'DELETE', `/ticket/${ticket}`)).status).toBe(204);
    const deleted = await api(account, 'POST', `/event/${event}/coupons`, { name: 'A', discount_type: 'none', ticket_ids: [ticket] });
    expect(fieldsOf(deleted)).toEqual(['ticket_ids']);
  });

  it('amounts follow the event currency; the currency cannot change below a coupon amount', async () => {
    const yen = await newEvent(account, 'JPY');
    const fraction = await api(account, 'POST', `/event/${yen}/coupons`, { name: 'A', discount_type: 'price', value: 10.5 });
    expect(fraction.status).toBe(422);
    expect(fieldsOf(fraction)).toEqual(['value']);
    expect((await api(account, 'POST', `/event/${yen}/coupons`, { name: 'A', discount_type: 'percentage', value: 10.5 })).status).toBe(201);

    const euro = await newEvent();
    const coupon = await newCoupon(euro, { name: 'A', discount_type: 'fixed', value: 1.5 });
    const change = await api(account, 'PUT', `/event/${euro}`, { currency: 'JPY' });
    expect(change.status, change.text).toBe(422);
    expect(fieldsOf(change)).toEqual(['currency']);
    expect((await api(account, 'PUT', `/coupon/${coupon.guid}`, { value: 2 })).status).toBe(200);
    expect((await api(account, 'PUT', `/event/${euro}`, { currency: 'JPY' })).status).toBe(200);
  });

  it('after a PUT the combination must still hold', async () => {
    const event = await newEvent();
    const coupon = await newCoupon(event, { name: 'A', discount_type: 'fixed', value: 150 });
    const toPercentage = await api(account, 'PUT', `/coupon/${coupon.guid}`, { discount_type: 'percentage' });
    expect(toPercentage.status).toBe(422);
    expect(fieldsOf(toPercentage)).toEqual(['value']);
    const toNone = await api(account, 'PUT', `/coupon/${coupon.guid}`, { discount_type: 'none' });
    expect(fieldsOf(toNone)).toEqual(['value']);
    const clear = await api(account, 'PUT', `/coupon/${coupon.guid}`, { value: null });
    expect(fieldsOf(clear)).toEqual(['value']);
    const window = await api(account, 'PUT', `/coupon/${coupon.guid}`, { valid_until: '2027-01-01T00:00:00Z' });
    expect(window.status).toBe(200);
    const after = await api(account, 'PUT', `/coupon/${coupon.guid}`, { valid_from: '2027-02-01T00:00:00Z' });
    expect(fieldsOf(after)).toEqual(['valid_from']);
    expect((await api(account, 'GET', `/coupon/${coupon.guid}`)).body).toMatchObject({ discount_type: 'fixed', value: 150, valid_from: null });
  });

  it('another company\'s event and coupon are 404; a coupon of a deleted event is 404', async () => {
    const event = await newEvent();
    const coupon = await newCoupon(event);
    expect((await api(stranger, 'GET', `/coupon/${coupon.guid}`)).status).toBe(404);
    expect((await api(stranger, 'PUT', `/coupon/${coupon.guid}`, { name: 'B' })).status).toBe(404);
    expect((await api(stranger, 'DELETE', `/coupon/${coupon.guid}`)).status).toBe(404);
    expect((await api(stranger, 'GET', `/event/${event}/coupons`)).status).toBe(404);
    expect((await api(stranger, 'POST', `/event/${event}/coupons`, { name: 'A', discount_type: 'none' })).status).toBe(404);
    expect((await api(stranger, 'GET', `/coupon/${coupon.guid}/codes`)).status).toBe(404);
    expect((await api(stranger, 'POST', `/coupon/${coupon.guid}/codes`, { generate: 1 })).status).toBe(404);
    expect((await api(account, 'DELETE', `/event/${event}`)).status).toBe(204);
    expect((await api(account, 'GET', `/coupon/${coupon.guid}`)).status).toBe(404);
  });
});

describe('codes over REST', () => {
  it('given codes with defaults and null limits; listed; deleted ignoring case', async () => {
    const coupon = await newCoupon(await newEvent());
    const added = await api(account, 'POST', `/coupon/${coupon.guid}/codes`, {
      codes: [{ code: 'Summer-2027' }, { code: 'VIP!#', usage_count: null, applies_to_count: 3 }, { code: 'TEAM', usage_count: 5, applies_to_count: null }],
    });
    expect(added.status, added.text).toBe(201);
    expect(added.body.map((c: any) => Object.keys(c))).toEqual([CODE_KEYS, CODE_KEYS, CODE_KEYS]);
    expect(added.body.map((c: any) => [c.code, c.usage_count, c.applies_to_count, c.used_count])).toEqual([
      ['Summer-2027', 1, 1, 0],
      ['VIP!#', null, 3, 0],
      ['TEAM', 5, null, 0],
    ]);
    const list = await api(account, 'GET', `/coupon/${coupon.guid}/codes`);
    expect(list.body).toEqual(added.body);
    expect((await api(account, 'DELETE', `/coupon/${coupon.guid}/codes/summer-2027`)).status).toBe(204);
    expect((await api(account, 'DELETE', `/coupon/${coupon.guid}/codes/summer-2027`)).status).toBe(404);
    expect((await api(account, 'GET', `/coupon/${coupon.guid}/codes`)).body.map((c: any) => c.code)).toEqual(['VIP!#', 'TEAM']);
    // Deleted, its text may be added again.
    expect((await api(account, 'POST', `/coupon/${coupon.guid}/codes`, { codes: [{ code: 'SUMMER-2027' }] })).status).toBe(201);
  });

  it.each([
    ['codes[0].code', { codes: [{ code: 'abc' }] }],
    ['codes[0].code', { codes: [{ code: 'has space' }] }],
    ['codes[0].code', { codes: [{ code: 'x'.repeat(65) }] }],
    ['codes[0].code', { codes: [{ code: 'café' }] }],
    ['codes[0].code', { codes: [{ usage_count: 2 }] }],
    ['codes[0].usage_count', { codes: [{ code: 'GOOD1', usage_count: 0 }] }],
    ['codes[0].applies_to_count', { codes: [{ code: 'GOOD1', applies_to_count: -2 }] }],
    ['codes', {}],
    ['codes', { codes: [] }],
    ['generate', { generate: 0 }],
    ['generate', { generate: 1001 }],
    ['generate', { generate: 2, codes: [{ code: 'GOOD1' }] }],
    ['prefix', { generate: 2, prefix: 'has space' }],
    ['prefix', { generate: 2, prefix: 'x'.repeat(33) }],
    ['usage_count', { generate: 2, usage_count: 0 }],
    ['prefix', { codes: [{ code: 'GOOD1' }], prefix: 'P-' }],
    ['usage_count', { codes: [{ code: 'GOOD1' }], usage_count: null }],
  ])('422 naming %s for %j', async (field, body) => {
    const coupon = await newCoupon(await newEvent());
    const res = await api(account, 'POST', `/coupon/${coupon.guid}/codes`, body);
    expect(res.status, res.text).toBe(422);
    expect(fieldsOf(res)).toContain(field);
    expect((await api(account, 'GET', `/coupon/${coupon.guid}/codes`)).body).toEqual([]);
  });

  it('generated codes: prefix and 12 characters of the unambiguous alphabet, unique, with shared limits', async () => {
    const coupon = await newCoupon(await newEvent());
    const res = await api(account, 'POST', `/coupon/${coupon.guid}/codes`, { generate: 50, prefix: 'SUM-', usage_count: null, applies_to_count: 2 });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toHaveLength(50);
    for (const code of res.body) {
      expect(code.code).toMatch(/^SUM-[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{12}$/);
      expect(code).toMatchObject({ usage_count: null, applies_to_count: 2, used_count: 0 });
    }
    expect(new Set(res.body.map((c: any) => c.code)).size).toBe(50);
    const plain = await api(account, 'POST', `/coupon/${coupon.guid}/codes`, { generate: 1 });
    expect(plain.body[0].code).toMatch(/^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{12}$/);
    expect(plain.body[0]).toMatchObject({ usage_count: 1, applies_to_count: 1 });
  });

  it('all or nothing: a taken code (in the database or repeated in the request, ignoring case) is 409 naming it, nothing created', async () => {
    const event = await newEvent();
    const first = await newCoupon(event);
    const second = await newCoupon(event);
    expect((await api(account, 'POST', `/coupon/${first.guid}/codes`, { codes: [{ code: 'Taken-1' }] })).status).toBe(201);

    const taken = await api(account, 'POST', `/coupon/${second.guid}/codes`, { codes: [{ code: 'FRESH-1' }, { code: 'TAKEN-1' }, { code: 'FRESH-2' }] });
    expect(taken.status, taken.text).toBe(409);
    expect(taken.body).toMatchObject({ code: 'coupon_code_taken', coupon_code: 'TAKEN-1' });
    expect(taken.body.detail).toContain('TAKEN-1');
    expect((await api(account, 'GET', `/coupon/${second.guid}/codes`)).body).toEqual([]);

    const repeated = await api(account, 'POST', `/coupon/${second.guid}/codes`, { codes: [{ code: 'Twice' }, { code: 'tWICE' }] });
    expect(repeated.status).toBe(409);
    expect(repeated.body).toMatchObject({ code: 'coupon_code_taken', coupon_code: 'tWICE' });
    expect((await api(account, 'GET', `/coupon/${second.guid}/codes`)).body).toEqual([]);

    // Another event may use the same code.
    const elsewhere = await newCoupon(await newEvent());
    expect((await api(account, 'POST', `/coupon/${elsewhere.guid}/codes`, { codes: [{ code: 'taken-1' }] })).status).toBe(201);
  });

  it('racing requests for the same code (ignoring case): exactly one adds it, the other is 409 and adds nothing', async () => {
    const event = await newEvent();
    const [a, b] = [await newCoupon(event), await newCoupon(event)];
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => api(account, 'POST', `/coupon/${(i % 2 ? a : b).guid}/codes`, { codes: [{ code: `Own-${i}` }, { code: i % 2 ? 'RACE' : 'race' }] })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    for (const refused of results.filter((r) => r.status === 409)) expect(refused.body).toMatchObject({ code: 'coupon_code_taken' });
    const codes = [...(await api(account, 'GET', `/coupon/${a.guid}/codes`)).body, ...(await api(account, 'GET', `/coupon/${b.guid}/codes`)).body].map((c: any) => c.code);
    expect(codes).toHaveLength(2);
    expect(codes.filter((c: string) => c.toLowerCase() === 'race')).toHaveLength(1);
  });

  it('an Idempotency-Key makes a retry of generated codes answer the first codes and add none', async () => {
    const coupon = await newCoupon(await newEvent());
    const send = () => request(`${stack.baseUrl}/coupon/${coupon.guid}/codes`, { method: 'POST', headers: bearer(account.accessToken, { 'Idempotency-Key': `codes-${coupon.guid}` }), json: { generate: 3 } });
    const first = await send();
    expect(first.status, first.text).toBe(201);
    const again = await send();
    expect(again.body).toEqual(first.body);
    expect((await api(account, 'GET', `/coupon/${coupon.guid}/codes`)).body).toHaveLength(3);
  });

  it('codes page by page', async () => {
    const coupon = await newCoupon(await newEvent());
    const added = (await api(account, 'POST', `/coupon/${coupon.guid}/codes`, { generate: 5 })).body.map((c: any) => c.code);
    const seen: string[] = [];
    let next: string | undefined = `/coupon/${coupon.guid}/codes?limit=2`;
    let pages = 0;
    while (next) {
      const page = await api(account, 'GET', next);
      expect(page.status).toBe(200);
      seen.push(...page.body.map((c: any) => c.code));
      pages += 1;
      const link = page.headers.get('link');
      next = link ? new URL(/<([^>]+)>/.exec(link)![1]!, stack.baseUrl).pathname + new URL(/<([^>]+)>/.exec(link)![1]!, stack.baseUrl).search : undefined;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(added);
  });

  it('a deleted coupon\'s codes cannot be listed or added to', async () => {
    const coupon = await newCoupon(await newEvent());
    await api(account, 'POST', `/coupon/${coupon.guid}/codes`, { generate: 1 });
    expect((await api(account, 'DELETE', `/coupon/${coupon.guid}`)).status).toBe(204);
    expect((await api(account, 'GET', `/coupon/${coupon.guid}/codes`)).status).toBe(404);
    expect((await api(account, 'POST', `/coupon/${coupon.guid}/codes`, { generate: 1 })).status).toBe(404);
  });
});

describe('CouponService over gRPC', () => {
  it('the same operations and rules', async () => {
    const client = new CouponServiceClient(stack.ticketGrpcAddress, credentials.createInsecure());
    try {
      const md = callerMetadata(account.accessToken);
      const event = await newEvent();
      const coupon = (fields: Partial<Coupon>) => Coupon.fromPartial(fields);
      const created = await grpcCall(
        client.createCoupon.bind(client),
        { event_id: event, coupon: coupon({ name: 'Grpc', discount_type: DiscountType.DISCOUNT_TYPE_PRICE, value: '7.5' }), request_id: '' },
        md,
      );
      expect(created).toMatchObject({ event_id: event, name: 'Grpc', discount_type: DiscountType.DISCOUNT_TYPE_PRICE, value: '7.5', ticket_ids: [] });
      expect((await grpcCall(client.getCoupon.bind(client), { guid: created.guid }, md)).name).toBe('Grpc');
      const list = await grpcCall(client.listCoupons.bind(client), { event_id: event, page_size: 0, page_token: '' }, md);
      expect(list.coupons.map((c) => c.guid)).toEqual([created.guid]);

      const updated = await grpcCall(client.updateCoupon.bind(client), { guid: created.guid, coupon: coupon({ name: 'Grpc 2' }), update_mask: [], etag: '' }, md);
      expect(updated).toMatchObject({ name: 'Grpc 2', value: '7.5', discount_type: DiscountType.DISCOUNT_TYPE_PRICE });

      const invalid = await grpcFailure(
        grpcCall(client.createCoupon.bind(client), { event_id: event, coupon: coupon({ name: 'X', discount_type: DiscountType.DISCOUNT_TYPE_NONE, value: '1' }), request_id: '' }, md),
      );
      expect(invalid.code).toBe(status.INVALID_ARGUMENT);
      expect(readErrorDetails(invalid).fieldViolations?.map((v) => v.field)).toEqual(['value']);

      const added = await grpcCall(
        client.addCouponCodes.bind(client),
        { guid: created.guid, codes: [{ code: 'GrpcCode', null_fields: ['usage_count'] }], null_fields: [], request_id: '' },
        md,
      );
      expect(added.codes.map((c) => [c.code, c.usage_count, c.applies_to_count])).toEqual([['GrpcCode', undefined, 1]]);
      const taken = await grpcFailure(grpcCall(client.addCouponCodes.bind(client), { guid: created.guid, codes: [{ code: 'GRPCCODE', null_fields: [] }], null_fields: [], request_id: '' }, md));
      expect(taken.code).toBe(status.ALREADY_EXISTS);
      const details = readErrorDetails(taken);
      expect(details.reason).toBe('coupon_code_taken');
      expect(details.reasonMetadata?.code).toBe('GRPCCODE');
      const generated = await grpcCall(client.addCouponCodes.bind(client), { guid: created.guid, codes: [], generate: 3, prefix: 'G-', null_fields: [], request_id: '' }, md);
      expect(generated.codes).toHaveLength(3);
      const codes = await grpcCall(client.listCouponCodes.bind(client), { guid: created.guid, page_size: 2, page_token: '' }, md);
      expect(codes.codes).toHaveLength(2);
      expect(codes.next_page_token).not.toBe('');
      await grpcCall(client.deleteCouponCode.bind(client), { guid: created.guid, code: 'grpccode' }, md);
      expect((await grpcFailure(grpcCall(client.deleteCouponCode.bind(client), { guid: created.guid, code: 'grpccode' }, md))).code).toBe(status.NOT_FOUND);

      const foreign = await grpcFailure(grpcCall(client.getCoupon.bind(client), { guid: created.guid }, callerMetadata(stranger.accessToken)));
      expect(foreign.code).toBe(status.NOT_FOUND);
      await grpcCall(client.deleteCoupon.bind(client), { guid: created.guid, etag: '' }, md);
      expect((await grpcFailure(grpcCall(client.getCoupon.bind(client), { guid: created.guid }, md))).code).toBe(status.NOT_FOUND);
    } finally {
      client.close();
    }
  });

  it('request_id makes a creation idempotent', async () => {
    const client = new CouponServiceClient(stack.ticketGrpcAddress, credentials.createInsecure());
    try {
      const md = callerMetadata(account.accessToken);
      const event = await newEvent();
      const request = { event_id: event, coupon: Coupon.fromPartial({ name: 'Once', discount_type: DiscountType.DISCOUNT_TYPE_NONE }), request_id: 'coupon-once-1' };
      const first = await grpcCall(client.createCoupon.bind(client), request, md);
      const again = await grpcCall(client.createCoupon.bind(client), request, md);
      expect(again.guid).toBe(first.guid);
      expect((await grpcCall(client.listCoupons.bind(client), { event_id: event, page_size: 0, page_token: '' }, md)).coupons).toHaveLength(1);
    } finally {
      client.close();
    }
  });
});

/**
 * The value rules of docs/ticket-api.md "Bodies and values", on PUT /ticket/:guid: each
 * bad value is a 422 naming its field (and nothing else), each boundary value is accepted,
 * and all bad fields are listed at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestStack } from '../support/stack.js';
import { createTicket, expect422, h, putTicket, readTicket, request, startSuite, updateTicket, type Who } from './helpers.js';

let stack: TestStack;
let who: Who;
let eventGuid: string;
/** One ticket for the single-field checks: a refused PUT must leave it unchanged. */
let guid: string;
/** The ticket as it was before the refused PUTs. */
let snapshot: Record<string, unknown>;

beforeAll(async () => {
  ({ stack, who, eventGuid } = await startSuite({ event: { name: 'Validation event' } }));
  guid = (await createTicket(who, eventGuid, { name: 'Validated', vat_percentage: 21 })).guid;
  snapshot = await readTicket(who, guid);
});

afterAll(() => stack?.stop());

const long = (n: number, ch = 'a') => ch.repeat(n);
const EMOJI = '\u{1F3AB}';

/** [field, bad value] pairs: each alone must be a 422 naming exactly that field. */
const BAD: Array<[string, unknown]> = [
  ['name', ''],
  ['name', '   '],
  ['name', long(256)],
  ['name', EMOJI.repeat(256)],
  ['name', null],
  ['name', {}],
  ['name', ['a']],
  ['description', long(10_001)],
  ['description', { text: 'x' }],
  ['class', long(256)],
  ['seats_category_key', long(256)],
  ['vat_percentage', -1],
  ['vat_percentage', -0.01],
  ['vat_percentage', 100.01],
  ['vat_percentage', 101],
  ['vat_percentage', 21.555],
  ['vat_percentage', '21.555'],
  ['vat_percentage', 'abc'],
  ['vat_percentage', null],
  ['vat_percentage', true],
  ['percentage_service_costs_in_ticket', -1],
  ['percentage_service_costs_in_ticket', 100.5],
  ['percentage_service_costs_in_ticket', 1.001],
  ['percentage_service_costs_in_ticket', null],
  ['min_price', -0.01],
  ['min_price', 1.999],
  ['min_price', 10_000_000_000],
  ['min_price', '10000000000.00'],
  ['min_price', 'free'],
  ['available_stock', -1],
  ['available_stock', 1.5],
  ['available_stock', 2_147_483_648],
  ['available_stock', '12abc'],
  ['available_stock', null],
  ['increment', 0],
  ['increment', -3],
  ['availability_margin', -1],
  ['availability_margin', 2.5],
  ['min_orderable_amount_per_order', -1],
  ['max_orderable_amount_per_order', 2_147_483_648],
  ['status_overrule', 'bogus'],
  ['status_overrule', 'AUTO'],
  ['status_overrule', null],
  ['barcode_type', 'qr'],
  ['barcode_type', ''],
  ['late_personalization', 'maybe'],
  ['late_personalization', null],
  ['swappable', 'yes please'],
  ['seated', {}],
  ['available_from', '2030-01-01T10:00:00'],
  ['available_from', '2030-01-01'],
  ['available_from', 'tomorrow'],
  ['available_from', '2030-13-45T10:00:00Z'],
  ['available_until', '2030-01-01 10:00:00'],
  ['available_until', 12345],
];

/** [field, boundary value, value read back] that must be accepted. */
const GOOD: Array<[string, unknown, unknown]> = [
  ['name', 'a', 'a'],
  ['name', long(255), long(255)],
  ['name', EMOJI.repeat(255), EMOJI.repeat(255)],
  ['name', 'Concert \u{1F3AB}\u{1F389} \u00dcn\u00efc\u00f6d\u00e9 \u4e2d\u6587 \u{1F468}\u200D\u{1F469}\u200D\u{1F467}', 'Concert \u{1F3AB}\u{1F389} \u00dcn\u00efc\u00f6d\u00e9 \u4e2d\u6587 \u{1F468}\u200D\u{1F469}\u200D\u{1F467}'],
  ['description', long(10_000), long(10_000)],
  ['description', `Line 1\nLine 2 \u{1F600} <b>"quoted"</b> ' ; --`, `Line 1\nLine 2 \u{1F600} <b>"quoted"</b> ' ; --`],
  ['class', long(255), long(255)],
  ['seats_category_key', long(255), long(255)],
  ['vat_percentage', 0, 0],
  ['vat_percentage', 100, 100],
  ['vat_percentage', 9.99, 9.99],
  ['vat_percentage', '21.5', 21.5],
  ['vat_percentage', 21.1, 21.1],
  ['percentage_service_costs_in_ticket', 0.01, 0.01],
  ['percentage_service_costs_in_ticket', 100, 100],
  ['min_price', 0, 0],
  ['min_price', 9.99, 9.99],
  ['min_price', 0.1, 0.1],
  ['min_price', 9_999_999_999.99, 9_999_999_999.99],
  ['min_price', '19.90', 19.9],
  ['available_stock', 0, 0],
  ['available_stock', 2_147_483_647, 2_147_483_647],
  ['increment', 1, 1],
  ['availability_margin', 0, 0],
  ['status_overrule', 'auto', 'auto'],
  ['status_overrule', 'available', 'available'],
  ['status_overrule', 'sold_out', 'sold_out'],
  ['status_overrule', 'unavailable', 'unavailable'],
  ['barcode_type', 'generate', 'generate'],
  ['barcode_type', 'predefined', 'predefined'],
  ['barcode_type', 'none', 'none'],
  ['available_from', '2030-01-01T10:00:00Z', '2030-01-01T10:00:00+00:00'],
  ['available_from', null, null],
];

describe('value rules: each bad value alone is 422 naming its field', () => {
  for (const [field, value] of BAD) {
    const label = typeof value === 'string' && value.length > 20 ? `${value.slice(0, 12)}...(${[...value].length})` : JSON.stringify(value);
    it(`${field} = ${label}`, async () => {
      expect422(await putTicket(who, guid, { [field]: value }), [field]);
    });
  }

  it('none of the refused PUTs changed the ticket', async () => {
    // Makes them itself (again), so that it checks the same in any order.
    for (const [field, value] of BAD) await putTicket(who, guid, { [field]: value });
    expect(await readTicket(who, guid)).toEqual(snapshot);
  });
});

describe('value rules: boundary values are accepted and read back', () => {
  /** Its own ticket: the refused PUTs above must find theirs unchanged whatever runs first. */
  let guid: string;
  beforeAll(async () => {
    guid = (await createTicket(who, eventGuid, { name: 'Accepted', vat_percentage: 21 })).guid;
  });

  for (const [field, value, readBack] of GOOD) {
    const label = typeof value === 'string' && value.length > 20 ? `${value.slice(0, 12)}...(${[...value].length})` : JSON.stringify(value);
    it(`${field} = ${label}`, async () => {
      const updated = await updateTicket(who, guid, { [field]: value });
      expect(updated[field]).toEqual(readBack);
      expect((await readTicket(who, guid))[field]).toEqual(readBack);
    });
  }
});

describe('decimals are exact JSON numbers', () => {
  it('9.99 stays 9.99 in the raw JSON, in every decimal field', async () => {
    const t = await createTicket(who, eventGuid, { name: 'Decimals', vat_percentage: 9.99 });
    const res = await putTicket(who, t.guid, { min_price: 9.99, percentage_service_costs_in_ticket: 9.99 });
    expect(res.status, res.text).toBe(200);
    for (const field of ['min_price', 'vat_percentage', 'percentage_service_costs_in_ticket']) {
      expect(res.text).toMatch(new RegExp(`"${field}":\\s*9\\.99[,}\\s]`));
    }
    const read = await readTicket(who, t.guid);
    expect(read.min_price).toBe(9.99);
    expect(read.vat_percentage).toBe(9.99);
    expect(read.percentage_service_costs_in_ticket).toBe(9.99);
  });

  it('large amounts keep their cents', async () => {
    const t = await createTicket(who, eventGuid);
    const res = await putTicket(who, t.guid, { min_price: '1234567.89' });
    expect(res.status, res.text).toBe(200);
    expect(res.text).toMatch(/"min_price":\s*1234567\.89[,}\s]/);
  });
});

describe('cross-field rules', () => {
  it('min_orderable_amount_per_order <= max_orderable_amount_per_order, both sent', async () => {
    const t = await createTicket(who, eventGuid);
    const res = await putTicket(who, t.guid, { min_orderable_amount_per_order: 10, max_orderable_amount_per_order: 5 });
    expect(res.status).toBe(422);
    const fields = (res.body.errors as Array<{ field: string }>).map((e) => e.field);
    expect(fields.some((f) => f === 'min_orderable_amount_per_order' || f === 'max_orderable_amount_per_order'), res.text).toBe(true);
    expect(await updateTicket(who, t.guid, { min_orderable_amount_per_order: 5, max_orderable_amount_per_order: 5 })).toMatchObject({
      min_orderable_amount_per_order: 5,
      max_orderable_amount_per_order: 5,
    });
  });

  it('checked against the stored value of the other one', async () => {
    const t = await createTicket(who, eventGuid);
    // stored max is 20
    expect422(await putTicket(who, t.guid, { min_orderable_amount_per_order: 21 }), ['min_orderable_amount_per_order']);
    await updateTicket(who, t.guid, { min_orderable_amount_per_order: 4 });
    expect422(await putTicket(who, t.guid, { max_orderable_amount_per_order: 3 }), ['max_orderable_amount_per_order']);
    expect((await updateTicket(who, t.guid, { max_orderable_amount_per_order: 4 })).max_orderable_amount_per_order).toBe(4);
  });

  it('available_from < available_until, both sent or one against the stored other', async () => {
    const t = await createTicket(who, eventGuid);
    const both = await putTicket(who, t.guid, { available_from: '2030-02-01T00:00:00Z', available_until: '2030-01-01T00:00:00Z' });
    expect(both.status).toBe(422);
    const fields = (both.body.errors as Array<{ field: string }>).map((e) => e.field);
    expect(fields.some((f) => f === 'available_from' || f === 'available_until'), both.text).toBe(true);
    const equal = await putTicket(who, t.guid, { available_from: '2030-01-01T00:00:00Z', available_until: '2030-01-01T02:00:00+02:00' });
    expect(equal.status, 'equal instants are not from < until').toBe(422);
    await updateTicket(who, t.guid, { available_from: '2030-01-01T00:00:00Z', available_until: '2030-06-01T00:00:00Z' });
    expect422(await putTicket(who, t.guid, { available_until: '2029-12-31T23:59:59Z' }), ['available_until']);
    expect422(await putTicket(who, t.guid, { available_from: '2030-06-01T00:00:00Z' }), ['available_from']);
    expect((await updateTicket(who, t.guid, { available_from: null, available_until: '2029-01-01T00:00:00Z' })).available_until).toBe('2029-01-01T00:00:00+00:00');
  });
});

describe('every bad field at once', () => {
  it('one 422 lists every bad field, unknown and server-managed ones included', async () => {
    const t = await createTicket(who, eventGuid);
    const before = await readTicket(who, t.guid);
    const res = await putTicket(who, t.guid, {
      name: '',
      vat_percentage: 101,
      min_price: -5,
      increment: 0,
      barcode_type: 'qr',
      status_overrule: 'never',
      available_stock: 1.5,
      available_from: 'not a date',
      swappable: 'perhaps',
      class: long(300),
      sold_count: 99,
      mystery: true,
      description: 'valid, but must not land',
    });
    expect422(res, [
      'name',
      'vat_percentage',
      'min_price',
      'increment',
      'barcode_type',
      'status_overrule',
      'available_stock',
      'available_from',
      'swappable',
      'class',
      'sold_count',
      'mystery',
    ]);
    expect(await readTicket(who, t.guid)).toEqual(before);
  });

  it('at creation too', async () => {
    const res = await request(`${stack.baseUrl}/event/${eventGuid}/ticket`, {
      method: 'POST',
      headers: h(who),
      json: { vat_percentage: 'x', increment: -1, barcode_type: 'qr', unknown_key: 1 },
    });
    expect422(res, ['name', 'vat_percentage', 'increment', 'barcode_type', 'unknown_key']);
  });
});

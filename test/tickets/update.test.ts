/**
 * PUT /ticket/:guid semantics: partial updates, updated_at, server-managed fields sent back,
 * ignored and unknown fields, swappable, form-body coercions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestStack } from '../support/stack.js';
import {
  ALL_FIELDS,
  NIL_LIKE_GUID,
  createEvent,
  createTicket,
  expect422,
  expectProblem,
  getTicket,
  h,
  keysOf,
  putTicket,
  putTicketForm,
  readTicket,
  request,
  sorted,
  startSuite,
  updateTicket,
  type Who,
} from './helpers.js';

let stack: TestStack;
let who: Who;
let eventGuid: string;

beforeAll(async () => {
  ({ stack, who, eventGuid } = await startSuite({ event: { name: 'Update event' } }));
});

afterAll(() => stack?.stop());

const WRITABLE_CHANGES: Record<string, unknown> = {
  name: 'Changed name',
  description: 'Changed description',
  min_price: 12.5,
  vat_percentage: 9,
  late_personalization: true,
  status_overrule: 'unavailable',
  barcode_type: 'predefined',
  class: 'VIP',
  available_stock: 100,
  increment: 2,
  available_from: '2030-01-01T10:00:00+00:00',
  available_until: '2030-12-31T10:00:00+00:00',
  availability_margin: 3,
  min_orderable_amount_per_order: 2,
  max_orderable_amount_per_order: 10,
  percentage_service_costs_in_ticket: 2.5,
  seats_category_key: 'balcony-1',
  available_in_cashr: true,
  hide_without_coupon: true,
  combines_products: false,
  swappable: false,
  seated: true,
  include_service_cost_in_price: true,
};

describe('partial update', () => {
  it('fields not in the payload stay unchanged', async () => {
    const t = await createTicket(who, eventGuid, { name: 'Partial', vat_percentage: 21 });
    const before = await updateTicket(who, t.guid, { description: 'first', available_stock: 7, class: 'A' });
    const after = await updateTicket(who, t.guid, { class: 'B' });
    for (const field of ALL_FIELDS) {
      if (field === 'class' || field === 'updated_at') continue;
      expect(after[field], field).toEqual(before[field]);
    }
    expect(after.class).toBe('B');
    expect(await readTicket(who, t.guid)).toEqual(after);
  });

  it('every writable field can be changed, each one alone, and the change reads back', async () => {
    const t = await createTicket(who, eventGuid, { name: 'Each field', vat_percentage: 21 });
    let previous = await readTicket(who, t.guid);
    for (const [field, value] of Object.entries(WRITABLE_CHANGES)) {
      const updated = await updateTicket(who, t.guid, { [field]: value });
      expect(updated[field], field).toEqual(value);
      for (const other of ALL_FIELDS) {
        if (other === field || other === 'updated_at' || other === 'status') continue;
        expect(updated[other], `${other} after changing ${field}`).toEqual(previous[other]);
      }
      previous = updated;
    }
    const read = await readTicket(who, t.guid);
    for (const [field, value] of Object.entries(WRITABLE_CHANGES)) expect(read[field], field).toEqual(value);
  });

  it('an empty payload changes nothing but is accepted', async () => {
    const t = await createTicket(who, eventGuid);
    const before = await readTicket(who, t.guid);
    const after = await updateTicket(who, t.guid, {});
    for (const field of ALL_FIELDS) if (field !== 'updated_at') expect(after[field], field).toEqual(before[field]);
  });

  it('updated_at: the first update shows a change; quick updates never move it back nor more than 1 s ahead of the clock; the ETag changes every time', async () => {
    const creation = await request(`${stack.baseUrl}/event/${eventGuid}/ticket`, { method: 'POST', headers: h(who), json: { name: 'Ticket', vat_percentage: 21 } });
    expect(creation.status, creation.text).toBe(201);
    const t = creation.body;
    const etags = [creation.headers.get('etag')];
    const first = await putTicket(who, t.guid, { description: 'first' });
    expect(first.status, first.text).toBe(200);
    expect(Date.parse(first.body.updated_at)).toBeGreaterThan(Date.parse(t.created_at));
    etags.push(first.headers.get('etag'));
    let previous = first.body.updated_at as string;
    for (let i = 0; i < 20; i++) {
      const res = await putTicket(who, t.guid, { description: `quick ${i}` });
      const wallAfter = Date.now();
      expect(res.status, res.text).toBe(200);
      const stamp = res.body.updated_at as string;
      expect(Date.parse(stamp), `update ${i}: ${stamp} after ${previous}`).toBeGreaterThanOrEqual(Date.parse(previous));
      // at most 1 s ahead of the clock, at the second precision of the response
      expect(Date.parse(stamp), `update ${i}: ${stamp} vs clock ${new Date(wallAfter).toISOString()}`).toBeLessThanOrEqual(Math.floor(wallAfter / 1000) * 1000 + 1000);
      expect(res.headers.get('etag'), `update ${i}`).not.toBe(etags[etags.length - 1]);
      etags.push(res.headers.get('etag'));
      previous = stamp;
    }
    const wallAfter = Date.now();
    expect(new Set(etags).size, etags.join(' ')).toBe(22);
    const read = await getTicket(who, t.guid);
    expect(read.body.updated_at).toBe(previous);
    expect(read.headers.get('etag')).toBe(etags[etags.length - 1]);
    expect(Date.parse(read.body.updated_at)).toBeLessThanOrEqual(Math.floor(wallAfter / 1000) * 1000 + 1000);
    expect(read.body.created_at).toBe(t.created_at);
  });

  it('a PUT of an unknown or malformed ticket GUID is 404', async () => {
    expectProblem(await putTicket(who, NIL_LIKE_GUID, { name: 'x' }), 404);
    expectProblem(await putTicket(who, 'nope', { name: 'x' }), 404);
  });
});

describe('server-managed, ignored and unknown fields', () => {
  it('PUT back the whole object just read works and changes nothing', async () => {
    const t = await createTicket(who, eventGuid, { name: 'Round trip', vat_percentage: 21 });
    await updateTicket(who, t.guid, { available_from: '2030-05-05T05:05:05+00:00', min_price: 9.99, description: 'd' });
    const read = await readTicket(who, t.guid);
    const back = await updateTicket(who, t.guid, read);
    for (const field of ALL_FIELDS) if (field !== 'updated_at') expect(back[field], field).toEqual(read[field]);
  });

  it('server-managed timestamps sent as the same instant with another offset are accepted', async () => {
    const t = await createTicket(who, eventGuid);
    const read = await readTicket(who, t.guid);
    const shifted = new Date(Date.parse(read.created_at) + 2 * 3600_000).toISOString().replace(/\.\d{3}Z$/, '+02:00');
    const res = await putTicket(who, t.guid, { created_at: shifted, guid: read.guid, company_id: read.company_id, event_id: read.event_id, deleted_at: null });
    expect(res.status, res.text).toBe(200);
    expect(res.body.created_at).toBe(read.created_at);
  });

  it('changing a server-managed field is 422 naming it, and nothing changes', async () => {
    const t = await createTicket(who, eventGuid);
    const other = await createTicket(who, await createEvent(who, { name: 'Other' }).then((e) => e.guid));
    const before = await readTicket(who, t.guid);
    const attempts: Record<string, unknown> = {
      guid: other.guid,
      company_id: '5c1a3f1e-2b3c-4d5e-8f90-a1b2c3d4e5f6',
      event_id: other.event_id,
      created_at: '2001-01-01T00:00:00+00:00',
      deleted_at: '2001-01-01T00:00:00+00:00',
      sold_count: 5,
      scanned_count: 1,
      reserved_count: 2,
      pending_count: 3,
    };
    for (const [field, value] of Object.entries(attempts)) {
      expect422(await putTicket(who, t.guid, { [field]: value, description: 'should not land' }), [field]);
    }
    const after = await readTicket(who, t.guid);
    expect(after).toEqual(before);
  });

  it('status and updated_at in a payload are ignored', async () => {
    const t = await createTicket(who, eventGuid);
    const res = await putTicket(who, t.guid, { status: 'available', updated_at: '2001-01-01T00:00:00+00:00', description: 'ignored fields' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.status).toBe('sold_out');
    expect(res.body.updated_at).not.toBe('2001-01-01T00:00:00+00:00');
    expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.parse('2020-01-01T00:00:00Z'));
    expect(res.body.description).toBe('ignored fields');
    const bogus = await putTicket(who, t.guid, { status: 'not-a-status' });
    expect(bogus.status, bogus.text).toBe(200);
    expect(bogus.body.status).toBe('sold_out');
  });

  it('an unknown field is 422 naming it, and nothing changes', async () => {
    const t = await createTicket(who, eventGuid);
    const before = await readTicket(who, t.guid);
    expect422(await putTicket(who, t.guid, { colour: 'blue', description: 'no' }), ['colour']);
    expect422(await putTicket(who, t.guid, { Name: 'case matters' }), ['Name']);
    expect(await readTicket(who, t.guid)).toEqual(before);
  });

  it('swappable false sticks (the spec example notwithstanding), and can go back to true', async () => {
    const t = await createTicket(who, eventGuid);
    expect((await updateTicket(who, t.guid, { swappable: false })).swappable).toBe(false);
    expect((await readTicket(who, t.guid)).swappable).toBe(false);
    expect((await updateTicket(who, t.guid, { swappable: true })).swappable).toBe(true);
  });
});

describe('form bodies on PUT', () => {
  it('URL-encoded: "true"/"false"/"1"/"0" booleans, numeric strings, "" is null for nullable fields', async () => {
    const t = await createTicket(who, eventGuid);
    await updateTicket(who, t.guid, { description: 'to clear', min_price: 5, class: 'X', seats_category_key: 'k', available_from: '2030-01-01T00:00:00+00:00' });
    const res = await putTicketForm(
      who,
      t.guid,
      new URLSearchParams({
        late_personalization: 'true',
        swappable: '0',
        seated: '1',
        combines_products: 'false',
        available_stock: '42',
        vat_percentage: '9.5',
        min_price: '',
        description: '',
        class: '',
        seats_category_key: '',
        available_from: '',
      }),
    );
    expect(res.status, res.text).toBe(200);
    expect(keysOf(res.body)).toEqual(sorted(ALL_FIELDS));
    expect(res.body).toMatchObject({
      late_personalization: true,
      swappable: false,
      seated: true,
      combines_products: false,
      available_stock: 42,
      vat_percentage: 9.5,
      min_price: null,
      description: null,
      class: null,
      seats_category_key: null,
      available_from: null,
    });
  });

  it('multipart: same coercions', async () => {
    const t = await createTicket(who, eventGuid);
    await updateTicket(who, t.guid, { description: 'to clear' });
    const form = new FormData();
    form.set('hide_without_coupon', '1');
    form.set('include_service_cost_in_price', 'true');
    form.set('increment', '5');
    form.set('percentage_service_costs_in_ticket', '2.25');
    form.set('description', '');
    form.set('swappable', 'false');
    const res = await putTicketForm(who, t.guid, form);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      hide_without_coupon: true,
      include_service_cost_in_price: true,
      increment: 5,
      percentage_service_costs_in_ticket: 2.25,
      description: null,
      swappable: false,
    });
  });

  it('"" for a non-nullable field is a validation error naming it', async () => {
    const t = await createTicket(who, eventGuid);
    const res = await putTicketForm(who, t.guid, new URLSearchParams({ available_stock: '', swappable: '', name: '', vat_percentage: '' }));
    expect422(res, ['available_stock', 'swappable', 'name', 'vat_percentage']);
  });

  it('JSON also accepts the string forms of numbers and booleans', async () => {
    const t = await createTicket(who, eventGuid);
    const updated = await updateTicket(who, t.guid, { available_stock: '8', swappable: 'false', seated: '1', min_price: '3.10' });
    expect(updated).toMatchObject({ available_stock: 8, swappable: false, seated: true, min_price: 3.1 });
  });

  it('JSON null clears a nullable field', async () => {
    const t = await createTicket(who, eventGuid);
    await updateTicket(who, t.guid, { description: 'x', min_price: 1, class: 'c', available_until: '2031-01-01T00:00:00Z' });
    const cleared = await updateTicket(who, t.guid, { description: null, min_price: null, class: null, available_until: null });
    expect(cleared).toMatchObject({ description: null, min_price: null, class: null, available_until: null });
  });
});

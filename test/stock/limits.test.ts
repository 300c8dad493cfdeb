/**
 * The limits of PRODUCT.md 12 (issue 18 item 1): a reservation holds at most 1,000 units and a
 * ticket's max_orderable_amount_per_order is at most 1,000; both refused with 422 at the
 * request that asks for more, over REST and gRPC.
 */
import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { readErrorDetails } from '../../lib/grpc/errors.js';
import { request } from '../support/http.js';
import { expectInvariant, grpcCall, grpcFailure, meta, newEvent, newTicket, reservationSuiteOfFile, reserve } from '../support/stock.js';
import { h } from '../support/api.js';

const suite = reservationSuiteOfFile();

const fieldsOf = (body: any): string[] => (body.errors ?? []).map((e: { field: string }) => e.field);

/** A ticket as it could be made before the limit: its max per order raised in the database. */
async function legacyTicket(maxPerOrder: number, stock: number): Promise<string> {
  const { guid } = await newTicket(suite.who, { available_stock: stock });
  await suite.db('tickets').where('guid', guid).update({ max_orderable_amount_per_order: maxPerOrder });
  return guid;
}

describe('max_orderable_amount_per_order is at most 1,000', () => {
  it('creation with 1,001 is a 422 naming the field; 1,000 is accepted', async () => {
    const event = await newEvent(suite.who);
    const create = (max: number) =>
      request(`${suite.stack.baseUrl}/event/${event}/ticket`, {
        method: 'POST',
        headers: h(suite.who),
        json: { name: 'Big', vat_percentage: 21, available_stock: 5000, max_orderable_amount_per_order: max },
      });
    const refused = await create(1001);
    expect(refused.status, refused.text).toBe(422);
    expect(fieldsOf(refused.body)).toEqual(['max_orderable_amount_per_order']);
    expect(refused.body.errors[0].message).toBe('must be a whole number from 0 to 1000');
    const accepted = await create(1000);
    expect(accepted.status, accepted.text).toBe(201);
  });

  it('an update to 2,147,483,647 is a 422 naming the field and changes nothing', async () => {
    const { guid } = await newTicket(suite.who, { available_stock: 10 });
    const res = await request(`${suite.stack.baseUrl}/ticket/${guid}`, { method: 'PUT', headers: h(suite.who), json: { max_orderable_amount_per_order: 2_147_483_647 } });
    expect(res.status, res.text).toBe(422);
    expect(fieldsOf(res.body)).toEqual(['max_orderable_amount_per_order']);
    const read = await request(`${suite.stack.baseUrl}/ticket/${guid}`, { headers: h(suite.who) });
    expect(read.body.max_orderable_amount_per_order).toBe(20);
  });
});

describe('a reservation holds at most 1,000 units', () => {
  it('REST: 1,001 of a ticket allowing more (set before the limit) is a 422 naming amount; 1,000 is taken', async () => {
    const guid = await legacyTicket(240_000, 240_000);
    const refused = await reserve(suite.who, guid, { amount: 1001 });
    expect(refused.status, refused.text).toBe(422);
    expect(fieldsOf(refused.body)).toEqual(['amount']);
    expect(refused.body.errors[0].message).toBe('must be from 1 to 1000');
    const big = await reserve(suite.who, guid, { amount: 240_000 });
    expect(big.status, big.text).toBe(422);
    expect(fieldsOf(big.body)).toEqual(['amount']);
    const taken = await reserve(suite.who, guid, { amount: 1000 });
    expect(taken.status, taken.text).toBe(201);
    expect(await expectInvariant(suite.who, suite.db, guid)).toEqual({ sold: 0, reserved: 1000, pending: 0 });
  });

  it('gRPC: 1,001 is INVALID_ARGUMENT naming amount, nothing taken', async () => {
    const guid = await legacyTicket(5000, 5000);
    const err = await grpcFailure(grpcCall(suite.client.reserveTicket.bind(suite.client), { ticket_id: guid, amount: 1001, request_id: '' }, meta(suite.who.token)));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(readErrorDetails(err).fieldViolations?.map((v) => v.field)).toEqual(['amount']);
    expect(await expectInvariant(suite.who, suite.db, guid)).toEqual({ sold: 0, reserved: 0, pending: 0 });
  });
});

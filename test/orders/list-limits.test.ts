/**
 * A list past its limit is refused before it is walked, at the gateway (from the tables'
 * maxItems) and in the service: lines, holders, barcodes.
 */
import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { readErrorDetails } from '../../lib/grpc/errors.js';
import { grpcCall, grpcFailure, meta, newEvent, newTicket } from '../support/stock.js';
import { createOrderRest, orderMoveRest, orderSuiteOfFile } from './helpers.js';

const suite = orderSuiteOfFile();
const fields = (res: { body: { errors?: Array<{ field: string }> } }) => res.body.errors?.map((e) => e.field);

describe('lists past their limits', { timeout: 60_000 }, () => {
  it('REST: 5,000 lines, 5,000 holders or 5,000 barcodes are one 422 naming the list, nothing taken or confirmed', async () => {
    const event = await newEvent(suite.who);
    const { guid } = await newTicket(suite.who, { available_stock: 10 }, event);
    const lines = Array.from({ length: 5_000 }, () => ({ ticket_id: guid, amount: 1 }));
    const many = await createOrderRest(suite.who, event, { lines });
    expect(many.status).toBe(422);
    expect(fields(many)).toEqual(['lines']);
    const order = await createOrderRest(suite.who, event, { lines: [{ ticket_id: guid, amount: 1 }] });
    const holders = Array.from({ length: 5_000 }, () => ({ name: 'Ada', email: 'ada@example.com' }));
    const tooManyHolders = await orderMoveRest(suite.who, order.body.guid, 'confirm', { lines: [{ ticket_id: guid, holders }] });
    expect(fields(tooManyHolders)).toEqual(['lines[0].holders']);
    const barcodes = Array.from({ length: 5_000 }, (_, i) => `CODE-${i}`);
    const tooManyCodes = await orderMoveRest(suite.who, order.body.guid, 'confirm', { lines: [{ ticket_id: guid, barcodes }] });
    expect(fields(tooManyCodes)).toEqual(['lines[0].barcodes']);
    const stillReserved = await orderMoveRest(suite.who, order.body.guid, 'pending');
    expect(stillReserved.body.state).toBe('pending');
  });

  it('gRPC: a confirmation of 50,000 lines is INVALID_ARGUMENT naming lines, nothing confirmed', async () => {
    const event = await newEvent(suite.who);
    const { guid } = await newTicket(suite.who, { available_stock: 10 }, event);
    const order = await suite.orders.create(event, [{ ticket_id: guid, amount: 1 }]);
    const lines = Array.from({ length: 50_000 }, () => ({ ticket_id: guid, barcodes: [], holders: [] }));
    const err = await grpcFailure(grpcCall(suite.client.confirmOrder.bind(suite.client), { guid: order.guid, lines }, meta(suite.who.token)));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(readErrorDetails(err).fieldViolations?.map((v) => v.field)).toEqual(['lines']);
    expect((await suite.orders.get(order.guid)).state).toBe(order.state);
  });
});

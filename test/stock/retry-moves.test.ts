/**
 * Retries are always safe: every POST move (pending, confirm, release, scan, and an order's)
 * takes an Idempotency-Key (request_id over gRPC); the same key and body answers the first
 * answer and moves nothing again, another body with the key is refused.
 */
import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { readErrorDetails } from '../../lib/grpc/errors.js';
import { orderClient, ordersOf } from '../orders/helpers.js';
import { request } from '../support/http.js';
import { expectConflict, expectInvariant, grpcCall, grpcFailure, meta, newEvent, newTicket, reservationSuiteOfFile, reserve } from '../support/stock.js';
import { h } from '../support/api.js';

const suite = reservationSuiteOfFile();

const post = (path: string, key: string | undefined, body?: unknown) =>
  request(`${suite.stack.baseUrl}${path}`, { method: 'POST', headers: h(suite.who, key ? { 'Idempotency-Key': key } : {}), ...(body ? { json: body } : {}) });

describe('retrying a move with its Idempotency-Key', { timeout: 60_000 }, () => {
  it('confirm: the same key answers the first answer (the same barcodes), sold once; without it 409; another body with it 422 naming Idempotency-Key', async () => {
    const { guid, eventGuid } = await newTicket(suite.who, { available_stock: 10 });
    const reservation = (await reserve(suite.who, guid, { amount: 2 })).body;
    const key = randomUUID();
    const first = await post(`/reservation/${reservation.guid}/confirm`, key);
    expect(first.status, first.text).toBe(200);
    const again = await post(`/reservation/${reservation.guid}/confirm`, key);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expectConflict(await post(`/reservation/${reservation.guid}/confirm`, undefined), 'invalid_transition');
    const other = await post(`/reservation/${reservation.guid}/confirm`, key, { barcodes: ['SEAT-0001', 'SEAT-0002'] });
    expect(other.status).toBe(422);
    expect(other.body.errors.map((e: { field: string }) => e.field)).toEqual(['Idempotency-Key']);
    expect(await expectInvariant(suite.who, suite.db, guid)).toEqual({ sold: 2, reserved: 0, pending: 0 });

    const scanKey = randomUUID();
    const scan = await post(`/event/${eventGuid}/scans`, scanKey, { barcode: first.body.barcodes[0] });
    expect(scan.status, scan.text).toBe(201);
    const rescan = await post(`/event/${eventGuid}/scans`, scanKey, { barcode: first.body.barcodes[0] });
    expect(rescan.status).toBe(201);
    expect(rescan.body).toEqual(scan.body);
    expectConflict(await post(`/event/${eventGuid}/scans`, undefined, { barcode: first.body.barcodes[0] }), 'already_scanned');
    const counted = (await request(`${suite.stack.baseUrl}/ticket/${guid}`, { headers: h(suite.who) })).body;
    expect(counted.scanned_count).toBe(1);
  });

  it('pending and release: a retry answers the first answer; the stock is returned once', async () => {
    const { guid } = await newTicket(suite.who, { available_stock: 10 });
    const reservation = (await reserve(suite.who, guid, { amount: 3 })).body;
    const pendingKey = randomUUID();
    const pending = await post(`/reservation/${reservation.guid}/pending`, pendingKey, { ttl_seconds: 600 });
    expect(pending.status, pending.text).toBe(200);
    expect((await post(`/reservation/${reservation.guid}/pending`, pendingKey, { ttl_seconds: 600 })).body).toEqual(pending.body);
    const releaseKey = randomUUID();
    const released = await post(`/reservation/${reservation.guid}/release`, releaseKey);
    expect(released.body.state).toBe('released');
    expect((await post(`/reservation/${reservation.guid}/release`, releaseKey)).body).toEqual(released.body);
    expect(await expectInvariant(suite.who, suite.db, guid)).toEqual({ sold: 0, reserved: 0, pending: 0 });
  });

  it('an order over gRPC: the same request_id confirms once; reused for another request it is INVALID_ARGUMENT naming request_id', async () => {
    const event = await newEvent(suite.who);
    const { guid } = await newTicket(suite.who, { available_stock: 10 }, event);
    const client = orderClient(suite.stack);
    try {
      const orders = ordersOf(client, suite.who);
      const order = await orders.create(event, [{ ticket_id: guid, amount: 2 }]);
      const request_id = randomUUID();
      const confirm = (expected_total?: string) => grpcCall(client.confirmOrder.bind(client), { guid: order.guid, lines: [], request_id, expected_total }, meta(suite.who.token));
      const first = await confirm();
      expect(await confirm()).toEqual(first);
      const reused = await grpcFailure(confirm('0.00'));
      expect(reused.code).toBe(status.INVALID_ARGUMENT);
      expect(readErrorDetails(reused).fieldViolations?.map((v) => v.field)).toEqual(['request_id']);
      expect(await expectInvariant(suite.who, suite.db, guid)).toEqual({ sold: 2, reserved: 0, pending: 0 });
    } finally {
      client.close();
    }
  });
});

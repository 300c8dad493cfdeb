/**
 * PRODUCT.md 12 "Holders": a scan answers, besides section 9's fields, `order_id` (the order's
 * guid, or a reservation's own when it was sold as one) and `holder` (or null), so the door can
 * check a name; the ticket.scanned webhook carries the same object.
 */
import { describe, expect, it } from 'vitest';
import { SCAN_FIELDS } from '../../lib/fields/reservation.js';
import { grpcCall, grpcClient, meta, moveRest, newEvent, newTicket, reserve, scanRest } from '../support/stock.js';
import { createOrderRest, orderMoveRest, orderSuiteOfFile } from './helpers.js';

const suite = orderSuiteOfFile();

const ADA = { name: 'Ada Lovelace', email: 'ada@example.com' };

async function scannedEvent(code: string): Promise<unknown> {
  const row = (await suite.db('webhook_events').where('type', 'ticket.scanned').whereRaw('data like ?', [`%${code}%`]).first('data')) as { data: string } | undefined;
  return row && JSON.parse(row.data);
}

describe('the scan answer names the order and the holder', { timeout: 60_000 }, () => {
  it('an order\'s barcode: order_id is the order, holder as named (REST), null when none; the webhook data is the answer', async () => {
    const event = await newEvent(suite.who);
    const { guid } = await newTicket(suite.who, { available_stock: 10 }, event);
    const created = await createOrderRest(suite.who, event, { lines: [{ ticket_id: guid, amount: 2 }] });
    const confirmed = await orderMoveRest(suite.who, created.body.guid, 'confirm', { lines: [{ ticket_id: guid, holders: [ADA] }] });
    const [named, unnamed] = confirmed.body.lines[0].barcodes.map((b: any) => b.code as string);
    const line = (await suite.db('reservations').where('order_id', created.body.guid).first('guid')) as { guid: string };

    const first = await scanRest(suite.who, event, named!);
    expect(first.status, first.text).toBe(201);
    expect(Object.keys(first.body)).toEqual(Object.keys(SCAN_FIELDS));
    expect(first.body).toMatchObject({ barcode: named, ticket_id: guid, reservation_id: line.guid, order_id: created.body.guid, holder: ADA });
    expect(await scannedEvent(named!)).toEqual(first.body);

    const second = await scanRest(suite.who, event, unnamed!);
    expect(second.body).toMatchObject({ order_id: created.body.guid, holder: null });
  });

  it('a reservation\'s barcode (gRPC): order_id is the reservation\'s own guid, holder unset', async () => {
    const { guid, eventGuid } = await newTicket(suite.who, { available_stock: 10 });
    const reserved = await reserve(suite.who, guid, { amount: 1 });
    const confirmed = await moveRest(suite.who, reserved.body.guid, 'confirm');
    const code = confirmed.body.barcodes[0] as string;
    const client = grpcClient(suite.stack);
    try {
      const scan = await grpcCall(client.scanBarcode.bind(client), { event_id: eventGuid, barcode: code }, meta(suite.who.token));
      expect(scan).toMatchObject({ barcode: code, reservation_id: reserved.body.guid, order_id: reserved.body.guid });
      expect(scan.holder).toBeUndefined();
      expect(await scannedEvent(code)).toMatchObject({ order_id: reserved.body.guid, holder: null });
    } finally {
      client.close();
    }
  });
});

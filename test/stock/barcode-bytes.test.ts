/**
 * A barcode is matched byte for byte on both backends (issue 18 item 3): a scan of "ABCD "
 * does not admit "ABCD" (MySQL's PAD SPACE collations compared them equal), and predefined
 * codes with a leading or trailing space are refused at confirm.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../support/http.js';
import { moveRest, newTicket, reserve, scanRest, startStockSuite, type StockSuite } from '../support/stock.js';
import { h, type Who } from '../support/api.js';

let suite: StockSuite;
let who: Who;
let db: Knex;

beforeAll(async () => {
  suite = await startStockSuite();
  ({ who, db } = suite);
});

afterAll(async () => {
  await suite?.stop();
});

describe('barcodes byte for byte', () => {
  it('a scan finds only the exact code: trailing or leading space and another case are not found', async () => {
    const { guid, eventGuid } = await newTicket(who, { available_stock: 5, barcode_type: 'predefined' });
    const r = (await reserve(who, guid, { amount: 1 })).body;
    expect((await moveRest(who, r.guid, 'confirm', { barcodes: ['GATE-0001'] })).status).toBe(200);
    const generated = await newTicket(who, { available_stock: 5 }, eventGuid);
    const g = (await reserve(who, generated.guid, { amount: 1 })).body;
    const [code] = (await moveRest(who, g.guid, 'confirm')).body.barcodes as string[];

    for (const near of ['GATE-0001 ', 'GATE-0001  ', ' GATE-0001', 'gate-0001', `${code} `, `${code!.toLowerCase()}`]) {
      const res = await scanRest(who, eventGuid, near);
      expect(res.status, `${JSON.stringify(near)}: ${res.text}`).toBe(404);
    }
    expect((await scanRest(who, eventGuid, 'GATE-0001')).status).toBe(201);
    expect((await scanRest(who, eventGuid, code!)).status).toBe(201);
  });

  it('predefined codes with a leading or trailing space (or any blank) are refused at confirm with 422; nothing is sold', async () => {
    const { guid } = await newTicket(who, { available_stock: 5, barcode_type: 'predefined' });
    const r = (await reserve(who, guid, { amount: 2 })).body;
    for (const codes of [['ABCD-1 ', 'ABCD-2'], [' ABCD-1', 'ABCD-2'], ['ABCD-1', 'ABCD-2\t'], ['ABCD 1', 'ABCD-2']]) {
      const res = await moveRest(who, r.guid, 'confirm', { barcodes: codes });
      expect(res.status, res.text).toBe(422);
      expect(res.body.errors, res.text).toEqual([{ field: 'barcodes', message: expect.stringMatching(/without spaces/) }]);
    }
    const read = await request(`${who.stack.baseUrl}/reservation/${r.guid}`, { headers: h(who) });
    expect(read.body).toMatchObject({ state: 'reserved', barcodes: [] });
  });

  it('the unique index of the event: "ABCD", "ABCD " and "abcd" are three codes; "ABCD" twice is one', async () => {
    const eventId = randomUUID();
    const row = (barcode: string) => ({
      company_id: randomUUID(),
      event_id: eventId,
      ticket_id: randomUUID(),
      reservation_id: randomUUID(),
      barcode,
      created_at: '2026-11-27 10:00:00.000',
    });
    for (const barcode of ['ABCD', 'ABCD ', 'abcd']) await db('barcodes').insert(row(barcode));
    await expect(db('barcodes').insert(row('ABCD'))).rejects.toThrow(/unique|duplicate/i);
    const stored = (await db('barcodes').where('event_id', eventId).where('barcode', 'ABCD ').select('barcode')) as Array<{ barcode: string }>;
    expect(stored.map((s) => s.barcode)).toEqual(['ABCD ']);
    await db('barcodes').where('event_id', eventId).delete();
  });
});

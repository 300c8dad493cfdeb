/**
 * A page of an event's orders stays within the transport's limits whatever its orders hold:
 * pages are cut by the bytes their orders carry (holders included), not by a barcode count.
 */
import { describe, expect, it } from 'vitest';
import { MAX_UNITS_PER_ORDER } from '../../lib/fields/reservation.js';
import { request, type JsonResponse } from '../support/http.js';
import { newEvent, newTicket } from '../support/stock.js';
import { h } from '../support/api.js';
import { createOrderRest, orderMoveRest, orderSuiteOfFile } from './helpers.js';

const suite = orderSuiteOfFile();

/** The longest legal holder: a 200-character name of 2-byte characters, a 254-character address. */
const HOLDER = { name: 'é'.repeat(200), email: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com` };

describe('pages of large orders', { timeout: 180_000 }, () => {
  it('seven orders of 1,000 barcodes with the longest holders (about 5 MB): every page and the whole list answer, nothing lost', async () => {
    expect(HOLDER.email).toHaveLength(254);
    const event = await newEvent(suite.who);
    const { guid } = await newTicket(suite.who, { available_stock: 7 * MAX_UNITS_PER_ORDER, max_orderable_amount_per_order: MAX_UNITS_PER_ORDER, late_personalization: true }, event);
    const sold: string[] = [];
    for (let i = 0; i < 7; i++) {
      const created = await createOrderRest(suite.who, event, { lines: [{ ticket_id: guid, amount: MAX_UNITS_PER_ORDER }] });
      expect(created.status, created.text).toBe(201);
      const confirmed = await orderMoveRest(suite.who, created.body.guid, 'confirm', { lines: [{ ticket_id: guid, holders: Array(MAX_UNITS_PER_ORDER).fill(HOLDER) }] });
      expect(confirmed.status, confirmed.text.slice(0, 300)).toBe(200);
      sold.push(created.body.guid);
    }
    const seen: string[] = [];
    let next: string | undefined = `/event/${event}/orders?limit=1000`;
    while (next) {
      const page: JsonResponse = await request(`${suite.stack.baseUrl}${next}`, { headers: h(suite.who) });
      expect(page.status, page.text.slice(0, 300)).toBe(200);
      expect(page.body.length).toBeGreaterThan(0);
      for (const order of page.body) expect(order.lines[0].barcodes[MAX_UNITS_PER_ORDER - 1].holder).toEqual(HOLDER);
      seen.push(...page.body.map((order: { guid: string }) => order.guid));
      const link: string | null = page.headers.get('link');
      next = link ? /<([^>]+)>/.exec(link)![1] : undefined;
    }
    expect(seen).toEqual(sold);
    const whole = await request(`${suite.stack.baseUrl}/event/${event}/orders`, { headers: h(suite.who) });
    expect(whole.status).toBe(200);
    expect(whole.body.map((order: { guid: string }) => order.guid)).toEqual(sold);
  });
});

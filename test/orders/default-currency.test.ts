/** DEFAULT_CURRENCY (docs/configuration.md): the currency of an event created without one. */
import { describe, expect, it } from 'vitest';
import { request } from '../support/http.js';
import { suiteOfFile } from '../support/suite.js';
import { newTicket, startStockSuite } from '../support/stock.js';
import { h } from '../support/api.js';

const suite = suiteOfFile(() => startStockSuite({ DEFAULT_CURRENCY: 'JPY' }));

describe('DEFAULT_CURRENCY', () => {
  it('is the currency of an event created without one; one sent wins; a JPY ticket takes whole prices only', async () => {
    const create = (json: Record<string, unknown>) => request(`${suite.stack.baseUrl}/event`, { method: 'POST', headers: h(suite.who), json });
    const plain = await create({ name: 'Tokyo' });
    expect(plain.body.currency).toBe('JPY');
    expect((await create({ name: 'Paris', currency: 'EUR' })).body.currency).toBe('EUR');
    const res = await request(`${suite.stack.baseUrl}/event/${plain.body.guid}/ticket`, { method: 'POST', headers: h(suite.who), json: { name: 'x', vat_percentage: 10, min_price: 9.99 } });
    expect(res.status).toBe(422);
    expect((await newTicket(suite.who, { min_price: 1500, vat_percentage: 10 }, plain.body.guid)).guid).toBeTruthy();
  });
});

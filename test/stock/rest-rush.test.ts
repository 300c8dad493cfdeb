/**
 * The rush over REST (PRODUCT.md 9): no oversell with 200 concurrent buyers through the
 * gateway, mixed amounts with releases and expiries racing, and concurrent scans of one
 * barcode admitting exactly one.
 */
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectConflict, expectInvariant, moveRest, newTicket, reserve, reservePatiently, restPatiently, scanRest, startStockSuite, type StockSuite } from '../support/stock.js';
import { readTicket, type Who } from '../support/api.js';

let suite: StockSuite;
let who: Who;
let db: Knex;

beforeAll(async () => {
  // The gateway waits for the ticket service as long as the gRPC suites' clients do (grpcCall, 30 s):
  // on a loaded machine a move can wait in a rush's queue past the default 5 s, answered 504, and
  // a scan or a move retried after a 504 may be its own second attempt. Not what this suite tests.
  suite = await startStockSuite({ GRPC_DEADLINE_MS: '30000' });
  ({ who, db } = suite);
});

afterAll(async () => {
  await suite?.stop();
});

// Hundreds of concurrent moves: slow on a loaded 2-core machine, so a longer limit than the default.
describe('the rush over REST', { timeout: 120_000 }, () => {
  it('200 concurrent reservations of 1 against 50 in stock: exactly 50 201s and 150 409 insufficient_stock', async () => {
    const { guid } = await newTicket(who, { available_stock: 50 });
    const results = await Promise.all(Array.from({ length: 200 }, () => reservePatiently(who, guid, { amount: 1 })));
    const created = results.filter((res) => res.status === 201);
    const refused = results.filter((res) => res.status !== 201);
    expect(created).toHaveLength(50);
    expect(refused).toHaveLength(150);
    for (const res of refused) expectConflict(res, 'insufficient_stock');
    expect(await expectInvariant(who, db, guid)).toEqual({ sold: 0, reserved: 50, pending: 0 });
    expect((await readTicket(who, guid)).status).toBe('sold_out');
  });

  it('mixed amounts with confirms, releases and 1-second expiries racing', async () => {
    const stock = 30;
    const { guid } = await newTicket(who, { available_stock: stock });
    let sold = 0;
    const buyer = async (i: number) => {
      const amount = 1 + (i % 4);
      const expiring = i % 4 === 0;
      const res = await reservePatiently(who, guid, { amount, ttl_seconds: expiring ? 1 : 60 });
      if (res.status !== 201) return expectConflict(res, 'insufficient_stock');
      if (expiring) return;
      const move = i % 3 === 0 ? 'release' : 'confirm';
      const moved = await restPatiently(() => moveRest(who, res.body.guid, move));
      expect(moved.status, moved.text).toBe(200);
      if (move === 'release') return;
      sold += amount;
    };
    await Promise.all(Array.from({ length: 100 }, (_, i) => buyer(i)));
    expect((await expectInvariant(who, db, guid)).sold).toBe(sold);
    // Past the 1-second reservations of the first wave: the stack's clock moves, no wait.
    suite.stack.clock.advance(1200);
    await Promise.all(Array.from({ length: 60 }, (_, i) => buyer(i + 2)));
    const after = await expectInvariant(who, db, guid);
    expect(after.sold).toBe(sold);
    expect(after.sold + after.reserved + after.pending).toBeLessThanOrEqual(stock);
  });

  it('20 concurrent scans of one barcode: exactly one 201, the rest 409 already_scanned; scanned_count 1', async () => {
    const { guid, eventGuid } = await newTicket(who, { available_stock: 5 });
    const r = (await reserve(who, guid, { amount: 2 })).body;
    const confirmed = (await moveRest(who, r.guid, 'confirm')).body;
    const results = await Promise.all(Array.from({ length: 20 }, () => restPatiently(() => scanRest(who, eventGuid, confirmed.barcodes[0]))));
    expect(results.filter((res) => res.status === 201)).toHaveLength(1);
    for (const res of results.filter((x) => x.status !== 201)) expectConflict(res, 'already_scanned');
    // the other barcode, scanned concurrently from two doors
    const both = await Promise.all([scanRest(who, eventGuid, confirmed.barcodes[1]), scanRest(who, eventGuid, confirmed.barcodes[1])]);
    expect(both.map((res) => res.status).sort()).toEqual([201, 409]);
    const ticket = await readTicket(who, guid);
    expect(ticket).toMatchObject({ sold_count: 2, scanned_count: 2 });
    await expectInvariant(who, db, guid);
  });
});

/**
 * Shedding load at the gateway (docs/scaling.md "Shedding load"; issue 22 item 5): while the
 * gateway's event loop runs SHED_NEW_SALES_LAG_MS late, a new reservation or order is refused
 * at once (503 problem, `code` server_busy, Retry-After) and nothing is reserved, while a
 * confirm, a release and a read go through; once the loop is on time again, the same sale is
 * served.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { EventLoopLag } from '../../lib/event-loop-lag.js';
import type { JsonResponse } from '../support/http.js';
import { suiteOfFile } from '../support/suite.js';
import { createOrderRest } from '../orders/helpers.js';
import { expectInvariant, moveRest, newTicket, reserve, reservePatiently, startStockSuite } from '../support/stock.js';
import { readTicket } from '../support/api.js';
import { expectProblem } from '../tickets/helpers.js';

const LAG_MS = 200;

/** Holds this process's event loop (the test's stack runs in it) for `ms`, as a flood of requests does. */
function holdLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

function expectServerBusy(res: JsonResponse): void {
  expectProblem(res, 503);
  expect(res.body.code).toBe('server_busy');
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
}

describe('EventLoopLag', () => {
  it('reads how long the loop was held, and forgets it once the loop runs on time again', async () => {
    const lag = new EventLoopLag();
    try {
      await sleep(150);
      holdLoop(3 * LAG_MS);
      expect(lag.ms()).toBeGreaterThanOrEqual(2 * LAG_MS);
      await sleep(10);
      expect(lag.ms(), 'still counted just after').toBeGreaterThanOrEqual(2 * LAG_MS);
      await sleep(1500);
      expect(lag.ms()).toBeLessThan(3 * LAG_MS);
    } finally {
      lag.stop();
    }
  });
});

describe('a gateway whose event loop runs late', () => {
  const suite = suiteOfFile(() => startStockSuite({ SHED_NEW_SALES_LAG_MS: String(LAG_MS) }));

  it('refuses new reservations and orders at once (503 server_busy + Retry-After, nothing reserved), never a confirm, a release or a read; serves the sale once on time', async () => {
    const { who, db } = suite;
    const { guid, eventGuid } = await newTicket(who, { available_stock: 10 });
    const [toConfirm, toRelease] = await Promise.all([reservePatiently(who, guid, { amount: 1 }), reservePatiently(who, guid, { amount: 2 })]);
    expect([toConfirm.status, toRelease.status]).toEqual([201, 201]);

    holdLoop(3 * LAG_MS);
    const retryKey = { 'Idempotency-Key': crypto.randomUUID() };
    const [reservation, order, confirmed, released, read] = await Promise.all([
      reserve(who, guid, { amount: 3 }, retryKey),
      createOrderRest(who, eventGuid, { lines: [{ ticket_id: guid, amount: 1 }] }),
      moveRest(who, toConfirm.body.guid as string, 'confirm'),
      moveRest(who, toRelease.body.guid as string, 'release'),
      readTicket(who, guid),
    ]);

    expectServerBusy(reservation);
    expectServerBusy(order);
    expect([confirmed.status, released.status], `${confirmed.text} ${released.text}`).toEqual([200, 200]);
    expect(read).toMatchObject({ available_stock: 10 });
    expect(await expectInvariant(who, db, guid)).toEqual({ sold: 1, reserved: 0, pending: 0 });

    // The same request (same Idempotency-Key), tried again once the loop is on time: served.
    let again = reservation;
    for (let attempt = 0; again.status === 503 && attempt < 50; attempt++) {
      await sleep(200);
      again = await reserve(who, guid, { amount: 3 }, retryKey);
    }
    expect(again.status, again.text).toBe(201);
    expect(await expectInvariant(who, db, guid)).toEqual({ sold: 1, reserved: 3, pending: 0 });
  });
});

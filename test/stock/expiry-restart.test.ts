/**
 * Expiry is kept in the database, not in memory: a reservation made before a restart
 * expires after it, and the background sweeper persists the expiry with no read at all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../../lib/clock.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import { startStack } from '../../services/stack.js';
import { request, signUpAndLogin } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/stack.js';
import { newTicket, reserve, ticketDatabase } from '../support/stock.js';
import { h, type Who } from '../support/api.js';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ STOCK_SWEEP_INTERVAL_MS: '3600000' });
});

afterAll(async () => stack?.stop());

describe('expiry across a restart', () => {
  it('the restarted service\'s sweeper expires a reservation made before the restart; its stock is reservable again', async () => {
    const who: Who = { stack, token: (await signUpAndLogin(stack)).accessToken };
    const { guid } = await newTicket(who, { available_stock: 3 });
    // A ttl the restart cannot outlive on a slow machine; the restarted stack's clock is moved past it.
    const reservation = (await reserve(who, guid, { amount: 3, ttl_seconds: 60 })).body;
    await stack.running.shutdown(2000);

    // The same databases and secrets; a sweeper every 200 ms, reading a clock the test moves.
    const clock = new TestClock();
    const restarted = await startStack(loadConfig({ ...stack.env, STOCK_SWEEP_INTERVAL_MS: '200' }), createLogger('restarted', 'silent'), { clock });
    const db = ticketDatabase(stack);
    try {
      const stored = async () => ({
        reserved: Number((await db('tickets').where('guid', guid).first('reserved_count')).reserved_count),
        state: (await db('reservations').where('guid', reservation.guid).first('state')).state as string,
      });
      expect(await stored()).toEqual({ reserved: 3, state: 'reserved' });
      clock.advanceTo(Date.parse(reservation.expires_at) + 1500);
      // The sweeper's next runs (every 200 ms of real time) find it due.
      for (const until = Date.now() + 10_000; Date.now() < until && (await stored()).state !== 'expired'; ) await new Promise((resolve) => setTimeout(resolve, 50));
      // Nothing has read the ticket or the reservation since the restart: this is the sweeper's work.
      expect(await stored()).toEqual({ reserved: 0, state: 'expired' });

      const again = await request(`http://127.0.0.1:${restarted.gatewayPort}/ticket/${guid}/reservations`, { method: 'POST', headers: h(who), json: { amount: 3 } });
      expect(again.status, again.text).toBe(201);
    } finally {
      await db.destroy();
      await restarted.shutdown(2000);
    }
  });
});

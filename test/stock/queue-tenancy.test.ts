/**
 * Another company's reservations never wait in (or fill) the queue of your hot ticket: the
 * ticket's company is checked before a move queues (docs/stock-moves.md "Hot tickets").
 */
import { describe, expect, it } from 'vitest';
import { signUpAndLogin } from '../support/http.js';
import { waitFor } from '../support/redis-server.js';
import { newTicket, reservationSuiteOfFile, reserve } from '../support/stock.js';
import { type Who } from '../support/api.js';

const QUEUE_MAX = 3;
const suite = reservationSuiteOfFile({ STOCK_MOVE_QUEUE_MAX: String(QUEUE_MAX) });

describe('a hot ticket\'s queue is its company\'s', { timeout: 60_000 }, () => {
  it('with a batch held open, 30 reservations of another company are 404 at once and queue nothing; the owner\'s still queue and are served', async () => {
    const { guid } = await newTicket(suite.who, { available_stock: 100 });
    const stranger: Who = { stack: suite.stack, token: (await signUpAndLogin(suite.stack)).accessToken };
    // The ticket is known to the service (as in a rush): its company is checked without a read.
    expect((await reserve(suite.who, guid, { amount: 1 })).status).toBe(201);
    const engine = suite.stack.running.ticket.engine;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let held!: () => void;
    const holding = new Promise<void>((resolve) => (held = resolve));
    engine.beforeCommit = async () => {
      engine.beforeCommit = undefined;
      held();
      await gate;
    };
    const blocker = reserve(suite.who, guid, { amount: 1 });
    await holding;
    try {
      const foreign = await Promise.all(Array.from({ length: 30 }, () => reserve(stranger, guid, { amount: 1 })));
      expect(foreign.map((res) => res.status)).toEqual(Array(30).fill(404));
      expect(engine.queued(guid)).toBe(0);
      const owners = Array.from({ length: QUEUE_MAX }, () => reserve(suite.who, guid, { amount: 1 }));
      await waitFor(() => engine.queued(guid) >= QUEUE_MAX, 10_000, 5);
      open();
      expect((await Promise.all(owners)).map((res) => res.status)).toEqual(Array(QUEUE_MAX).fill(201));
    } finally {
      open();
      engine.beforeCommit = undefined;
    }
    expect((await blocker).status).toBe(201);
  });
});

/**
 * An event's `created_at` is when its change commits, not when the request began (issue 22.6,
 * docs/webhooks.md "Delivery"): a reserve that waits for the ticket (its row lock on MySQL, the
 * one connection on SQLite) gets an event stamped after the wait.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromDbTime } from '../../lib/db.js';
import { newTicket, reserve } from '../support/stock.js';
import { type Who } from '../support/api.js';
import type { TestStack } from '../support/stack.js';
import { startSuite } from '../support/suite.js';

const HELD_MS = 1500;

let stack: TestStack;
let seller: Who;

beforeAll(async () => {
  let token: string;
  ({ stack, token } = await startSuite({ env: { WEBHOOK_WORKER_IN_STACK: 'false' } }));
  seller = { stack, token };
});
afterAll(() => stack?.stop());

describe('event time', () => {
  it(`a reserve held back ${HELD_MS} ms by the ticket's lock: its event's created_at is after the wait`, async () => {
    const { guid } = await newTicket(seller, { available_stock: 10 });
    const db = stack.running.ticket.db;
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    let releasedAt = 0;
    const holder = db.transaction(async (trx) => {
      await trx('tickets').where('guid', guid).forUpdate().select('id');
      locked();
      await new Promise((resolve) => setTimeout(resolve, HELD_MS));
      releasedAt = Date.now();
    });
    await lockTaken;
    const asked = Date.now();
    const res = await reserve(seller, guid, { amount: 1 });
    await holder;
    expect(res.status, res.text).toBe(201);
    expect(Date.now() - asked, 'the reserve waited for the lock').toBeGreaterThanOrEqual(HELD_MS - 100);

    const rows = await db('webhook_events').where('type', 'reservation.created').whereRaw('data like ?', [`%${res.body.guid}%`]).select('created_at');
    expect(rows).toHaveLength(1);
    const createdAt = fromDbTime(rows[0].created_at)!.getTime();
    // Stamped after the lock was let go (not at the request's start, HELD_MS earlier).
    expect(createdAt).toBeGreaterThanOrEqual(releasedAt);
  });
});

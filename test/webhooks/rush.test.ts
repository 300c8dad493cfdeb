/**
 * Webhooks during a stock-move rush, with the worker inside the stack as `npm start` runs it
 * (issue 22.6, PRODUCT.md 10): while buyers queue on one hot ticket, its events keep reaching a
 * healthy receiver within 2 s of their commit (before, the worker's fan-out waited in the ticket
 * service's pool behind the moves and nothing went out until the rush ended); each event once,
 * none missing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromDbTime } from '../../lib/db.js';
import { newTicket, reserve, type Seller } from '../stock/helpers.js';
import { bearer, request, type Account } from '../support/http.js';
import { testBackend, type TestStack } from '../support/stack.js';
import { startSuite } from '../support/suite.js';
import { startReceiver, type TestReceiver } from './receiver.js';

const BUYERS = 50;
const RESERVES_EACH = 4;

let stack: TestStack;
let account: Account;
let seller: Seller;
let receiver: TestReceiver;

beforeAll(async () => {
  let token: string;
  // The default poll interval, the worker in the stack: as shipped.
  ({ stack, account, token } = await startSuite({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE: '100ms,200ms' } }));
  seller = { stack, token };
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
});

// MySQL only: on SQLite inside `npm start` the worker shares the service's one connection
// (docs/webhooks.md "Delivery": a second one in the same process would wait synchronously), so
// during a rush each of its statements queues behind the moves; measured there: p99 4.1 s with
// 100 buyers on a loaded machine. Not solved yet; the compose worker is its own process.
describe.runIf(testBackend() === 'mysql')('webhooks during a rush (MySQL, the worker in the stack)', () => {
  it(`${BUYERS} buyers reserving one ticket ${RESERVES_EACH} times each: every reservation.created within 2 s of its commit, each once`, async () => {
    const created = await request(`${stack.baseUrl}/webhooks`, { method: 'POST', headers: bearer(account.accessToken), json: { url: receiver.url, events: ['reservation.created'] } });
    expect(created.status, created.text).toBe(201);
    receiver.secret = created.body.secret;
    const arrivedAt = new Map<string, number>();
    receiver.answer = (received) => {
      if (!arrivedAt.has(received.id)) arrivedAt.set(received.id, Date.now());
      return 204;
    };
    const { guid } = await newTicket(seller, { available_stock: BUYERS * RESERVES_EACH });

    const reservations: string[] = [];
    await Promise.all(
      Array.from({ length: BUYERS }, async () => {
        for (let i = 0; i < RESERVES_EACH; i++) {
          const res = await reserve(seller, guid, { amount: 1 });
          expect(res.status, res.text).toBe(201);
          reservations.push(res.body.guid);
        }
      }),
    );
    await receiver.waitFor((all) => all.length >= reservations.length, 30_000);

    // Each once, none missing.
    expect(receiver.received.map((r) => r.body.data.guid).sort()).toEqual([...reservations].sort());
    expect(receiver.ids()).toHaveLength(receiver.received.length);
    // The lag from each event's commit (its created_at, to the ms, in the outbox) to its arrival.
    const rows = await stack.running.ticket.db('webhook_events').whereIn('guid', [...arrivedAt.keys()]).select('guid', 'created_at');
    const lags = rows.map((row) => arrivedAt.get(row.guid as string)! - fromDbTime(row.created_at as string)!.getTime()).sort((a, b) => a - b);
    const p = (q: number) => lags[Math.min(lags.length - 1, Math.floor(q * lags.length))]!;
    console.log(`rush of ${reservations.length} reserves: event lag p50 ${p(0.5)} ms, p99 ${p(0.99)} ms, max ${lags[lags.length - 1]} ms`);
    expect(lags).toHaveLength(reservations.length);
    expect(lags[lags.length - 1], 'the slowest event, from its commit to the receiver').toBeLessThan(2000);
  }, 120_000);
});

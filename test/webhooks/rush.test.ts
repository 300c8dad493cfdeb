/**
 * Webhooks during a stock-move rush, with the worker inside the stack as `npm start` runs it
 * (issue 22.6, PRODUCT.md 10): while buyers queue on one hot ticket, its events keep reaching a
 * healthy receiver (before, the worker's fan-out waited in the ticket service's pool behind the
 * moves and nothing went out until the rush ended); each event once, none missing. How soon they
 * arrive (the promise: within 2 s of their commit) is a time, measured by
 * `test/bench/webhook-lag.ts`, not asserted here: a loaded machine slows the worker and the
 * buyers alike.
 */
import { describe, expect, it } from 'vitest';
import { newTicket, reserve } from '../support/stock.js';
import { bearer, request } from '../support/http.js';
import { testBackend } from '../support/stack.js';
import { startSuite, suiteOfFile } from '../support/suite.js';
import { startReceiver } from './receiver.js';

const BUYERS = 50;
/** The rush stops once this many events have arrived... */
const ARRIVED_DURING = 10;
/** ...which must happen before the buyers have made this many reservations (20 each). */
const MOST_RESERVES = BUYERS * 20;

/** A stack with one seller and a receiver for its endpoint; the default poll interval, the worker in the stack: as shipped. */
const suite = suiteOfFile(async () => {
  const started = await startSuite({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE: '100ms,200ms' } });
  const receiver = await startReceiver();
  return {
    ...started,
    receiver,
    async stop() {
      await receiver.close();
      await started.stack.stop();
    },
  };
});

// MySQL only: on SQLite inside `npm start` the worker shares the service's one connection
// (docs/webhooks.md "Delivery": a second one in the same process would wait synchronously), so
// during a rush each of its statements queues behind the moves; measured there: p99 4.1 s with
// 100 buyers on a loaded machine. Not solved yet; the compose worker is its own process.
describe.runIf(testBackend() === 'mysql')('webhooks during a rush (MySQL, the worker in the stack)', () => {
  it(`${BUYERS} buyers reserving one ticket back to back: reservation.created events arrive while the rush goes on, each once, none missing`, async () => {
    const { stack, account, who: seller, receiver } = suite;
    const created = await request(`${stack.baseUrl}/webhooks`, { method: 'POST', headers: bearer(account.accessToken), json: { url: receiver.url, events: ['reservation.created'] } });
    expect(created.status, created.text).toBe(201);
    receiver.secret = created.body.secret;
    const { guid } = await newTicket(seller, { available_stock: MOST_RESERVES });

    // Each buyer reserves again as soon as answered, until events have arrived or the stock is spent.
    const answers: number[] = [];
    const rushGoesOn = () => receiver.received.length < ARRIVED_DURING && answers.length < MOST_RESERVES;
    await Promise.all(
      Array.from({ length: BUYERS }, async () => {
        while (rushGoesOn()) answers.push((await reserve(seller, guid, { amount: 1 })).status);
      }),
    );
    const arrivedDuring = receiver.received.length;
    console.log(`rush: ${answers.length} reserves answered when the rush stopped, ${arrivedDuring} events arrived during it`);
    // Without the fix the worker waits behind the moves: nothing arrives while they go on, and
    // the buyers spend the whole stock.
    expect(arrivedDuring, `events that arrived during a rush of ${answers.length} reserves`).toBeGreaterThanOrEqual(ARRIVED_DURING);
    expect(answers.length).toBeLessThan(MOST_RESERVES);

    // The moves themselves are not under test: on a loaded machine one may time out at the
    // gateway (504) and still commit. What committed is in the database; each has its event.
    expect(answers.every((code) => code === 201 || code === 503 || code === 504), answers.join(',')).toBe(true);
    // A move the gateway gave up on may still be running in the service: read until no more come for a second.
    const committed = async () => ((await stack.running.ticket.db('reservations').where('ticket_id', guid).select('guid')) as Array<{ guid: string }>).map((row) => row.guid);
    let reservations = await committed();
    for (const until = Date.now() + 15_000; Date.now() < until; ) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const again = await committed();
      if (again.length === reservations.length) break;
      reservations = again;
    }
    expect(reservations.length).toBeGreaterThanOrEqual(answers.filter((code) => code === 201).length);
    await receiver.waitFor((all) => all.length >= reservations.length, 30_000);

    // Each once, none missing.
    expect(receiver.received.map((r) => r.body.data.guid).sort()).toEqual([...reservations].sort());
    expect(receiver.ids()).toHaveLength(receiver.received.length);
  }, 120_000);
});

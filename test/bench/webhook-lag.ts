/**
 * The webhook promise under a rush (issue 22.6, docs/webhooks.md "Throughput and order"): each
 * event reaches a healthy receiver within 2 s of its commit while buyers queue on one hot ticket.
 * The stack of the tests on MySQL + Redis with the worker inside it (as `npm start` runs it), a
 * local receiver answering 204 at once, `WEBHOOK_LAG_BUYERS` buyers each reserving one unit
 * `WEBHOOK_LAG_RESERVES` times back to back. Prints per round the lag from each event's commit
 * (its `created_at` in the outbox, to the ms) to its arrival: p50, p99, max, and whether the max
 * kept the promise. Asserts nothing (test/webhooks/rush.test.ts checks the behaviour: events
 * arrive during the rush, each once).
 *
 *   npx tsx test/bench/webhook-lag.ts
 * Env: TEST_MYSQL_URL [mysql://root@127.0.0.1:3306/test], TEST_REDIS_URL [redis://127.0.0.1:6379],
 *      WEBHOOK_LAG_ROUNDS [3], WEBHOOK_LAG_BUYERS [50], WEBHOOK_LAG_RESERVES [4]
 */
import { fromDbTime } from '../../lib/db.js';
import { bearer, request, signUpAndLogin } from '../support/http.js';
import { startTestStack } from '../support/stack.js';
import { startReceiver } from '../webhooks/receiver.js';

process.env.TEST_BACKEND = 'mysql';
process.env.TEST_MYSQL_URL ??= 'mysql://root@127.0.0.1:3306/test';
process.env.TEST_REDIS_URL ??= 'redis://127.0.0.1:6379';
const rounds = Number(process.env.WEBHOOK_LAG_ROUNDS ?? '3');
const buyers = Number(process.env.WEBHOOK_LAG_BUYERS ?? '50');
const reservesEach = Number(process.env.WEBHOOK_LAG_RESERVES ?? '4');
const PROMISE_MS = 2000;

async function round(n: number): Promise<void> {
  const stack = await startTestStack({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE: '100ms,200ms' });
  const receiver = await startReceiver();
  try {
    const account = await signUpAndLogin(stack);
    const headers = bearer(account.accessToken);
    const post = async (path: string, json: unknown) => {
      const res = await request(`${stack.baseUrl}${path}`, { method: 'POST', headers, json });
      if (res.status >= 300) throw new Error(`POST ${path}: ${res.status} ${res.text}`);
      return res.body;
    };
    receiver.secret = (await post('/webhooks', { url: receiver.url, events: ['reservation.created'] })).secret;
    const arrivedAt = new Map<string, number>();
    receiver.answer = (received) => {
      if (!arrivedAt.has(received.id)) arrivedAt.set(received.id, Date.now());
      return 204;
    };
    const event = await post('/event', { name: 'Webhook lag' });
    const ticket = await post(`/event/${event.guid}/ticket`, { name: 'Hot', vat_percentage: 21, available_stock: buyers * reservesEach });
    const statuses = new Map<number, number>();
    await Promise.all(
      Array.from({ length: buyers }, async () => {
        for (let i = 0; i < reservesEach; i++) {
          const res = await request(`${stack.baseUrl}/ticket/${ticket.guid}/reservations`, { method: 'POST', headers, json: { amount: 1 } });
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        }
      }),
    );
    const db = stack.running.ticket.db;
    const committed = Number(((await db('reservations').where('ticket_id', ticket.guid).count({ n: '*' })) as Array<{ n: number }>)[0]!.n);
    await receiver.waitFor((all) => all.length >= committed, 60_000);
    const rows = (await db('webhook_events').whereIn('guid', [...arrivedAt.keys()]).select('guid', 'created_at')) as Array<{ guid: string; created_at: string }>;
    const lags = rows.map((row) => arrivedAt.get(row.guid)! - fromDbTime(row.created_at)!.getTime()).sort((a, b) => a - b);
    const p = (q: number) => lags[Math.min(lags.length - 1, Math.floor(q * lags.length))]!;
    const max = lags[lags.length - 1]!;
    console.log(
      `round ${n}: ${committed} reserves (${[...statuses].map(([code, count]) => `${count} x ${code}`).join(', ')}), event lag p50 ${p(0.5)} ms, p99 ${p(0.99)} ms, max ${max} ms: ` +
        `${max < PROMISE_MS ? 'within' : 'OVER'} the ${PROMISE_MS} ms promise`,
    );
  } finally {
    await receiver.close();
    await stack.stop();
  }
}

for (let n = 1; n <= rounds; n++) await round(n);

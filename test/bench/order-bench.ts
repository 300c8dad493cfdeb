/**
 * The cost of selling carts: concurrent clients each create an order of two tickets and confirm
 * it, over REST, against the one-process stack (`npm start`) of each backend, for a fixed time
 * per round. Prints per backend the orders sold per second (create + confirm) and the p50/p99
 * of one create and one confirm, medians over the rounds. Asserts nothing; run it from two
 * checkouts in turns to compare them (docs/PERFORMANCE.md "Orders").
 *
 *   npx tsx test/bench/order-bench.ts
 * Env: TEST_MYSQL_URL [mysql://root@127.0.0.1:3306/test], TEST_REDIS_URL [redis://127.0.0.1:6379],
 *      ORDER_BACKENDS [embedded,mysql], ORDER_ROUNDS [3], ORDER_SECONDS [10], ORDER_CLIENTS [8]
 */
import { performance } from 'node:perf_hooks';
import { bearer, request, signUpAndLogin } from '../support/http.js';
import type { TestStack } from '../support/stack.js';
import { startOneProcess, type BenchStack } from './bench-processes.js';

const mysqlUrl = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const backends = (process.env.ORDER_BACKENDS ?? 'embedded,mysql').split(',');
const rounds = Number(process.env.ORDER_ROUNDS ?? '3');
const seconds = Number(process.env.ORDER_SECONDS ?? '10');
const clients = Number(process.env.ORDER_CLIENTS ?? '8');

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const median = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50);

async function bench(backend: string, stack: BenchStack): Promise<void> {
  const account = await signUpAndLogin({ authUrl: stack.authUrl } as TestStack);
  const post = async (path: string, body: unknown): Promise<any> => {
    const res = await request(`${stack.baseUrl}${path}`, { method: 'POST', headers: bearer(account.accessToken), json: body });
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  const event = await post('/event', { name: 'Order bench' });
  const ticket = (name: string, fields: Record<string, unknown>) =>
    post(`/event/${event.guid}/ticket`, { name, vat_percentage: 21, available_stock: 10_000_000, max_orderable_amount_per_order: 10, ...fields });
  const adult = await ticket('Adult', { min_price: 24.5, percentage_service_costs_in_ticket: 2.5 });
  const child = await ticket('Child', { min_price: 9.99, vat_percentage: 9 });
  const perRound: Array<{ rate: number; create: number[]; confirm: number[] }> = [];
  for (let round = 0; round < rounds; round++) {
    const create: number[] = [];
    const confirm: number[] = [];
    let sold = 0;
    const until = performance.now() + seconds * 1000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (performance.now() < until) {
          const t0 = performance.now();
          const order = await post(`/event/${event.guid}/orders`, { lines: [{ ticket_id: adult.guid, amount: 2 }, { ticket_id: child.guid, amount: 1 }] });
          const t1 = performance.now();
          await post(`/order/${order.guid}/confirm`, {});
          confirm.push(performance.now() - t1);
          create.push(t1 - t0);
          sold++;
        }
      }),
    );
    perRound.push({ rate: sold / ((performance.now() - started) / 1000), create: create.sort((a, b) => a - b), confirm: confirm.sort((a, b) => a - b) });
  }
  const summary = {
    backend,
    orders_per_s: Number(median(perRound.map((r) => r.rate)).toFixed(1)),
    create_p50_ms: Number(median(perRound.map((r) => percentile(r.create, 50))).toFixed(1)),
    create_p99_ms: Number(median(perRound.map((r) => percentile(r.create, 99))).toFixed(1)),
    confirm_p50_ms: Number(median(perRound.map((r) => percentile(r.confirm, 50))).toFixed(1)),
    confirm_p99_ms: Number(median(perRound.map((r) => percentile(r.confirm, 99))).toFixed(1)),
    rounds,
    seconds,
    clients,
  };
  console.log(JSON.stringify(summary));
}

for (const backend of backends) {
  const stack = await startOneProcess(backend === 'mysql' ? mysqlUrl : undefined, redisUrl);
  try {
    await bench(backend, stack);
  } finally {
    await stack.stop();
  }
}

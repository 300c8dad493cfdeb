/**
 * The largest confirmation allowed (issue 18 item 1): 1,000 generated barcodes in one
 * `POST /reservation/:guid/confirm`, on the one-process stack (`npm start`) of each backend,
 * while another client asks `/healthz` back to back. Prints per backend the confirmation's
 * time, the stack's RSS before, at its peak during and after, and the /healthz latencies
 * meanwhile (p50, p99, max) beside the same probe with nothing else running. Asserts nothing;
 * docs/PERFORMANCE.md "The largest confirmation" has the figures.
 *
 *   npx tsx test/bench/confirm-bench.ts
 * Env: TEST_MYSQL_URL [mysql://root@127.0.0.1:3306/test], TEST_REDIS_URL [redis://127.0.0.1:6379],
 *      CONFIRM_ROUNDS [5], CONFIRM_BACKENDS [embedded,mysql]
 */
import { performance } from 'node:perf_hooks';
import { MAX_UNITS_PER_ORDER } from '../../lib/fields/reservation.js';
import { bearer, request, signUpAndLogin } from '../support/http.js';
import type { TestStack } from '../support/stack.js';
import { rssMb, startOneProcess, type BenchStack } from './bench-processes.js';

const mysqlUrl = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const rounds = Number(process.env.CONFIRM_ROUNDS ?? '5');
const backends = (process.env.CONFIRM_BACKENDS ?? 'embedded,mysql').split(',');

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const ms = (n: number) => `${n.toFixed(1)} ms`;

/** /healthz back to back until `until` settles: each request's latency. */
async function probe(baseUrl: string, until: Promise<unknown>): Promise<number[]> {
  let done = false;
  void until.finally(() => (done = true));
  const latencies: number[] = [];
  while (!done) {
    const start = performance.now();
    const res = await fetch(`${baseUrl}/healthz`);
    await res.arrayBuffer();
    latencies.push(performance.now() - start);
  }
  return latencies;
}

/** The stack's RSS every 10 ms until `until` settles: the highest seen. */
async function peakRss(pid: number, until: Promise<unknown>): Promise<number> {
  let done = false;
  void until.finally(() => (done = true));
  let peak = rssMb(pid);
  while (!done) {
    peak = Math.max(peak, rssMb(pid));
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return peak;
}

async function bench(backend: string, stack: BenchStack): Promise<void> {
  const account = await signUpAndLogin({ authUrl: stack.authUrl } as TestStack);
  const headers = bearer(account.accessToken);
  const post = async (path: string, json: unknown) => {
    const res = await request(`${stack.baseUrl}${path}`, { method: 'POST', headers, json });
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  const event = await post('/event', { name: 'Confirm bench' });
  const idle = await probe(stack.baseUrl, new Promise((resolve) => setTimeout(resolve, 2000)));
  const during: number[] = [];
  const times: number[] = [];
  const pid = stack.pids()[0]!;
  const rss = { before: rssMb(pid), peak: 0, after: 0 };
  for (let round = 0; round < rounds; round++) {
    const ticket = await post(`/event/${event.guid}/ticket`, {
      name: `Big ${round}`,
      vat_percentage: 21,
      available_stock: MAX_UNITS_PER_ORDER,
      max_orderable_amount_per_order: MAX_UNITS_PER_ORDER,
    });
    const reservation = await post(`/ticket/${ticket.guid}/reservations`, { amount: MAX_UNITS_PER_ORDER, ttl_seconds: 3600 });
    const start = performance.now();
    const confirm = post(`/reservation/${reservation.guid}/confirm`, {}).then((body) => {
      times.push(performance.now() - start);
      if (body.barcodes.length !== MAX_UNITS_PER_ORDER) throw new Error(`confirmed with ${body.barcodes.length} barcodes`);
    });
    const [latencies, peak] = await Promise.all([probe(stack.baseUrl, confirm), peakRss(pid, confirm), confirm]);
    during.push(...latencies);
    rss.peak = Math.max(rss.peak, peak);
  }
  rss.after = rssMb(pid);
  idle.sort((a, b) => a - b);
  during.sort((a, b) => a - b);
  times.sort((a, b) => a - b);
  console.log(`\n${backend}: ${rounds} confirmations of ${MAX_UNITS_PER_ORDER} generated barcodes (REST, one-process stack)`);
  console.log(`  confirm: median ${ms(percentile(times, 50))}, max ${ms(times[times.length - 1]!)}`);
  console.log(`  RSS: ${rss.before.toFixed(0)} MB before, ${rss.peak.toFixed(0)} MB peak during, ${rss.after.toFixed(0)} MB after`);
  console.log(`  /healthz idle (${idle.length}): p50 ${ms(percentile(idle, 50))}, p99 ${ms(percentile(idle, 99))}, max ${ms(idle[idle.length - 1]!)}`);
  console.log(`  /healthz during confirms (${during.length}): p50 ${ms(percentile(during, 50))}, p99 ${ms(percentile(during, 99))}, max ${ms(during[during.length - 1]!)}`);
}

for (const backend of backends) {
  const stack = await startOneProcess(backend === 'mysql' ? mysqlUrl : undefined, redisUrl);
  try {
    await bench(backend, stack);
  } finally {
    await stack.stop();
  }
}

/**
 * Throughput and latency of the main paths over the real stack (gateway -> gRPC -> services
 * -> database), on loopback. Prints figures; asserts nothing (tests assert behaviour).
 *
 *   npm run bench                      embedded default (SQLite, in-process cache)
 *   TEST_BACKEND=mysql TEST_MYSQL_URL=mysql://root@127.0.0.1:3306/test \
 *     TEST_REDIS_URL=redis://127.0.0.1:6379 npm run bench
 *
 * BENCH_SCALE (default 1) multiplies the request counts. After the paths, the on-sale rush
 * (rush-bench.ts; RUSH_STOCK, RUSH_BUYERS); BENCH_RUSH=only runs just the rush, BENCH_RUSH=0 skips it.
 */
import { performance } from 'node:perf_hooks';
import { credentials, Metadata } from '@grpc/grpc-js';
import { TicketServiceClient } from '../../lib/gen/ticketing/v1/ticket.js';
import { callUnary } from '../../lib/grpc/client.js';
import { bearer, request, signUpAndLogin } from '../support/http.js';
import { startTestStack } from '../support/stack.js';
import { runRush } from './rush-bench.js';

const scale = Number(process.env.BENCH_SCALE ?? '1');
const rushMode = process.env.BENCH_RUSH ?? '1';

interface Figures {
  name: string;
  requests: number;
  concurrency: number;
  seconds: number;
  latenciesMs: number[];
  failures: number;
}

/** Runs `count` calls of `fn`, `concurrency` at a time; every call is timed. */
async function measure(name: string, count: number, concurrency: number, fn: (i: number) => Promise<boolean>): Promise<Figures> {
  const latenciesMs: number[] = [];
  let failures = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const t0 = performance.now();
        const ok = await fn(i).catch(() => false);
        latenciesMs.push(performance.now() - t0);
        if (!ok) failures++;
      }
    }),
  );
  return { name, requests: count, concurrency, seconds: (performance.now() - started) / 1000, latenciesMs, failures };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function report(all: Figures[]): void {
  const rows = all.map((f) => {
    const sorted = [...f.latenciesMs].sort((a, b) => a - b);
    return {
      path: f.name,
      requests: f.requests,
      concurrency: f.concurrency,
      'req/s': Math.round(f.requests / f.seconds),
      'p50 ms': percentile(sorted, 50).toFixed(1),
      'p95 ms': percentile(sorted, 95).toFixed(1),
      'p99 ms': percentile(sorted, 99).toFixed(1),
      failures: f.failures,
    };
  });
  console.table(rows);
}

async function main(): Promise<void> {
  const stack = await startTestStack();
  try {
    const account = await signUpAndLogin(stack);
    if (rushMode === 'only') return await runRush(stack, account.accessToken);
    const auth = bearer(account.accessToken);
    const event = await request(`${stack.baseUrl}/event`, { method: 'POST', headers: auth, json: { name: 'Bench' } });
    const eventGuid = event.body.guid as string;
    const guids: string[] = [];
    const results: Figures[] = [];

    results.push(
      await measure('POST /event/:guid/ticket (JSON)', 500 * scale, 16, async (i) => {
        const r = await request(`${stack.baseUrl}/event/${eventGuid}/ticket`, { method: 'POST', headers: auth, json: { name: `T${i}`, vat_percentage: 21 } });
        if (r.status === 201) guids.push(r.body.guid);
        return r.status === 201;
      }),
    );
    results.push(
      await measure('GET /ticket/:guid', 2000 * scale, 32, async (i) => {
        const r = await fetch(`${stack.baseUrl}/ticket/${guids[i % guids.length]}`, { headers: auth });
        await r.arrayBuffer();
        return r.status === 200;
      }),
    );
    results.push(
      await measure('PUT /ticket/:guid (one field)', 500 * scale, 16, async (i) => {
        const r = await request(`${stack.baseUrl}/ticket/${guids[i % guids.length]}`, { method: 'PUT', headers: auth, json: { available_stock: i } });
        return r.status === 200;
      }),
    );
    results.push(
      await measure(`GET /event/:guid/ticket (all ${guids.length}, streamed)`, 20 * scale, 4, async () => {
        const r = await fetch(`${stack.baseUrl}/event/${eventGuid}/ticket`, { headers: auth });
        const list = (await r.json()) as unknown[];
        return r.status === 200 && list.length === guids.length;
      }),
    );
    results.push(
      await measure('GET /auth/users/me', 2000 * scale, 32, async () => {
        const r = await fetch(`${stack.authUrl}/users/me`, { headers: auth });
        await r.arrayBuffer();
        return r.status === 200;
      }),
    );
    const client = new TicketServiceClient(stack.ticketGrpcAddress, credentials.createInsecure());
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${account.accessToken}`);
    results.push(
      await measure('gRPC TicketService/GetTicket (direct)', 2000 * scale, 32, async (i) => {
        const ticket = await callUnary(client.getTicket.bind(client), { guid: guids[i % guids.length]! }, metadata, 5000);
        return ticket.guid === guids[i % guids.length];
      }),
    );
    client.close();

    console.log(`\nbackend: ${stack.backend}; node ${process.version}; everything on one machine over loopback\n`);
    report(results);
    if (rushMode !== '0') await runRush(stack, account.accessToken);
  } finally {
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

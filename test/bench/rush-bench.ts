/**
 * The on-sale rush (issues 9 and 22): one ticket with RUSH_STOCK (10,000) in stock and
 * RUSH_BUYERS (500; a list such as `500,1000,5000` runs one rush per size) concurrent buyers
 * each reserving 1-4 and confirming until it is sold out (test/support/rush.ts), once over
 * gRPC (ReservationService, as a shop calls it) and once over REST (through the gateway),
 * while RUSH_READERS (4) readers GET the ticket back to back. A reservation refused at once as
 * busy is no error: its buyer waits the Retry-After it was given and tries again. Prints per
 * rush the throughput, the reserve, confirm and read latencies, every kind of failure, what
 * stayed stranded and what was oversold. On MySQL then the same rush with bare SQL on the same
 * database server (rush-limit.ts: one transaction per move, and batched), and each of our
 * figures beside the limit's, with the ratio. Asserts nothing.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { grpcRushShop, restRushShop, type RushShop } from '../support/rush-shops.js';
import { oversold, runRush, stranded, type RushTally } from '../support/rush.js';
import { bearer, request } from '../support/http.js';
import { percentile } from './load.js';
import { rushLimit, type LimitMode, type RushFigures } from './rush-limit.js';

/** What the rush needs of a running stack. */
export interface RushTarget {
  backend: string;
  baseUrl: string;
  ticketGrpcAddress: string;
  /** The ticket database's MySQL URL (the raw limit runs on a scratch database of the same server); '' on the embedded backend. */
  ticketDatabaseUrl: string;
  /** Each stack process's Prometheus endpoint, by part: where the event loops' lag is read. */
  metricsUrls: Record<string, string>;
}

/**
 * The p99 of each process's event loop delay during one rush, in ms: the load generator's own
 * (this process) and each stack process's (prom-client's `nodejs_eventloop_lag_p99_seconds`,
 * whose histogram starts again at every scrape, so a scrape before the rush opens the window).
 * A call crosses each loop a few times, so this is what a busy process adds to every answer.
 */
async function loopLags(metricsUrls: Record<string, string>): Promise<() => Promise<string>> {
  const scrape = async (url: string) => {
    const text = await fetch(url, { signal: AbortSignal.timeout(5000) }).then((res) => res.text()).catch(() => '');
    const seconds = /^nodejs_eventloop_lag_p99_seconds (\S+)$/m.exec(text)?.[1];
    return seconds === undefined ? '?' : String(Math.round(Number(seconds) * 1000));
  };
  await Promise.all(Object.values(metricsUrls).map(scrape));
  const generator = monitorEventLoopDelay({ resolution: 10 });
  generator.enable();
  return async () => {
    generator.disable();
    const parts = await Promise.all(Object.entries(metricsUrls).map(async ([part, url]) => `${part} ${await scrape(url)}`));
    return [`load ${Math.round(generator.percentile(99) / 1e6)}`, ...parts].join(' · ');
  };
}

/** Read when a rush starts, so that a caller (BENCH_QUICK) can set smaller defaults first. */
const stock = () => Number(process.env.RUSH_STOCK ?? '10000');
const sizes = () => (process.env.RUSH_BUYERS ?? '500').split(',').map((size) => Number(size.trim()));
const readers = () => Number(process.env.RUSH_READERS ?? '4');

/** What a shop told to come back after Retry-After does: waits that long, plus a little jitter so the refused do not all return at once. */
const retryAfterWaitMs = (retryAfterSeconds: number) => retryAfterSeconds * 1000 + Math.random() * 250;

const ms = (values: readonly number[], p: number) => Number(percentile([...values].sort((a, b) => a - b), p).toFixed(1));

/** One row of the rush table; docs/PERFORMANCE.md "The on-sale rush" says what each column means. */
function rushRow(path: string, buyers: number, tally: RushTally, lags: string): Record<string, unknown> {
  const confirms = tally.reservations - tally.confirmFailures;
  return {
    path,
    stock: stock(),
    buyers,
    reservations: tally.reservations,
    'reservations/s': Math.round(tally.reservations / tally.seconds),
    'reserve p50 ms': ms(tally.reserveMs, 50),
    'reserve p99 ms': ms(tally.reserveMs, 99),
    'confirms/s': Math.round(confirms / tally.seconds),
    'confirm p99 ms': ms(tally.confirmMs, 99),
    'read p50 ms': ms(tally.readMs, 50),
    'read p99 ms': ms(tally.readMs, 99),
    reads: tally.reads,
    'refused busy': tally.refusedBusy,
    'reserve errors': tally.reserveFailures,
    'confirm errors': tally.confirmFailures,
    'read errors': tally.readErrors,
    'reads behind sales': tally.readsBehindSales,
    sold_count: tally.final.sold_count,
    stranded: stranded(tally.final),
    oversold: oversold(tally.final, tally.boughtUnits),
    'loop lag p99 ms': lags,
  };
}

async function rushOnce(target: RushTarget, token: string, eventGuid: string, shop: RushShop, buyers: number): Promise<Record<string, unknown>> {
  const ticket = await request(`${target.baseUrl}/event/${eventGuid}/ticket`, {
    method: 'POST',
    headers: bearer(token),
    json: { name: `Rush ${shop.name} ${buyers}`, vat_percentage: 21, available_stock: stock(), max_orderable_amount_per_order: 4 },
  });
  if (ticket.status !== 201) throw new Error(`ticket: ${ticket.status} ${ticket.text}`);
  const lags = await loopLags(target.metricsUrls);
  const tally = await runRush({
    baseUrl: target.baseUrl,
    token,
    ticketGuid: ticket.body.guid as string,
    shops: [shop],
    buyers,
    readers: readers(),
    busyWaitMs: retryAfterWaitMs,
  });
  for (const sample of tally.failureSamples) console.log(`  ${target.backend}, ${shop.name}, ${buyers} buyers: ${sample}`);
  return rushRow(shop.name, buyers, tally, await lags());
}

/** The figures compared with the limit; `oversold` must be 0 everywhere. */
const COMPARED = ['reservations/s', 'reserve p50 ms', 'reserve p99 ms', 'confirms/s', 'oversold'] as const satisfies readonly (keyof RushFigures)[];

/** One row per figure: ours over gRPC and REST, the limit per move and batched, and ours / batched. */
function againstLimit(grpcRow: Record<string, unknown>, restRow: Record<string, unknown>, limits: Record<LimitMode, RushFigures>): Record<string, unknown>[] {
  const ratio = (a: number, b: number) => (b > 0 ? Number((a / b).toFixed(2)) : null);
  return COMPARED.map((figure) => ({
    figure,
    gRPC: Number(grpcRow[figure]),
    REST: Number(restRow[figure]),
    'limit, per move': limits['per move'][figure],
    'limit, batched': limits.batched[figure],
    'gRPC / batched': ratio(Number(grpcRow[figure]), limits.batched[figure]),
    'REST / batched': ratio(Number(restRow[figure]), limits.batched[figure]),
  }));
}

/**
 * Runs the rush of each size over gRPC and over REST on the given stack and prints one table;
 * on MySQL then the raw limit of each size on the same database server and ours against it.
 * Returns every row (ours and the limit's).
 */
export async function runRushes(target: RushTarget, token: string): Promise<Record<string, unknown>[]> {
  const event = await request(`${target.baseUrl}/event`, { method: 'POST', headers: bearer(token), json: { name: 'On-sale rush' } });
  const ours: Record<string, unknown>[] = [];
  for (const buyers of sizes()) {
    for (const shop of [grpcRushShop(target.ticketGrpcAddress, token), restRushShop(target.baseUrl, token)]) {
      try {
        ours.push(await rushOnce(target, token, event.body.guid as string, shop, buyers));
      } finally {
        shop.close();
      }
    }
  }
  console.log(`\nOn-sale rush (${target.backend}): each buyer reserves 1-4 and confirms until sold out, ${readers()} readers meanwhile\n`);
  console.table(ours);
  if (!target.ticketDatabaseUrl.startsWith('mysql')) return ours.map((row) => ({ backend: target.backend, ...row }));

  const limitRows: Record<string, unknown>[] = [];
  for (const buyers of sizes()) {
    const limits = {} as Record<LimitMode, RushFigures>;
    for (const mode of ['per move', 'batched'] as const) {
      limits[mode] = await rushLimit(mode, { mysqlUrl: target.ticketDatabaseUrl, stock: stock(), buyers });
      limitRows.push({ path: `bare SQL, ${mode}`, stock: stock(), buyers, ...limits[mode] });
    }
    const [grpcRow, restRow] = ours.filter((row) => row.buyers === buyers);
    console.log(`\nThe same rush with bare SQL on the same database server (no RPC), and ours against it: ${buyers} buyers\n`);
    console.table(againstLimit(grpcRow!, restRow!, limits));
  }
  return [...ours, ...limitRows].map((row) => ({ backend: target.backend, ...row }));
}

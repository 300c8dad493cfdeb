/**
 * The on-sale rush (issue 9): one ticket with RUSH_STOCK (10,000) in stock, RUSH_BUYERS
 * (500) concurrent buyers each reserving 1-4 and confirming, again and again until the
 * ticket is sold out; once over gRPC (ReservationService, as a shop would) and once over
 * REST (through the gateway). Prints reservations per second, p50/p99 of the reserve
 * call, the final counters and how much was oversold (must be 0). Then the same rush with
 * bare SQL on the same database server (rush-limit.ts: one transaction per move, and
 * batched), and each of our figures beside the limit's, with the ratio (issue 22).
 */
import { performance } from 'node:perf_hooks';
import { credentials, Metadata } from '@grpc/grpc-js';
import { ReservationServiceClient } from '../../lib/gen/ticketing/v1/reservation.js';
import { callUnary } from '../../lib/grpc/client.js';
import { readErrorDetails, isServiceError } from '../../lib/grpc/errors.js';
import { bearer, request } from '../support/http.js';
import { rushLimit, type LimitMode, type RushFigures } from './rush-limit.js';

/** What the rush needs of a running stack. */
export interface RushTarget {
  backend: string;
  baseUrl: string;
  ticketGrpcAddress: string;
  /** The ticket database's MySQL URL: the raw limit runs on a scratch database of the same server. */
  ticketDatabaseUrl: string;
}

/** Read when a rush starts, so that a caller (BENCH_QUICK) can set smaller defaults first. */
const stock = () => Number(process.env.RUSH_STOCK ?? '10000');
const buyers = () => Number(process.env.RUSH_BUYERS ?? '500');

type Attempt = 'sold' | 'sold_out' | 'error';

interface Shop {
  name: string;
  /** Reserves `amount` and confirms; how it went. */
  buy(ticketGuid: string, amount: number): Promise<{ outcome: Attempt; reserveMs: number }>;
  close(): void;
}

function grpcShop(stack: RushTarget, token: string): Shop {
  const client = new ReservationServiceClient(stack.ticketGrpcAddress, credentials.createInsecure());
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return {
    name: 'gRPC ReservationService',
    async buy(ticketGuid, amount) {
      const t0 = performance.now();
      try {
        const reservation = await callUnary(client.reserveTicket.bind(client), { ticket_id: ticketGuid, amount, ttl_seconds: undefined, request_id: '' }, metadata, 30_000);
        const reserveMs = performance.now() - t0;
        await callUnary(client.confirmReservation.bind(client), { guid: reservation.guid, barcodes: [] }, metadata, 30_000);
        return { outcome: 'sold', reserveMs };
      } catch (err) {
        const soldOut = isServiceError(err) && readErrorDetails(err).reason === 'insufficient_stock';
        return { outcome: soldOut ? 'sold_out' : 'error', reserveMs: performance.now() - t0 };
      }
    },
    close: () => client.close(),
  };
}

function restShop(stack: RushTarget, token: string): Shop {
  const headers = bearer(token);
  return {
    name: 'REST via the gateway',
    async buy(ticketGuid, amount) {
      const t0 = performance.now();
      const reserved = await request(`${stack.baseUrl}/ticket/${ticketGuid}/reservations`, { method: 'POST', headers, json: { amount } }).catch(() => undefined);
      const reserveMs = performance.now() - t0;
      if (reserved?.status === 409 && reserved.body.code === 'insufficient_stock') return { outcome: 'sold_out', reserveMs };
      if (reserved?.status !== 201) return { outcome: 'error', reserveMs };
      const confirmed = await request(`${stack.baseUrl}/reservation/${reserved.body.guid}/confirm`, { method: 'POST', headers }).catch(() => undefined);
      return { outcome: confirmed?.status === 200 ? 'sold' : 'error', reserveMs };
    },
    close: () => undefined,
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : 0;
}

async function rush(stack: RushTarget, token: string, eventGuid: string, shop: Shop): Promise<Record<string, unknown>> {
  const STOCK = stock();
  const BUYERS = buyers();
  const headers = bearer(token);
  const ticket = await request(`${stack.baseUrl}/event/${eventGuid}/ticket`, {
    method: 'POST',
    headers,
    json: { name: `Rush ${shop.name}`, vat_percentage: 21, available_stock: STOCK, max_orderable_amount_per_order: 4 },
  });
  if (ticket.status !== 201) throw new Error(`ticket: ${ticket.status} ${ticket.text}`);
  const guid = ticket.body.guid as string;
  const latencies: number[] = [];
  let bought = 0;
  let reservations = 0;
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: BUYERS }, async (_, buyer) => {
      for (let round = 0; ; round++) {
        const amount = 1 + ((buyer + round) % 4);
        const { outcome, reserveMs } = await shop.buy(guid, amount);
        latencies.push(reserveMs);
        if (outcome === 'sold_out') return;
        if (outcome === 'error') {
          errors++;
          if (errors > BUYERS) return;
          continue;
        }
        reservations++;
        bought += amount;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const final = (await request(`${stack.baseUrl}/ticket/${guid}`, { headers })).body;
  latencies.sort((a, b) => a - b);
  return {
    path: shop.name,
    stock: STOCK,
    buyers: BUYERS,
    reservations,
    'reservations/s': Math.round(reservations / seconds),
    'reserve p50 ms': percentile(latencies, 50).toFixed(1),
    'reserve p99 ms': percentile(latencies, 99).toFixed(1),
    'confirms/s': Math.round(reservations / seconds),
    sold_count: final.sold_count,
    reserved_count: final.reserved_count,
    pending_count: final.pending_count,
    status: final.status,
    'bought by buyers': bought,
    oversold: Math.max(0, final.sold_count + final.reserved_count + final.pending_count - STOCK) + Math.max(0, bought - final.sold_count),
    errors,
  };
}

/** The figures compared with the limit; `oversold` must be 0 everywhere. */
const COMPARED = ['reservations/s', 'reserve p50 ms', 'reserve p99 ms', 'confirms/s', 'oversold'] as const satisfies readonly (keyof RushFigures)[];

/** One row per figure: ours over gRPC and REST, the limit per move and batched, and ours / batched. */
function againstLimit(ours: readonly Record<string, unknown>[], limits: Record<LimitMode, RushFigures>): Record<string, unknown>[] {
  const [grpc, rest] = ours.map((row) => (key: string) => Number(row[key]));
  const ratio = (a: number, b: number) => (b > 0 ? Number((a / b).toFixed(2)) : null);
  return COMPARED.map((figure) => ({
    figure,
    gRPC: grpc!(figure),
    REST: rest!(figure),
    'limit, per move': limits['per move'][figure],
    'limit, batched': limits.batched[figure],
    'gRPC / batched': ratio(grpc!(figure), limits.batched[figure]),
    'REST / batched': ratio(rest!(figure), limits.batched[figure]),
  }));
}

/**
 * Runs the rush over gRPC and over REST on the given stack, then the raw limit on the same
 * database server; prints both and the comparison, returns the rows.
 */
export async function runRush(stack: RushTarget, token: string): Promise<Record<string, unknown>[]> {
  const event = await request(`${stack.baseUrl}/event`, { method: 'POST', headers: bearer(token), json: { name: 'On-sale rush' } });
  const rows: Record<string, unknown>[] = [];
  for (const shop of [grpcShop(stack, token), restShop(stack, token)]) {
    try {
      rows.push(await rush(stack, token, event.body.guid as string, shop));
    } finally {
      shop.close();
    }
  }
  console.log(`\nOn-sale rush (${stack.backend}): each buyer reserves 1-4 and confirms, until sold out\n`);
  console.table(rows);
  const limits = {} as Record<LimitMode, RushFigures>;
  for (const mode of ['per move', 'batched'] as const) {
    limits[mode] = await rushLimit(mode, { mysqlUrl: stack.ticketDatabaseUrl, stock: stock(), buyers: buyers() });
    rows.push({ path: `bare SQL, ${mode}`, stock: stock(), buyers: buyers(), ...limits[mode] });
  }
  console.log(`\nThe same rush with bare SQL on the same database server (no RPC), and ours against it\n`);
  console.table(againstLimit(rows, limits));
  return rows;
}

/**
 * One on-sale rush on one ticket, as the rush test and the rush bench both run it: `buyers`
 * concurrent buyers, each reserving 1-4 and confirming again and again until the ticket is
 * sold out (a buyer refused for stock tries 1 before giving up, so the ticket sells out
 * exactly), while `readers` readers GET the ticket back to back. A reservation refused at
 * once as busy is no error: the buyer waits and tries again. Counts everything a caller may
 * see; asserts nothing (no vitest import: the bench uses it too).
 */
import { performance } from 'node:perf_hooks';
import { bearer, request } from './http.js';
import type { RushShop } from './rush-shops.js';

export interface RushOptions {
  baseUrl: string;
  token: string;
  ticketGuid: string;
  /** Buyer i shops at shops[i % shops.length]. */
  shops: readonly RushShop[];
  buyers: number;
  readers: number;
  /** How long a buyer refused as busy waits before it tries again. */
  busyWaitMs(retryAfterSeconds: number): number;
}

export interface Counters {
  available_stock: number;
  sold_count: number;
  reserved_count: number;
  pending_count: number;
  status: string;
}

export interface RushTally {
  seconds: number;
  /** Reservations served (each then confirmed or counted as a confirm failure). */
  reservations: number;
  /** Units of the confirms the buyers were told succeeded. */
  boughtUnits: number;
  /** Latencies (ms) of the reserve calls that were answered: served or sold out, not refused as busy. */
  reserveMs: number[];
  /** Latencies (ms) of the confirm calls, failed ones included. */
  confirmMs: number[];
  refusedBusy: number;
  /** Reserve calls that failed any other way, and confirms that failed. */
  reserveFailures: number;
  confirmFailures: number;
  reads: number;
  readMs: number[];
  /** Reads whose sold_count was lower than the sales confirmed to a buyer before the read was sent. */
  readsBehindSales: number;
  /** Reads whose sold + reserved + pending exceeded the ticket's stock. */
  readsOverStock: number;
  readErrors: number;
  /** The first few failures of each kind, described. */
  failureSamples: string[];
  /** The ticket's counters after the rush (a read after every buyer finished). */
  final: Counters;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const SAMPLES_PER_KIND = 5;

export async function runRush(options: RushOptions): Promise<RushTally> {
  const tally: Omit<RushTally, 'final' | 'seconds'> = {
    reservations: 0,
    boughtUnits: 0,
    reserveMs: [],
    confirmMs: [],
    refusedBusy: 0,
    reserveFailures: 0,
    confirmFailures: 0,
    reads: 0,
    readMs: [],
    readsBehindSales: 0,
    readsOverStock: 0,
    readErrors: 0,
    failureSamples: [],
  };
  const sampled = new Map<string, number>();
  const note = (kind: string, why: string) => {
    const seen = sampled.get(kind) ?? 0;
    sampled.set(kind, seen + 1);
    if (seen < SAMPLES_PER_KIND) tally.failureSamples.push(`${kind}: ${why}`);
  };
  // A rush whose service fails everything must still end: past this many failures every buyer stops.
  const giveUp = () => tally.reserveFailures + tally.confirmFailures > options.buyers;
  const readTicket = () => request(`${options.baseUrl}/ticket/${options.ticketGuid}`, { headers: bearer(options.token) });

  const buyer = async (index: number) => {
    const shop = options.shops[index % options.shops.length]!;
    for (let round = 0, amount = 1 + (index % 4); !giveUp(); ) {
      const t0 = performance.now();
      const answer = await shop.reserve(options.ticketGuid, amount);
      if (answer.outcome === 'busy') {
        tally.refusedBusy++;
        await pause(options.busyWaitMs(answer.retryAfterSeconds));
        continue;
      }
      if (answer.outcome === 'failed') {
        tally.reserveFailures++;
        note(`${shop.name} reserve`, answer.why);
        await pause(100);
        continue;
      }
      tally.reserveMs.push(performance.now() - t0);
      if (answer.outcome === 'sold_out') {
        if (amount === 1) return;
        amount = 1;
        continue;
      }
      tally.reservations++;
      const confirmStarted = performance.now();
      const confirmed = await shop.confirm(answer.guid);
      tally.confirmMs.push(performance.now() - confirmStarted);
      if (confirmed.outcome === 'failed') {
        tally.confirmFailures++;
        note(`${shop.name} confirm`, confirmed.why);
      } else {
        tally.boughtUnits += amount;
      }
      round++;
      amount = 1 + ((index + round) % 4);
    }
  };

  let buying = true;
  const reader = async () => {
    while (buying) {
      const confirmedBefore = tally.boughtUnits;
      const t0 = performance.now();
      const res = await readTicket().catch((err: unknown) => ({ status: 0, text: String(err), body: undefined }));
      tally.reads++;
      if (res.status !== 200) {
        tally.readErrors++;
        note('read', `HTTP ${res.status}: ${res.text.slice(0, 300)}`);
        await pause(100);
        continue;
      }
      tally.readMs.push(performance.now() - t0);
      const ticket = res.body as Counters;
      if (ticket.sold_count < confirmedBefore) {
        tally.readsBehindSales++;
        note('read behind sales', `sold_count ${ticket.sold_count} after ${confirmedBefore} confirmed`);
      }
      if (ticket.sold_count + ticket.reserved_count + ticket.pending_count > ticket.available_stock) tally.readsOverStock++;
    }
  };

  const started = performance.now();
  const readers = Array.from({ length: options.readers }, () => reader());
  try {
    await Promise.all(Array.from({ length: options.buyers }, (_, i) => buyer(i)));
  } finally {
    buying = false;
    await Promise.all(readers);
  }
  const seconds = (performance.now() - started) / 1000;
  const final = await readTicket();
  if (final.status !== 200) throw new Error(`the ticket after the rush: ${final.status} ${final.text}`);
  return { ...tally, seconds, final: final.body as Counters };
}

/** Units held by reservations still reserved or pending after the rush: 0 when every confirm succeeded. */
export const stranded = (final: Counters) => final.reserved_count + final.pending_count;

/** Units sold or held past the stock, plus confirmed units the ticket does not count as sold: must be 0. */
export const oversold = (final: Counters, boughtUnits: number) =>
  Math.max(0, final.sold_count + final.reserved_count + final.pending_count - final.available_stock) + Math.max(0, boughtUnits - final.sold_count);

/**
 * Cancelling a sale under concurrency (PRODUCT.md 14, issue 30 items 2 and 3), on both
 * backends: a scan and a cancel of one barcode racing (exactly one wins), identical and
 * overlapping cancellations (each unit cancelled once), a cancellation racing another order's
 * expiry on its tickets, a partial then a full cancellation (exact refunds), and cancels racing
 * new sales of the same tickets. Every test ends with the invariant on every ticket it touched.
 */
import { describe, expect, it } from 'vitest';
import { readErrorDetails } from '../../lib/grpc/errors.js';
import { readTicket } from '../support/api.js';
import type { JsonResponse } from '../support/http.js';
import { expectConflict, expectInvariant, grpcCall, grpcClient, meta, moveRest, newEvent, newTicket, reserve, restPatiently, scanRest } from '../support/stock.js';
import { createOrderRest, orderMoveRest, orderSuiteOfFile, readOrderRest } from './helpers.js';

const suite = orderSuiteOfFile();

/** What a racing call came to: its status and problem code, with its text for the failure message. */
const outcome = (res: JsonResponse) => `${res.status}${res.body?.code ? ` ${res.body.code}` : ''}`;
const patiently = (send: () => Promise<JsonResponse>) => restPatiently(send);
/** `send` a few milliseconds later: spreads the race's interleavings (a scan reads its barcode before it queues, so it reaches the engine later). */
const after = <T>(ms: number, send: () => Promise<T>) => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)).then(send) : send());
const codesOf = (order: any): string[] => (order.lines as any[]).flatMap((line) => line.barcodes.map((barcode: any) => barcode.code as string));

/** A confirmed order of these lines (ticket, amount) of `event`; its REST answer. */
async function soldOrder(event: string, lines: Array<[string, number]>): Promise<any> {
  const created = await createOrderRest(suite.who, event, { lines: lines.map(([ticket_id, amount]) => ({ ticket_id, amount })) });
  expect(created.status, created.text).toBe(201);
  const confirmed = await orderMoveRest(suite.who, created.body.guid, 'confirm');
  expect(confirmed.status, confirmed.text).toBe(200);
  return confirmed.body;
}

/** A confirmed reservation of `amount` units of `ticket`: its guid and barcodes. */
async function soldReservation(ticket: string, amount = 1): Promise<{ guid: string; codes: string[] }> {
  const reserved = await reserve(suite.who, ticket, { amount });
  expect(reserved.status, reserved.text).toBe(201);
  const confirmed = await moveRest(suite.who, reserved.body.guid, 'confirm');
  expect(confirmed.status, confirmed.text).toBe(200);
  return { guid: confirmed.body.guid, codes: confirmed.body.barcodes };
}

interface Round {
  ticket: string;
  guid: string;
  code: string;
}

/** Rounds of one event: `perTicket[i]` confirmed reservations of 1 unit of the i-th new ticket (several: the ticket's moves batch). */
async function rounds(perTicket: number[]): Promise<{ event: string; rounds: Round[]; tickets: string[] }> {
  const event = await newEvent(suite.who);
  const tickets = await Promise.all(perTicket.map(async (n) => (await newTicket(suite.who, { available_stock: n + 2 }, event)).guid));
  const sold = await Promise.all(perTicket.flatMap((n, t) => Array.from({ length: n }, async () => ({ ticket: tickets[t]!, ...(await soldReservation(tickets[t]!)) }))));
  return { event, tickets, rounds: sold.map(({ ticket, guid, codes }) => ({ ticket, guid, code: codes[0]! })) };
}

/** After the race: each barcode scanned or cancelled as its winner says, never both, and each ticket's counters exactly the winners'. */
async function expectWinners(race: { rounds: Round[]; tickets: string[] }, winners: Array<'scan' | 'cancel'>): Promise<void> {
  const rows = (await suite.db('barcodes').whereIn('barcode', race.rounds.map((r) => r.code)).select('barcode', 'scanned_at', 'cancelled_at')) as Array<Record<string, unknown>>;
  const states = race.rounds.map((r) => rows.filter((row) => row.barcode === r.code).map((row) => `${row.scanned_at != null ? 'scanned' : ''}${row.cancelled_at != null ? 'cancelled' : ''}`));
  expect(states).toEqual(winners.map((w) => [w === 'scan' ? 'scanned' : 'cancelled']));
  const lines = (await suite.db('reservations').whereIn('guid', race.rounds.map((r) => r.guid)).select('guid', 'state')) as Array<{ guid: string; state: string }>;
  expect(race.rounds.map((r) => lines.find((l) => l.guid === r.guid)?.state)).toEqual(winners.map((w) => (w === 'scan' ? 'confirmed' : 'cancelled')));
  for (const ticket of race.tickets) {
    const mine = race.rounds.map((r, i) => (r.ticket === ticket ? winners[i] : undefined)).filter((w) => w !== undefined);
    const read = await readTicket(suite.who, ticket);
    expect({ ticket, scanned: read.scanned_count, sold: read.sold_count }).toEqual({ ticket, scanned: mine.filter((w) => w === 'scan').length, sold: mine.filter((w) => w === 'scan').length });
    await expectInvariant(suite.who, suite.db, ticket);
  }
}

describe('a scan and a cancellation of the same barcode racing', { timeout: 120_000 }, () => {
  it('over REST, 30 rounds at once on batched and lone tickets: in each, exactly one of scan 201 / cancel 409 already_scanned or cancel 200 / scan 409 barcode_cancelled', async () => {
    // Two tickets of 10 sales each (their scans and cancels meet under one lock, in batches) and ten tickets of one.
    const race = await rounds([10, 10, ...Array<number>(10).fill(1)]);
    const pairs = await Promise.all(
      race.rounds.map(async (r, i) => {
        const scan = () => patiently(() => scanRest(suite.who, race.event, r.code));
        // Half name the barcode, half cancel the whole (one-unit) reservation; the cancel leaves 0 to 5 ms after the scan.
        const cancel = () => after(i % 6, () => patiently(() => moveRest(suite.who, r.guid, 'cancel', i % 4 < 2 ? { barcodes: [r.code] } : {})));
        if (i % 2 === 0) return Promise.all([scan(), cancel()]);
        const [c, s] = await Promise.all([cancel(), scan()]);
        return [s, c] as const;
      }),
    );
    const winners = pairs.map(([scan, cancel], i) => {
      const seen = `round ${i} (${race.rounds[i]!.code}): scan ${scan.status} ${scan.text} / cancel ${cancel.status} ${cancel.text}`;
      expect(['201 | 409 already_scanned', '409 barcode_cancelled | 200'], seen).toContain(`${outcome(scan)} | ${outcome(cancel)}`);
      if (scan.status === 201) {
        expectConflict(cancel, 'already_scanned');
        expect(cancel.body.barcode, seen).toBe(race.rounds[i]!.code);
        return 'scan' as const;
      }
      expectConflict(scan, 'barcode_cancelled');
      expect(scan.body.cancelled_at, seen).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(cancel.body.state, seen).toBe('cancelled');
      return 'cancel' as const;
    });
    await expectWinners(race, winners);
  });

  it('over gRPC, 10 rounds at once: ScanBarcode or CancelReservation wins, the other is refused with its reason', async () => {
    const client = grpcClient(suite.stack);
    try {
      const race = await rounds([4, 4, 1, 1]);
      const md = () => meta(suite.who.token);
      // One scan first, so that the race does not meet the scan path's first call.
      const warmTicket = (await newTicket(suite.who, {}, race.event)).guid;
      const warm = await soldReservation(warmTicket);
      expect((await grpcCall(client.scanBarcode.bind(client), { event_id: race.event, barcode: warm.codes[0]! }, md())).barcode).toBe(warm.codes[0]);
      const pairs = await Promise.all(
        race.rounds.map((r, i) =>
          Promise.allSettled([
            // Even rounds give the scan a head start of a few milliseconds, odd ones the cancel.
            after(i % 2 ? i % 6 : 0, () => grpcCall(client.scanBarcode.bind(client), { event_id: race.event, barcode: r.code }, md())),
            after(i % 2 ? 0 : i % 6, () => grpcCall(client.cancelReservation.bind(client), { guid: r.guid, barcodes: i % 4 < 2 ? [r.code] : [] }, md())),
          ]),
        ),
      );
      const reasonOf = (result: PromiseSettledResult<unknown>) => (result.status === 'fulfilled' ? 'ok' : (readErrorDetails(result.reason).reason ?? `code ${result.reason.code}: ${result.reason.details}`));
      const winners = pairs.map(([scan, cancel], i) => {
        const seen = `round ${i}: scan ${reasonOf(scan)} / cancel ${reasonOf(cancel)}`;
        expect(['ok | already_scanned', 'barcode_cancelled | ok'], seen).toContain(`${reasonOf(scan)} | ${reasonOf(cancel)}`);
        if (scan.status === 'fulfilled') {
          expect(readErrorDetails((cancel as PromiseRejectedResult).reason).reasonMetadata, seen).toMatchObject({ barcode: race.rounds[i]!.code });
          return 'scan' as const;
        }
        expect(readErrorDetails(scan.reason).reasonMetadata?.cancelled_at, seen).toMatch(/^\d{4}-/);
        return 'cancel' as const;
      });
      await expectWinners(race, winners);
      await expectInvariant(suite.who, suite.db, warmTicket);
    } finally {
      client.close();
    }
  });
});

describe('concurrent cancellations of the same units', { timeout: 120_000 }, () => {
  it('8 identical whole-order cancels of an order of two tickets: one 200, the rest 409; one cancellation, refunded once, sold_count dropped once', async () => {
    const event = await newEvent(suite.who);
    const paid = (await newTicket(suite.who, { available_stock: 10, min_price: 12.5 }, event)).guid;
    const free = (await newTicket(suite.who, { available_stock: 10 }, event)).guid;
    await soldReservation(paid);
    const order = await soldOrder(event, [[paid, 2], [free, 1]]);
    const answers = await Promise.all(Array.from({ length: 8 }, () => patiently(() => orderMoveRest(suite.who, order.guid, 'cancel', { reason: 'Refund' }))));
    const seen = answers.map((a) => `${a.status} ${a.text}`).join('\n');
    expect(answers.filter((a) => a.status === 200), seen).toHaveLength(1);
    for (const refused of answers.filter((a) => a.status !== 200)) {
      expect(['409 invalid_transition', '409 barcode_cancelled'], seen).toContain(outcome(refused));
      expectConflict(refused, refused.body.code);
    }
    const won = answers.find((a) => a.status === 200)!.body;
    expect(won.state).toBe('cancelled');
    expect(won.cancellations).toHaveLength(1);
    expect(won.cancellations[0]).toMatchObject({ barcodes: codesOf(order), refund_amount: 25, cancellation_fee: 0 });
    expect(won.refunded_total).toBe(25);
    const read = (await readOrderRest(suite.who, order.guid)).body;
    expect(read).toEqual(won);
    expect(await suite.db('cancellations').where('sale_id', order.guid).count({ n: '*' }).then((rows: any[]) => Number(rows[0].n))).toBe(1);
    expect(await suite.db('webhook_events').where('type', 'order.cancelled').whereRaw('data like ?', [`%${order.guid}%`]).count({ n: '*' }).then((rows: any[]) => Number(rows[0].n))).toBe(1);
    expect(await expectInvariant(suite.who, suite.db, paid)).toEqual({ sold: 1, reserved: 0, pending: 0 });
    expect(await expectInvariant(suite.who, suite.db, free)).toEqual({ sold: 0, reserved: 0, pending: 0 });
  });

  it('8 partial cancels naming overlapping barcodes of one reservation: the 200s are disjoint, their units sum to the barcodes cancelled, each refusal names one of them', async () => {
    const { guid: ticket } = await newTicket(suite.who, { available_stock: 10 });
    await soldReservation(ticket, 2);
    const sale = await soldReservation(ticket, 6);
    const sets = [[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 0], [0, 3], [1, 4]].map((set) => set.map((i) => sale.codes[i]!));
    const answers = await Promise.all(sets.map((barcodes) => patiently(() => moveRest(suite.who, sale.guid, 'cancel', { barcodes }))));
    const seen = answers.map((a, i) => `[${sets[i]!.join(',')}] ${a.status} ${a.text}`).join('\n');
    const wonSets = sets.filter((_, i) => answers[i]!.status === 200);
    const cancelledByWinners = wonSets.flat();
    expect(wonSets.length, seen).toBeGreaterThan(0);
    expect(new Set(cancelledByWinners).size, `the accepted sets overlap:\n${seen}`).toBe(cancelledByWinners.length);
    const cancelled = (await suite.db('barcodes').where('reservation_id', sale.guid).whereNotNull('cancelled_at').select('barcode')) as Array<{ barcode: string }>;
    expect(cancelled.map((row) => row.barcode).sort(), seen).toEqual([...cancelledByWinners].sort());
    const whole = cancelledByWinners.length === 6;
    answers.forEach((answer, i) => {
      if (answer.status === 200) return;
      // Refused only because another accepted cancel took one of its barcodes (or, once all six went, the whole sale).
      if (answer.body?.code === 'invalid_transition' && whole) return expectConflict(answer, 'invalid_transition');
      expectConflict(answer, 'barcode_cancelled');
      expect(sets[i], seen).toContain(answer.body.barcode);
      expect(cancelledByWinners, seen).toContain(answer.body.barcode);
    });
    expect(await suite.db('cancellations').where('sale_id', sale.guid).count({ n: '*' }).then((rows: any[]) => Number(rows[0].n))).toBe(wonSets.length);
    expect(await suite.db('reservations').where('guid', sale.guid).first()).toMatchObject({ state: whole ? 'cancelled' : 'confirmed' });
    expect(Number((await suite.db('reservations').where('guid', sale.guid).first()).cancelled_amount)).toBe(cancelledByWinners.length);
    expect(await expectInvariant(suite.who, suite.db, ticket)).toEqual({ sold: 2 + 6 - cancelledByWinners.length, reserved: 0, pending: 0 });
  });
});

describe('a cancellation racing other moves of its tickets', { timeout: 120_000 }, () => {
  it('racing the expiry of another order on the same two tickets: the expired order returns its units once, the cancelled one its own', async () => {
    const setups = await Promise.all(
      [0, 1, 2, 3].map(async () => {
        const event = await newEvent(suite.who);
        const t1 = (await newTicket(suite.who, { available_stock: 10 }, event)).guid;
        const t2 = (await newTicket(suite.who, { available_stock: 10 }, event)).guid;
        const a = await soldOrder(event, [[t1, 4], [t2, 1]]);
        const b = await createOrderRest(suite.who, event, { lines: [{ ticket_id: t2, amount: 2 }, { ticket_id: t1, amount: 6 }], ttl_seconds: 60 });
        expect(b.status, b.text).toBe(201);
        expect(await readTicket(suite.who, t1)).toMatchObject({ sold_count: 4, reserved_count: 6 });
        return { t1, t2, a, b: b.body };
      }),
    );
    // Move the stack's clock past every order B's expires_at (REST gives it truncated to the second); nothing has settled it yet.
    suite.stack.clock.advanceTo(Math.max(...setups.map((s) => Date.parse(s.b.expires_at))) + 1000);
    const raced = await Promise.all(
      setups.map((s) =>
        Promise.all([
          patiently(() => orderMoveRest(suite.who, s.a.guid, 'cancel')),
          // Each fits only once B's units are back: B is due, so whichever move locks a ticket first expires it.
          patiently(() => reserve(suite.who, s.t1, { amount: 6 })),
          patiently(() => reserve(suite.who, s.t2, { amount: 8 })),
          readOrderRest(suite.who, s.b.guid),
        ]),
      ),
    );
    for (const [i, [cancel, onT1, onT2, readB]] of raced.entries()) {
      const seen = `round ${i}: cancel ${cancel.status} ${cancel.text}\nreserve t1 ${onT1.status} ${onT1.text}\nreserve t2 ${onT2.status} ${onT2.text}\nread B ${readB.status} ${readB.text}`;
      expect([cancel.status, onT1.status, onT2.status, readB.status], seen).toEqual([200, 201, 201, 200]);
      expect([cancel.body.state, readB.body.state], seen).toEqual(['cancelled', 'expired']);
      const s = setups[i]!;
      expect((await readOrderRest(suite.who, s.b.guid)).body.state).toBe('expired');
      expect(await expectInvariant(suite.who, suite.db, s.t1)).toEqual({ sold: 0, reserved: 6, pending: 0 });
      expect(await expectInvariant(suite.who, suite.db, s.t2)).toEqual({ sold: 0, reserved: 8, pending: 0 });
      for (const held of [onT1, onT2]) expect((await moveRest(suite.who, held.body.guid, 'release')).status).toBe(200);
      for (const t of [s.t1, s.t2]) expect(await expectInvariant(suite.who, suite.db, t)).toEqual({ sold: 0, reserved: 0, pending: 0 });
    }
  });

  it('a multi-ticket order cancelled while new orders and reservations of its tickets are created and confirmed: no deadlock, each call 2xx or insufficient_stock, counters exact', async () => {
    const event = await newEvent(suite.who);
    const t1 = (await newTicket(suite.who, { available_stock: 30 }, event)).guid;
    const t2 = (await newTicket(suite.who, { available_stock: 30 }, event)).guid;
    // Six sold orders: t1 1 or 2 units, t2 1, their lines in either order.
    const sold = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => soldOrder(event, i % 2 ? [[t1, 2], [t2, 1]] : [[t2, 1], [t1, 1]])));
    const unitsOn = (order: any, ticket: string) => (order.lines as any[]).find((line) => line.ticket_id === ticket).amount as number;
    const calls: string[] = [];
    const expected = { [t1]: 9, [t2]: 6 };
    const take = (ticket: string, by: number) => (expected[ticket]! += by);
    const cancels = sold.map(async (order, i) => {
      // Even: the whole order; odd: one barcode of each line.
      const barcodes = i % 2 ? (order.lines as any[]).map((line) => line.barcodes[0].code) : undefined;
      const res = await patiently(() => orderMoveRest(suite.who, order.guid, 'cancel', barcodes ? { barcodes } : {}));
      calls.push(`cancel ${i}: ${res.status} ${res.text}`);
      expect(res.status, res.text).toBe(200);
      for (const t of [t1, t2]) take(t, -(barcodes ? 1 : unitsOn(order, t)));
    });
    const orders = Array.from({ length: 12 }, async (_, i) => {
      const lines = [{ ticket_id: t1, amount: 2 }, { ticket_id: t2, amount: 2 }];
      const created = await patiently(() => createOrderRest(suite.who, event, { lines: i % 2 ? lines : [...lines].reverse() }));
      calls.push(`order ${i}: ${created.status} ${created.text}`);
      if (created.status !== 201) return expectConflict(created, 'insufficient_stock');
      const confirmed = await patiently(() => orderMoveRest(suite.who, created.body.guid, 'confirm'));
      expect(confirmed.status, confirmed.text).toBe(200);
      for (const t of [t1, t2]) take(t, 2);
    });
    const reservations = Array.from({ length: 20 }, async (_, i) => {
      const ticket = i % 2 ? t1 : t2;
      const held = await patiently(() => reserve(suite.who, ticket, { amount: 1 }));
      calls.push(`reservation ${i}: ${held.status} ${held.text}`);
      if (held.status !== 201) return expectConflict(held, 'insufficient_stock');
      const confirmed = await patiently(() => moveRest(suite.who, held.body.guid, 'confirm'));
      expect(confirmed.status, confirmed.text).toBe(200);
      take(ticket, 1);
    });
    const settled = await Promise.allSettled([...cancels, ...orders, ...reservations]);
    expect(settled.filter((s) => s.status === 'rejected').map((s) => String((s as PromiseRejectedResult).reason)), calls.join('\n')).toEqual([]);
    for (const order of sold) expect((await readOrderRest(suite.who, order.guid)).body.cancellations).toHaveLength(1);
    for (const t of [t1, t2]) {
      const counters = await expectInvariant(suite.who, suite.db, t);
      expect(counters, calls.join('\n')).toEqual({ sold: expected[t], reserved: 0, pending: 0 });
    }
  });
});

describe('a partial then a full cancellation', { timeout: 60_000 }, () => {
  it('of an order of a paid and a free ticket: exact refunds, the second takes exactly the barcodes left, counters exact after each step', async () => {
    const event = await newEvent(suite.who);
    const paid = (await newTicket(suite.who, { available_stock: 10, min_price: 12.5 }, event)).guid;
    const free = (await newTicket(suite.who, { available_stock: 10 }, event)).guid;
    const order = await soldOrder(event, [[paid, 3], [free, 2]]);
    const [p0, p1, p2, f0, f1] = codesOf(order) as [string, string, string, string, string];
    expect(await expectInvariant(suite.who, suite.db, paid)).toEqual({ sold: 3, reserved: 0, pending: 0 });

    const first = await orderMoveRest(suite.who, order.guid, 'cancel', { barcodes: [f1, p0], cancellation_fee: 1.25 });
    expect(first.status, first.text).toBe(200);
    expect(first.body.state).toBe('confirmed');
    const [one] = first.body.cancellations;
    expect(typeof one.refund_amount).toBe('number');
    expect(one).toMatchObject({ cancellation_fee: 1.25, refund_amount: 11.25, stock_returned: true });
    expect([...one.barcodes].sort()).toEqual([p0, f1].sort());
    expect(first.body.refunded_total).toBe(11.25);
    expect(await expectInvariant(suite.who, suite.db, paid)).toEqual({ sold: 2, reserved: 0, pending: 0 });
    expect(await expectInvariant(suite.who, suite.db, free)).toEqual({ sold: 1, reserved: 0, pending: 0 });

    const rest = await orderMoveRest(suite.who, order.guid, 'cancel', { return_stock: false });
    expect(rest.status, rest.text).toBe(200);
    expect(rest.body.state).toBe('cancelled');
    expect(rest.body.cancellations[0]).toEqual(one);
    const two = rest.body.cancellations[1];
    expect(typeof two.refund_amount).toBe('number');
    expect(two).toMatchObject({ barcodes: [p1, p2, f0], cancellation_fee: 0, refund_amount: 25, stock_returned: false });
    expect(rest.body.refunded_total).toBe(36.25);
    expect(await readTicket(suite.who, paid)).toMatchObject({ sold_count: 0, available_stock: 8 });
    expect(await readTicket(suite.who, free)).toMatchObject({ sold_count: 0, available_stock: 9 });
    // Nothing is left to cancel: refused, counters as they were (never below 0).
    expectConflict(await orderMoveRest(suite.who, order.guid, 'cancel'), 'invalid_transition');
    expectConflict(await orderMoveRest(suite.who, order.guid, 'cancel', { barcodes: [p1] }), 'invalid_transition');
    for (const t of [paid, free]) expect(await expectInvariant(suite.who, suite.db, t)).toEqual({ sold: 0, reserved: 0, pending: 0 });
  });
});

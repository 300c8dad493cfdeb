/**
 * One endpoint keeps up with a rush (issue 22.6, docs/webhooks.md "Throughput and order"): a
 * receiver that takes 200 ms per request gets many events a second (enough in flight for 100/s),
 * because the worker sends to one endpoint several at once (WEBHOOK_CONCURRENCY_PER_ENDPOINT, at most);
 * every event arrives, none twice, and `sequence` orders them: a send starts only after every
 * earlier one of the endpoint has started, so when an event arrives, fewer than the limit of
 * earlier ones can still be missing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Event } from '../../lib/gen/ticketing/v1/event.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import { EventService } from '../../services/ticket/catalogue/event-service.js';
import { openWorkerDatabase, startWebhookWorker } from '../../services/webhooks/worker.js';
import { IdempotentCreation } from '../../services/ticket/idempotency/idempotent-creation.js';
import { EventStore } from '../../services/ticket/store/event-store.js';
import { IdempotencyStore } from '../../services/ticket/store/idempotency-store.js';
import { ticketDatabase } from '../support/stock.js';
import { bearer, request, signUpAndLogin } from '../support/http.js';
import type { TestStack } from '../support/stack.js';
import { startSuite } from '../support/suite.js';
import { startReceiver, type TestReceiver } from './receiver.js';

const PER_ENDPOINT = 32;
const RECEIVER_MS = 200;
const EVENTS = 600;

let stack: TestStack;
const receivers: TestReceiver[] = [];

beforeAll(async () => {
  // No worker in the stack: the test starts one once every event is committed, so what is measured is the delivery alone.
  ({ stack } = await startSuite({
    env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE: '100ms,200ms', WEBHOOK_CONCURRENCY_PER_ENDPOINT: String(PER_ENDPOINT), WEBHOOK_WORKER_IN_STACK: 'false' },
  }));
});
afterAll(() => stack?.stop());
afterEach(async () => {
  for (const receiver of receivers.splice(0)) await receiver.close();
});

describe('webhooks: one endpoint keeps up with a rush', () => {
  it(`a receiver taking ${RECEIVER_MS} ms gets ${EVENTS} events with >= 20 in flight, each once, none missing, at most ${PER_ENDPOINT} in flight, ordered by sequence`, async () => {
    const account = await signUpAndLogin(stack);
    const receiver = await startReceiver();
    receivers.push(receiver);
    const created = await request(`${stack.baseUrl}/webhooks`, { method: 'POST', headers: bearer(account.accessToken), json: { url: receiver.url, events: ['event.created'] } });
    expect(created.status, created.text).toBe(201);
    receiver.secret = created.body.secret;
    let inFlight = 0;
    let mostInFlight = 0;
    const arrivals: number[] = [];
    const arrivalSequences: number[] = [];
    receiver.answer = async (received) => {
      arrivals.push(performance.now());
      arrivalSequences.push(received.body.sequence);
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, RECEIVER_MS));
      inFlight--;
      return 200;
    };

    // The ticket service's own creation code on the stack's database (the transport is not under test).
    const db = ticketDatabase(stack);
    const events = new EventService(new EventStore(db), new IdempotentCreation(db, new IdempotencyStore(db)));
    const caller = { userId: account.user.guid, companyIds: [account.companyId] };
    const committed: string[] = [];
    try {
      const work = Array.from({ length: EVENTS }, (_, i) => i);
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          for (let i = work.shift(); i !== undefined; i = work.shift()) {
            committed.push((await events.create(caller, { event: Event.fromPartial({ name: `Rush ${i}` }), request_id: '' }, false)).guid);
          }
        }),
      );
    } finally {
      await db.destroy();
    }
    // The worker as `npm start` runs it (on SQLite it shares the service's connection).
    const config = loadConfig(stack.env);
    const logger = createLogger('webhooks', 'warn');
    const workerDb = openWorkerDatabase(config, logger, stack.running.ticket.db);
    let cpuShare = 0;
    const cpuBefore = process.cpuUsage();
    const wallBefore = performance.now();
    const worker = startWebhookWorker(workerDb, config, logger);
    try {
      await receiver.waitFor((all) => all.length >= EVENTS, 60_000);
      const cpu = process.cpuUsage(cpuBefore);
      cpuShare = (cpu.user + cpu.system) / 1000 / (performance.now() - wallBefore);
      await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      await worker.stop();
      if (workerDb !== stack.running.ticket.db) await workerDb.destroy();
    }

    // None missing, none twice (a healthy receiver: no retry, no lease run out).
    expect(receiver.received.map((r) => r.body.data.guid).sort()).toEqual([...committed].sort());
    expect(receiver.requests).toBe(EVENTS);
    // In parallel, within the bound, and enough at once for 100/s at 200 ms each (20).
    expect(mostInFlight).toBeLessThanOrEqual(PER_ENDPOINT);
    expect(mostInFlight).toBeGreaterThanOrEqual(100 * (RECEIVER_MS / 1000));
    // The rate over the whole run, from the first request to the last answer. Generous: one at a
    // time, 200 ms each, can never pass 5/s; the 100/s the design allows needs a machine that
    // gives this process the CPU it asks for (the share it got is printed).
    const seconds = (arrivals[arrivals.length - 1]! + RECEIVER_MS - arrivals[0]!) / 1000;
    const rate = EVENTS / seconds;
    console.log(`${EVENTS} events to one ${RECEIVER_MS} ms receiver in ${seconds.toFixed(2)} s: ${Math.round(rate)}/s, at most ${mostInFlight} in flight, this process on ${Math.round(cpuShare * 100)} % of a core`);
    expect(rate).toBeGreaterThanOrEqual(25);

    // Order: sends start in sequence order, at most PER_ENDPOINT at once, so when an event
    // arrives fewer than PER_ENDPOINT of the earlier ones are still on their way.
    const sequences = arrivalSequences;
    const rank = new Map([...sequences].sort((a, b) => a - b).map((sequence, i) => [sequence, i]));
    let worstMissing = 0;
    const seen = new Set<number>();
    for (const sequence of sequences) {
      const r = rank.get(sequence)!;
      seen.add(r);
      let missing = 0;
      for (let earlier = 0; earlier < r; earlier++) if (!seen.has(earlier)) missing++;
      worstMissing = Math.max(worstMissing, missing);
    }
    expect(rank.size).toBe(EVENTS);
    expect(worstMissing).toBeLessThan(PER_ENDPOINT);
  }, 120_000);
});

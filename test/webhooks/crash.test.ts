/**
 * Nothing only in memory: the worker killed between sending and recording (redelivered with
 * the same webhook-id); a commit with no worker alive (the outbox row is part of the commit,
 * so whatever dies after it, the event is there for a worker started later); two workers at
 * once (nothing lost, and one endpoint served by one worker at a time). The workers
 * run as their own processes, as in compose.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bearer, request, signUpAndLogin, type Account } from '../support/http.js';
import type { TestStack } from '../support/stack.js';
import { startSuite } from '../support/suite.js';
import { spawnNode, type RunningProcess } from '../ops/processes.js';
import { ticketDatabase } from '../support/stock.js';
import { startReceiver, type Received, type TestReceiver } from './receiver.js';

const WEBHOOK_ENV = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE: '100ms,200ms', WEBHOOK_POLL_INTERVAL_MS: '100', WEBHOOK_TIMEOUT_MS: '1000' };

/**
 * For the tests of order and concurrency, not of crashes: the default attempt timeout (and so a
 * 12 s lease), so that a loaded machine seldom makes an attempt time out or a lease run out.
 */
const UNHURRIED = { WEBHOOK_TIMEOUT_MS: '10000' };

let stack: TestStack;
const receivers: TestReceiver[] = [];
const workers: RunningProcess[] = [];

beforeAll(async () => {
  // No worker inside the stack: the tests run theirs.
  ({ stack } = await startSuite({ env: { ...WEBHOOK_ENV, WEBHOOK_WORKER_IN_STACK: 'false' } }));
});
afterAll(() => stack?.stop());
afterEach(async () => {
  for (const worker of workers.splice(0)) {
    if (worker.running) worker.child.kill('SIGKILL');
    await worker.exited;
  }
  for (const receiver of receivers.splice(0)) await receiver.close();
});

async function startWorker(env: Record<string, string> = {}): Promise<RunningProcess> {
  const worker = spawnNode('webhooks', 'services/webhooks/worker.ts', [], { ...stack.env, LOG_LEVEL: 'info', ...env });
  workers.push(worker);
  await worker.waitForOutput(/webhook worker running/);
  return worker;
}

/** webhook_attempts_total{outcome="delivered"} of a worker process, from the port it logged. */
async function deliveredCount(worker: RunningProcess): Promise<number> {
  const listening = worker.output.map((line) => /"port":(\d+).*metrics listening/.exec(line)).find(Boolean);
  expect(listening, worker.tail()).toBeTruthy();
  const text = await (await fetch(`http://127.0.0.1:${listening![1]}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('webhook_attempts_total{outcome="delivered"} '));
  return line ? Number(line.split(' ')[1]) : 0;
}

async function receiverFor(account: Account): Promise<{ receiver: TestReceiver; webhook: any }> {
  const receiver = await startReceiver();
  receivers.push(receiver);
  const res = await request(`${stack.baseUrl}/webhooks`, { method: 'POST', headers: bearer(account.accessToken), json: { url: receiver.url, events: ['*'] } });
  expect(res.status, res.text).toBe(201);
  receiver.secret = res.body.secret;
  return { receiver, webhook: res.body };
}

/**
 * At least once (docs/webhooks.md "Crashes"): every event of `guids` arrived, and an event that
 * arrived more than once (a worker stalled past its lease, WEBHOOK_TIMEOUT_MS + 2 s, which a
 * loaded machine can do, leaves its deliveries to the other worker) came again as the very same
 * event: its webhook-id and body. Gives each event's copies, by guid.
 */
function expectAtLeastOnce(receiver: TestReceiver, guids: string[]): Map<string, Received[]> {
  const arrivals = new Map<string, Received[]>();
  for (const received of receiver.received) arrivals.set(received.body.data.guid, [...(arrivals.get(received.body.data.guid) ?? []), received]);
  expect(new Set(arrivals.keys())).toEqual(new Set(guids));
  for (const [guid, copies] of arrivals) {
    expect(new Set(copies.map((copy) => copy.id)).size, `the webhook-ids of event ${guid}`).toBe(1);
    for (const copy of copies) expect(copy.body, `a copy of event ${guid}`).toEqual(copies[0]!.body);
  }
  expect(receiver.ids(), 'one webhook-id per event').toHaveLength(guids.length);
  return arrivals;
}

const createEvent = async (account: Account, name: string) =>
  (await request(`${stack.baseUrl}/event`, { method: 'POST', headers: bearer(account.accessToken), json: { name } })).body as { guid: string };

/**
 * One endpoint served by two workers started with `env`, its receiver answering each delivery
 * after `answerMs`: `lanes` writers at once each create `perLane` events one after another, and
 * every event is waited for. Gives the events' guids (within a lane in the order of their
 * commits) and the most deliveries that were in flight at once.
 */
async function deliverByTwoWorkers(env: Record<string, string>, load: { answerMs: number; lanes: number; perLane: number; name: string }) {
  const account = await signUpAndLogin(stack);
  const { receiver, webhook } = await receiverFor(account);
  let inFlight = 0;
  let mostInFlight = 0;
  receiver.answer = async () => {
    mostInFlight = Math.max(mostInFlight, ++inFlight);
    await new Promise((resolve) => setTimeout(resolve, load.answerMs));
    inFlight--;
    return 200;
  };
  await Promise.all([startWorker(env), startWorker(env)]);
  const guids: string[] = [];
  await Promise.all(
    Array.from({ length: load.lanes }, async (_, lane) => {
      for (let i = 0; i < load.perLane; i++) guids.push((await createEvent(account, `${load.name} ${lane}.${i}`)).guid);
    }),
  );
  await receiver.waitFor((all) => new Set(all.map((r) => r.body.data.guid)).size >= guids.length, 30_000);
  return { account, webhook, receiver, guids, mostInFlight };
}

describe('webhooks survive crashes', () => {
  it('a worker killed after sending, before recording: another worker sends the event again, same webhook-id', async () => {
    const account = await signUpAndLogin(stack);
    const { receiver, webhook } = await receiverFor(account);
    const first = await startWorker();
    const seen: string[] = [];
    receiver.answer = async (received) => {
      seen.push(received.id);
      if (seen.length === 1) {
        first.child.kill('SIGKILL');
        await first.exited;
      }
      return 200;
    };
    const event = await createEvent(account, 'Crash between send and record');
    await receiver.waitFor(() => seen.length === 1);
    await startWorker();
    // The dead worker's lease runs out (timeout + 2 s), then the event goes again.
    await receiver.waitFor(() => seen.length === 2, 15_000);
    expect(seen[1]).toBe(seen[0]);
    expect(receiver.received.map((r) => r.body.data.guid)).toEqual([event.guid, event.guid]);
    let log: any[] = [];
    for (const until = Date.now() + 10_000; log.length === 0 && Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 50))) {
      log = (await request(`${stack.baseUrl}/webhooks/${webhook.guid}/deliveries`, { headers: bearer(account.accessToken) })).body;
    }
    // Only the recorded attempt is in the log; the one cut short never was.
    expect(log.map((d: any) => [d.event_id, d.response_status])).toEqual([[seen[0], 200]]);
  }, 60_000);

  it('right after a commit, with no worker alive: the event is already in the outbox (the commit wrote it) and a worker started later delivers it', async () => {
    const account = await signUpAndLogin(stack);
    const { receiver } = await receiverFor(account);
    const event = await createEvent(account, 'Committed, then nobody home');
    const db = ticketDatabase(stack);
    try {
      const rows = await db('webhook_events').where('company_id', account.companyId).where('type', 'event.created');
      expect(rows.map((row) => JSON.parse(row.data).guid)).toEqual([event.guid]);
    } finally {
      await db.destroy();
    }
    await startWorker();
    await receiver.waitFor((all) => all.length === 1);
    expect(receiver.received[0]!.body.data.guid).toBe(event.guid);
  }, 30_000);

  it('two workers at once: every event delivered at least once, a duplicate as the same webhook-id, sequence rising with commit order', async () => {
    const account = await signUpAndLogin(stack);
    const { receiver } = await receiverFor(account);
    await Promise.all([startWorker(), startWorker()]);
    // Each lane's events in the order of their commits.
    const lanes = await Promise.all(
      Array.from({ length: 10 }, async (_, lane) => {
        const committed: string[] = [];
        for (let i = 0; i < 20; i++) committed.push((await createEvent(account, `Two workers ${lane}.${i}`)).guid);
        return committed;
      }),
    );
    const guids = lanes.flat();
    await receiver.waitFor((all) => new Set(all.map((r) => r.body.data.guid)).size >= guids.length, 30_000);
    const arrivals = expectAtLeastOnce(receiver, guids);
    // The order a receiver relies on: sequence rises with commit order.
    const sequenceOf = (guid: string) => arrivals.get(guid)![0]!.body.sequence;
    for (const lane of lanes) {
      const sequences = lane.map(sequenceOf);
      expect(sequences, 'sequence in the order of the commits').toEqual([...sequences].sort((a, b) => a - b));
      expect(new Set(sequences).size, 'one sequence per event').toBe(sequences.length);
    }
    console.info(`two workers at once: ${guids.length} events, ${receiver.received.length - guids.length} sent again after a lease ran out`);
    // Each worker process serves its own Prometheus /metrics; together they count every delivery.
    const delivered = await Promise.all(workers.map(deliveredCount));
    expect(delivered.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(guids.length);
  }, 60_000);

  it('two workers, one endpoint, WEBHOOK_CONCURRENCY_PER_ENDPOINT=1: one delivery at a time, in the order of the commits as far as retries allow', async () => {
    const { account, webhook, receiver, guids, mostInFlight } = await deliverByTwoWorkers({ ...UNHURRIED, WEBHOOK_CONCURRENCY_PER_ENDPOINT: '1' }, { answerMs: 20, lanes: 1, perLane: 40, name: 'In line' });
    expect(mostInFlight, 'deliveries to the endpoint in flight at once').toBe(1);
    const arrivals = expectAtLeastOnce(receiver, guids);
    // In the order of the commits "as far as retries allow" (docs/webhooks.md "Throughput and
    // order"): a failed attempt waits for its retry while later events go on, and an event sent
    // again after a lease ran out comes twice. Every other event arrives in commit order.
    const log = (await request(`${stack.baseUrl}/webhooks/${webhook.guid}/deliveries`, { headers: bearer(account.accessToken) })).body as Array<{ event_id: string; attempt: number; response_status: number | null; error: string | null }>;
    const retried = new Set(log.filter((d) => d.attempt > 1).map((d) => d.event_id));
    const plain = (guid: string) => arrivals.get(guid)!.length === 1 && !retried.has(arrivals.get(guid)![0]!.id);
    const arrivalOrder = receiver.ids().map((id) => receiver.received.find((r) => r.id === id)!.body.data.guid);
    const attempts = log.map((d) => `${d.event_id.slice(0, 8)} #${d.attempt} ${d.response_status ?? d.error}`).join(', ');
    expect(arrivalOrder.filter(plain), `the events sent once, by arrival; attempts: ${attempts}`).toEqual(guids.filter(plain));
    expect(guids.filter(plain).length, 'most events go once, in order').toBeGreaterThan(guids.length / 2);
  }, 60_000);

  it('two workers, one endpoint, WEBHOOK_CONCURRENCY_PER_ENDPOINT=4: never more than 4 in flight (one worker holds the endpoint), each event at least once', async () => {
    const { receiver, guids, mostInFlight } = await deliverByTwoWorkers({ ...UNHURRIED, WEBHOOK_CONCURRENCY_PER_ENDPOINT: '4' }, { answerMs: 50, lanes: 4, perLane: 20, name: 'Four at most' });
    expect(mostInFlight, 'deliveries to the endpoint in flight at once').toBeLessThanOrEqual(4);
    expect(mostInFlight).toBeGreaterThan(1);
    expectAtLeastOnce(receiver, guids);
  }, 60_000);
});

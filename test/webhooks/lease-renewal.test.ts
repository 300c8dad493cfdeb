/**
 * A delivery sent but not recorded yet keeps its lease (docs/webhooks.md "Crashes"): the
 * worker's recording is held past several leases (a store whose recording waits for the test),
 * and a second worker, rounds after the lease would have run out, does not send it again.
 * Released, the recording goes through: delivered once. Both workers run in this process.
 */
import { describe, expect, it } from 'vitest';
import { DeliveryStore } from '../../services/webhooks/delivery-store.js';
import { bearer, request, signUpAndLogin } from '../support/http.js';
import { workerSuiteOfFile } from './worker-suite.js';

const TIMEOUT_MS = 500;
/** The worker's lease: WEBHOOK_TIMEOUT_MS + 2 s (services/webhooks/worker.ts). */
const LEASE_MS = TIMEOUT_MS + 2000;

const suite = workerSuiteOfFile({ WEBHOOK_RETRY_SCHEDULE: '100ms,200ms', WEBHOOK_POLL_INTERVAL_MS: '100', WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) });

/** A store whose recording of delivered attempts waits until `recordNow()`; `held` resolves when the first is waiting. */
class HeldRecording extends DeliveryStore {
  recordNow!: () => void;
  private readonly released = new Promise<void>((resolve) => (this.recordNow = resolve));
  private reached!: () => void;
  readonly held = new Promise<void>((resolve) => (this.reached = resolve));

  override async recordDelivered(...args: Parameters<DeliveryStore['recordDelivered']>): Promise<void> {
    this.reached();
    await this.released;
    return super.recordDelivered(...args);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('webhooks: leases of deliveries waiting to be recorded', () => {
  it('a recording held past several leases: another worker does not send the event again, and it is delivered once released', async () => {
    const { stack, db } = suite;
    const account = await signUpAndLogin(stack);
    const receiver = await suite.startReceiver();
    const created = await request(`${stack.baseUrl}/webhooks`, { method: 'POST', headers: bearer(account.accessToken), json: { url: receiver.url, events: ['event.created'] } });
    expect(created.status, created.text).toBe(201);
    receiver.secret = created.body.secret;

    const heldStore = new HeldRecording(db);
    try {
      suite.startWorker({ store: heldStore });
      const event = await request(`${stack.baseUrl}/event`, { method: 'POST', headers: bearer(account.accessToken), json: { name: 'Sent, not recorded' } });
      expect(event.status, event.text).toBe(201);
      await heldStore.held;
      expect(receiver.received.map((r) => r.body.data.guid)).toEqual([event.body.guid]);

      // The other worker's rounds: two that end after the lease would have run out twice over (the second began after it).
      const unrenewedLeaseGone = Date.now() + 2 * LEASE_MS;
      let roundsAfter = 0;
      suite.startWorker({ onHealthyRound: () => void (Date.now() > unrenewedLeaseGone && roundsAfter++) });
      while (roundsAfter < 2) await sleep(50);
      expect(receiver.received.map((r) => r.body.data.guid), 'sent again by the other worker').toEqual([event.body.guid]);
    } finally {
      heldStore.recordNow();
    }
    const recorded = async () => (await db('webhook_deliveries').where('endpoint_id', created.body.guid).select('status', 'attempts')) as Array<{ status: string; attempts: number }>;
    while ((await recorded()).some((delivery) => delivery.status === 'pending')) await sleep(50);
    expect((await recorded()).map((delivery) => [delivery.status, Number(delivery.attempts)])).toEqual([['delivered', 1]]);
    expect(receiver.requests).toBe(1);
  }, 30_000);
});

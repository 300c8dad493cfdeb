/**
 * The delivery-time safety of PRODUCT.md 10 against a local receiver: no redirect followed, a
 * response-size cap, and the target check again after DNS at delivery. The workers run in this
 * process (the stack runs none), each with the WEBHOOK_ALLOW_PRIVATE_TARGETS its test needs;
 * the name `receiver.test` resolves to 127.0.0.1 through a stand-in resolver.
 */
import { Readable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import type { RunningWorker } from '../../services/webhooks/worker.js';
import { bearer, request, signUpAndLogin, type Account } from '../support/http.js';
import { deliveriesLog } from './deliveries-log.js';
import type { TestReceiver } from './receiver.js';
import { workerSuiteOfFile } from './worker-suite.js';

const RECEIVER_NAME = 'receiver.test';
vi.mock('node:dns/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:dns/promises')>();
  const lookup = ((host: string, options: never) =>
    host === 'receiver.test' ? Promise.resolve([{ address: '127.0.0.1', family: 4 }]) : actual.lookup(host, options)) as typeof actual.lookup;
  return { ...actual, default: { ...actual, lookup }, lookup };
});

// Long, so that an answer the cap did not cut would end at the timeout, long after any attempt that
// the cap ends, however loaded the machine.
const TIMEOUT_MS = 20_000;
// Endpoints on the local receivers are accepted at creation; each test's worker decides at delivery.
const suite = workerSuiteOfFile({ WEBHOOK_RETRY_SCHEDULE: '100ms,200ms,300ms', WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) });

const startWorker = (allowPrivateTargets: boolean): RunningWorker => suite.startWorker({ config: { WEBHOOK_ALLOW_PRIVATE_TARGETS: allowPrivateTargets } });

const api = (account: Account, method: string, path: string, json?: unknown) => request(`${suite.stack.baseUrl}${path}`, { method, headers: bearer(account.accessToken), json });

/** An endpoint of `account` at `url`, the secret given to `to` (the receiver behind it). */
async function endpoint(account: Account, url: string, to: TestReceiver): Promise<string> {
  const res = await api(account, 'POST', '/webhooks', { url, events: ['event.created'] });
  expect(res.status, res.text).toBe(201);
  to.secret = res.body.secret;
  return res.body.guid;
}

describe('webhooks: delivery safety against a local receiver', () => {
  it('a 302 to another local URL is not followed: the attempt fails, recorded with the 302, and the other URL gets nothing', async () => {
    startWorker(true);
    const account = await signUpAndLogin(suite.stack);
    const elsewhere = await suite.startReceiver();
    const redirecting = await suite.startReceiver();
    redirecting.answer = () => ({ status: 302, headers: { location: elsewhere.url } });
    const guid = await endpoint(account, redirecting.url, redirecting);
    elsewhere.secret = redirecting.secret;
    await api(account, 'POST', '/event', { name: 'Redirected' });
    const log = await deliveriesLog(suite.stack, account, guid, (entries) => entries.length >= 2);
    expect(log.length).toBeGreaterThanOrEqual(2);
    for (const attempt of log) expect([attempt.response_status, attempt.error]).toEqual([302, 'HTTP 302']);
    expect(log.at(-1).next_retry_at).not.toBeNull();
    expect(redirecting.requests).toBe(log.length);
    expect(redirecting.received).toEqual([]);
    expect(elsewhere.requests).toBe(0);
  });

  it('an endless answer: the worker stops reading at the cap (hangs up), the attempt ends there, before the timeout, recorded as answered', async () => {
    startWorker(true);
    const account = await signUpAndLogin(suite.stack);
    const endless = await suite.startReceiver();
    let cutOff = false;
    endless.answer = () => {
      const body = new Readable({
        read() {
          this.push(Buffer.alloc(64 * 1024, 'x'));
        },
      });
      body.on('close', () => (cutOff = true));
      return { status: 200, headers: { 'content-type': 'text/plain' }, body };
    };
    const guid = await endpoint(account, endless.url, endless);
    await api(account, 'POST', '/event', { name: 'Endless answer' });
    const log = await deliveriesLog(suite.stack, account, guid, (entries) => entries.length >= 1);
    // Without the cap the endless answer would run into the timeout: no status, "no answer within".
    expect(log.map((d: any) => [d.attempt, d.response_status, d.error, d.next_retry_at])).toEqual([[1, 200, null, null]]);
    expect(log[0].duration_ms, 'the attempt ends at the cap, not at the timeout').toBeLessThan(TIMEOUT_MS);
    await vi.waitFor(() => expect(cutOff).toBe(true));
    expect(endless.received).toHaveLength(1);
  }, 60_000);

  it('private targets not allowed at delivery: a name that resolves to 127.0.0.1 is refused after DNS, recorded as refused, nothing received', async () => {
    const worker = startWorker(false);
    const account = await signUpAndLogin(suite.stack);
    const local = await suite.startReceiver();
    const guid = await endpoint(account, local.url.replace('127.0.0.1', RECEIVER_NAME), local);
    await api(account, 'POST', '/event', { name: 'Refused' });
    const log = await deliveriesLog(suite.stack, account, guid, (entries) => entries.length >= 2);
    expect(log.length).toBeGreaterThanOrEqual(2);
    for (const attempt of log) expect([attempt.response_status, attempt.error]).toEqual([null, 'refused: the host resolves to a private address']);
    expect(local.requests).toBe(0);
    // The same endpoint under a worker that allows private targets: the name does lead to the receiver.
    await worker.stop();
    startWorker(true);
    await local.waitFor((all) => all.length === 1);
    expect(local.received[0]!.id).toBe(log[0].event_id);
  });
});

/**
 * One attempt (services/webhooks/sender.ts) has one deadline, WEBHOOK_TIMEOUT_MS, for the DNS
 * lookup, the connection and the answer together, so the worker's lease (that deadline plus a
 * margin) covers the whole attempt. The lookup is slowed down here by a stand-in resolver.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sendWebhook } from '../../services/webhooks/sender.js';
import { startReceiver, type TestReceiver } from './receiver.js';

const dns = vi.hoisted(() => ({ delayMs: 0 }));
vi.mock('node:dns/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:dns/promises')>();
  const lookup = async () => {
    await new Promise((resolve) => setTimeout(resolve, dns.delayMs));
    return [{ address: '127.0.0.1', family: 4 }];
  };
  return { ...actual, default: { ...actual, lookup }, lookup };
});

const TIMEOUT_MS = 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let receiver: TestReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

/** An attempt to the test receiver through a host name (so the lookup runs), as the worker makes it. */
async function attempt(answer: TestReceiver['answer'] = () => 200) {
  receiver = await startReceiver();
  receiver.answer = answer;
  receiver.secret = `whsec_${randomBytes(24).toString('base64')}`;
  const url = receiver.url.replace('127.0.0.1', 'receiver.test');
  return sendWebhook({ url, secret: receiver.secret, id: 'msg_1', body: '{"id":"msg_1"}' }, { timeoutMs: TIMEOUT_MS, allowPrivateTargets: true });
}

describe('one deadline for the whole attempt', () => {
  it('a slow lookup leaves the receiver only the rest of the timeout', async () => {
    dns.delayMs = 600;
    const outcome = await attempt(async () => {
      await sleep(600);
      return 200;
    });
    expect(outcome).toMatchObject({ delivered: false, responseStatus: null, error: `no answer within ${TIMEOUT_MS} ms` });
    expect(outcome.durationMs).toBeLessThan(TIMEOUT_MS + 150);
  });

  it('a lookup slower than the timeout ends the attempt at the timeout', async () => {
    dns.delayMs = 2000;
    const outcome = await attempt();
    expect(outcome).toMatchObject({ delivered: false, responseStatus: null, error: 'refused: DNS lookup timed out' });
    expect(outcome.durationMs).toBeLessThan(TIMEOUT_MS + 150);
    expect(receiver!.received).toEqual([]);
  });

  it('a quick lookup and a quick answer: delivered', async () => {
    dns.delayMs = 10;
    const outcome = await attempt();
    expect(outcome).toMatchObject({ delivered: true, responseStatus: 200, error: null });
  });
});

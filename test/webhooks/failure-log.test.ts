/**
 * Issue 32, item 14: a failed webhook delivery is logged at warn (with its event, endpoint,
 * status and reason, never the URL), so an operator sees it without debug logs; a delivered
 * one stays at debug.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/logger.js';
import { createEvent } from '../support/api.js';
import { bearer, request } from '../support/http.js';
import { startSuite, type Suite } from '../support/suite.js';
import { startReceiver, type TestReceiver } from './receiver.js';

const lines: string[] = [];
let suite: Suite;
let receiver: TestReceiver;

beforeAll(async () => {
  const logger = createLogger('test', 'info', { write: (line: string) => void lines.push(line) });
  suite = await startSuite({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE: '100ms', WEBHOOK_TIMEOUT_MS: '1000' }, stackOptions: { logger } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await suite?.stack.stop();
  await receiver?.close();
});

describe('a failed webhook delivery', () => {
  it('is logged at warn, without the URL', async () => {
    receiver.answer = () => 500;
    const path = `/hook-${Date.now()}?key=do-not-log-me`;
    const created = await request(`${suite.stack.baseUrl}/webhooks`, { method: 'POST', headers: bearer(suite.token), json: { url: `${receiver.url.replace(/\/$/, '')}${path}`, events: ['event.created'] } });
    expect(created.status, created.text).toBe(201);
    receiver.secret = created.body.secret;
    await createEvent(suite.who, { name: 'Refused by the receiver' });
    const failed = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => typeof entry.msg === 'string' && entry.msg.startsWith('webhook delivery failed'));
    const until = Date.now() + 20_000;
    while (failed().length < 2 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
    const [first, last] = [failed()[0]!, failed().at(-1)!];
    expect(first).toMatchObject({ level: 40, endpoint: created.body.guid, status: 500, delivered: false, attempt: 1, msg: 'webhook delivery failed; it goes again' });
    expect(last).toMatchObject({ level: 40, msg: 'webhook delivery failed for good' });
    expect(lines.join('\n')).not.toContain('do-not-log-me');
  }, 30_000);
});

import { bearer, request, type Account } from '../support/http.js';
import type { TestStack } from '../support/stack.js';

/** GET /webhooks/:guid/deliveries once `done` holds (the worker records an attempt after the receiver's answer), or after 10 s. */
export async function deliveriesLog(stack: TestStack, account: Account, guid: string, done: (log: any[]) => boolean): Promise<any[]> {
  const until = Date.now() + 10_000;
  for (;;) {
    const log = (await request(`${stack.baseUrl}/webhooks/${guid}/deliveries`, { headers: bearer(account.accessToken) })).body as any[];
    if (done(log) || Date.now() > until) return log;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

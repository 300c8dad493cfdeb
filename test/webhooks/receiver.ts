import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline, type Readable } from 'node:stream';
import { Webhook } from 'standardwebhooks';

/** A webhook as a receiver got it: the verified body and its headers. */
export interface Received {
  id: string;
  body: { id: string; type: string; created_at: string; company_id: string; sequence: number; data: any };
  headers: http.IncomingHttpHeaders;
}

/** An answer beyond a bare status: headers (a redirect's location) and a body (a string, or a stream: an endless one). */
export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string | Readable;
}

/**
 * The receiver of docs/webhooks.md ("A receiver"): verifies every request with the
 * `standardwebhooks` package against the endpoint's secret; a bad signature is a 400 and is
 * not recorded. `answer` decides the answer to each verified request (default 200).
 */
export interface TestReceiver {
  url: string;
  secret: string;
  received: Received[];
  /** Every request that came, verified or not. */
  requests: number;
  /** Requests refused because the signature did not verify. */
  rejected: number;
  /** Per verified request: the status (or Answer) to answer, or a promise of it (a slow receiver). */
  answer: (received: Received, attemptOfId: number) => number | Answer | Promise<number | Answer>;
  /** Distinct event ids received, in order of first arrival. */
  ids(): string[];
  waitFor(predicate: (received: Received[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<TestReceiver> {
  const attempts = new Map<string, number>();
  const receiver: TestReceiver = {
    url: '',
    secret: '',
    received: [],
    requests: 0,
    rejected: 0,
    answer: () => 200,
    ids: () => [...new Set(receiver.received.map((r) => r.id))],
    async waitFor(predicate, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (!predicate(receiver.received)) {
        if (Date.now() > until) throw new Error(`receiver: condition not met within ${timeoutMs} ms (${receiver.received.length} received)`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    receiver.requests++;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const payload = Buffer.concat(chunks).toString('utf8');
      let body: Received['body'];
      try {
        body = new Webhook(receiver.secret).verify(payload, req.headers as Record<string, string>) as Received['body'];
      } catch {
        receiver.rejected++;
        return void res.writeHead(400).end();
      }
      const received = { id: req.headers['webhook-id'] as string, body, headers: req.headers };
      const attempt = (attempts.get(received.id) ?? 0) + 1;
      attempts.set(received.id, attempt);
      const answered = await receiver.answer(received, attempt);
      const answer: Answer = typeof answered === 'number' ? { status: answered } : answered;
      if (answer.status >= 200 && answer.status < 300) receiver.received.push(received);
      if (res.destroyed) return;
      res.writeHead(answer.status, answer.headers);
      if (answer.body === undefined || typeof answer.body === 'string') return void res.end(answer.body);
      pipeline(answer.body, res, () => undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}

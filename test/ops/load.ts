import http from 'node:http';

/** Plain node:http requests, so that connection handling (keep-alive, Expect: 100-continue) is explicit. */

export interface Outcome {
  name: string;
  startedAt: number;
  finishedAt: number;
  status?: number;
  body?: string;
  /** The Retry-After header of the answer, when it had one. */
  retryAfter?: string;
  /** A connection-level failure (no HTTP response): its code or message. */
  error?: string;
}

export function httpRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; agent?: http.Agent | false; name?: string } = {},
): Promise<Outcome> {
  const startedAt = Date.now();
  return new Promise((resolve) => {
    const request = http.request(url, { method: options.method ?? 'GET', headers: options.headers, agent: options.agent }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      const retryAfter = response.headers['retry-after'];
      response.on('end', () => resolve({ name: options.name ?? url, startedAt, finishedAt: Date.now(), status: response.statusCode, body, retryAfter }));
      response.on('error', (err: NodeJS.ErrnoException) =>
        resolve({ name: options.name ?? url, startedAt, finishedAt: Date.now(), error: `response aborted: ${err.code ?? err.message}` }),
      );
    });
    request.on('error', (err: NodeJS.ErrnoException) => resolve({ name: options.name ?? url, startedAt, finishedAt: Date.now(), error: err.code ?? err.message }));
    request.end(options.body);
  });
}

/**
 * Concurrent workers, each sending its requests one after the other on keep-alive connections
 * until stop(): a steady number of requests in flight.
 */
export class SteadyLoad {
  readonly outcomes: Outcome[] = [];
  private stopping = false;
  private workers: Promise<void>[] = [];
  readonly agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

  constructor(
    private readonly targets: Array<{ name: string; url: string; method?: string; headers?: Record<string, string>; body?: string }>,
    private readonly concurrency = 20,
  ) {}

  start(): void {
    for (let i = 0; i < this.concurrency; i++) {
      this.workers.push(
        (async () => {
          for (let n = i; !this.stopping; n++) {
            const target = this.targets[n % this.targets.length]!;
            this.outcomes.push(await httpRequest(target.url, { ...target, agent: this.agent }));
          }
        })(),
      );
    }
  }

  /** Starts no new request; resolves when the ones in flight have ended. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.workers);
  }

  close(): void {
    this.agent.destroy();
  }
}

/**
 * A request the server has provably received and started to handle before the test goes on:
 * it is sent with `Expect: 100-continue`, and `accepted` resolves when the server answers
 * `100 Continue` (node's HTTP server does once it has parsed the request head and dispatched it).
 * The body is sent by send(); `response` resolves with the final answer. Own connection each.
 */
export function heldRequest(url: string, options: { headers: Record<string, string>; body: string; name?: string }) {
  let accept!: () => void;
  let reject!: (err: Error) => void;
  const accepted = new Promise<void>((resolve, fail) => {
    accept = resolve;
    reject = fail;
  });
  const startedAt = Date.now();
  const name = options.name ?? url;
  let request!: http.ClientRequest;
  const response = new Promise<Outcome>((resolve) => {
    request = http.request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { ...options.headers, expect: '100-continue', 'content-length': String(Buffer.byteLength(options.body)) },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ name, startedAt, finishedAt: Date.now(), status: res.statusCode, body }));
        res.on('error', (err: NodeJS.ErrnoException) => resolve({ name, startedAt, finishedAt: Date.now(), error: `response aborted: ${err.code ?? err.message}` }));
      },
    );
    request.flushHeaders();
    request.on('continue', () => accept());
    request.on('error', (err: NodeJS.ErrnoException) => {
      reject(err);
      resolve({ name, startedAt, finishedAt: Date.now(), error: err.code ?? err.message });
    });
  });
  accepted.catch(() => undefined);
  return {
    accepted,
    response,
    send(): void {
      request.end(options.body);
    },
  };
}

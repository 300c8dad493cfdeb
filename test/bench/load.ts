import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';

/** One turn of load: what the bench prints and keeps per scenario and round. */
export interface Turn {
  rps: number;
  p50: number;
  p99: number;
  /** Connection errors, timeouts and answers other than the expected status. */
  errors: number;
  requests: number;
}

export interface HttpLoad {
  /** Origin, e.g. http://127.0.0.1:8080 */
  url: string;
  /** Request paths, used in turn (so reads spread over many rows). */
  paths: readonly string[];
  method?: 'GET' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  body?: string;
  /** The status every answer must have; default 200. */
  status?: number;
  connections: number;
  seconds: number;
}

/** `connections` keep-alive connections sending as fast as answers come back, for `seconds`. */
export async function httpTurn(load: HttpLoad): Promise<Turn> {
  const expected = load.status ?? 200;
  let next = 0;
  const result = await autocannon({
    url: load.url,
    method: load.method ?? 'GET',
    headers: { ...load.headers, ...(load.body ? { 'content-type': 'application/json' } : {}) },
    body: load.body,
    requests: [
      {
        setupRequest: (request) => ({ ...request, path: load.paths[next++ % load.paths.length]! }),
      },
    ],
    connections: load.connections,
    duration: load.seconds,
    timeout: 30,
  });
  const answered = Object.values(result.statusCodeStats ?? {}).reduce((sum, s) => sum + (s.count ?? 0), 0);
  const unexpected = answered - (result.statusCodeStats?.[`${expected}`]?.count ?? 0);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + unexpected,
    requests: result.requests.total,
  };
}

/** The same closed loop for a call autocannon cannot make (gRPC): `concurrency` callers for `seconds`. */
export async function callTurn(concurrency: number, seconds: number, call: () => Promise<boolean>): Promise<Turn> {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        const ok = await call().catch(() => false);
        latencies.push(performance.now() - t0);
        if (!ok) errors++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors, requests: latencies.length };
}

export function percentile(sorted: readonly number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : 0;
}

export function median(values: readonly number[]): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

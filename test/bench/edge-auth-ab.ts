/**
 * `GET /ticket/:guid` with the caller checked by an Authenticate round trip on every call
 * (EDGE_AUTH=false, as before) against the check at the edge (EDGE_AUTH=true), in turns in the
 * same minutes on two stacks side by side, with autocannon in its own process. Prints figures;
 * asserts nothing. docs/auth.md has the results.
 *
 *   TEST_BACKEND=mysql TEST_MYSQL_URL=mysql://root@127.0.0.1:3306/test \
 *     TEST_REDIS_URL=redis://127.0.0.1:6379 flock /tmp/heavy.lock npx tsx test/bench/edge-auth-ab.ts
 *
 * AB_ROUNDS (default 3), AB_SECONDS per run (default 10), AB_CONNECTIONS (default 32).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { bearer, request, signUpAndLogin } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/stack.js';

const rounds = Number(process.env.AB_ROUNDS ?? '3');
const seconds = Number(process.env.AB_SECONDS ?? '10');
const connections = Number(process.env.AB_CONNECTIONS ?? '32');
const AUTOCANNON = path.join(process.cwd(), 'node_modules', '.bin', 'autocannon');

interface Run {
  variant: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function ticketUrl(stack: TestStack): Promise<{ url: string; token: string }> {
  const account = await signUpAndLogin(stack);
  const auth = bearer(account.accessToken);
  const event = await request(`${stack.baseUrl}/event`, { method: 'POST', headers: auth, json: { name: 'Bench' } });
  const ticket = await request(`${stack.baseUrl}/event/${event.body.guid as string}/ticket`, { method: 'POST', headers: auth, json: { name: 'T', vat_percentage: 21 } });
  if (ticket.status !== 201) throw new Error(`ticket: ${ticket.status} ${ticket.text}`);
  return { url: `${stack.baseUrl}/ticket/${ticket.body.guid as string}`, token: account.accessToken };
}

async function load(variant: string, target: { url: string; token: string }): Promise<Run> {
  const { stdout } = await promisify(execFile)(
    AUTOCANNON,
    ['-j', '-c', String(connections), '-d', String(seconds), '-H', `authorization=Bearer ${target.token}`, target.url],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const result = JSON.parse(stdout) as { requests: { average: number }; latency: { p50: number; p99: number }; errors: number; non2xx: number };
  return { variant, rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const asking = await startTestStack({ EDGE_AUTH: 'false' });
  const edge = await startTestStack({ EDGE_AUTH: 'true' });
  try {
    const targets = { asking: await ticketUrl(asking), edge: await ticketUrl(edge) };
    const runs: Run[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const variant of ['asking', 'edge'] as const) {
        const run = await load(variant, targets[variant]);
        runs.push(run);
        console.log(JSON.stringify({ round, ...run }));
      }
    }
    const summary = (['asking', 'edge'] as const).map((variant) => {
      const mine = runs.filter((r) => r.variant === variant);
      return { variant, 'req/s (median)': median(mine.map((r) => r.rps)), 'p50 ms': median(mine.map((r) => r.p50)), 'p99 ms': median(mine.map((r) => r.p99)), errors: mine.reduce((n, r) => n + r.errors, 0) };
    });
    console.table(summary);
    console.log(`edge / asking throughput: ${(summary[1]!['req/s (median)'] / summary[0]!['req/s (median)']).toFixed(2)}x`);
  } finally {
    await edge.stop();
    await asking.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, passwordToken, request, signUpAndLogin, type Account } from '../support/http.js';
import type { TestStack } from '../support/stack.js';
import { waitFor } from '../support/redis-server.js';
import { heldRequest, SteadyLoad, type Outcome } from './load.js';
import { acceptsConnections } from '../support/resources.js';
import { spawnPart, startTopology, type RunningProcess, type Topology } from './processes.js';

/**
 * The compose topology as separate processes (auth, ticket, gateway), each started from its
 * own entrypoint with its compose service's environment (see processes.ts), talking gRPC and
 * HTTP over loopback exactly as the containers do over the compose network.
 */

const GRACE_MS = 10_000;
/**
 * The auth drain test's grace: its held calls queue on one scrypt thread, ~50-100 ms each on an
 * idle machine but ~400 ms on a loaded one, so 32 of them can outlast the 10 s default and be cut
 * by the forced close. A grace no queue of them reaches keeps the test about the drain, not speed.
 */
const AUTH_DRAIN_GRACE_MS = 60_000;
/** Test-only settings: many token requests from one address and account in a short time. */
const LOAD_SETTINGS = { TOKEN_RATE_LIMIT_PER_ACCOUNT: '100000', TOKEN_RATE_LIMIT_PER_ACCOUNT_TOTAL: '100000', TOKEN_RATE_LIMIT_PER_ADDRESS: '100000' };

const topologies: Topology[] = [];
const spawned: RunningProcess[] = [];

afterAll(async () => {
  await Promise.all(spawned.map((p) => p.kill()));
  for (const topology of topologies) await topology.stop();
}, 120_000);

async function topology(options: Parameters<typeof startTopology>[0] = {}): Promise<Topology> {
  const started = await startTopology(options);
  topologies.push(started);
  return started;
}

const asStack = (t: Topology) => ({ authUrl: t.authUrl, baseUrl: t.baseUrl }) as TestStack;

function summary(outcomes: Outcome[]): string {
  const counts = new Map<string, number>();
  for (const o of outcomes) {
    const key = `${o.name} ${o.status ?? o.error}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, n]) => `${key}: ${n}`).join(', ');
}

describe('the compose topology as separate processes', () => {
  let stack: Topology;
  let account: Account;

  beforeAll(async () => {
    stack = await topology({ overrides: LOAD_SETTINGS });
  }, 180_000);

  it('starts from the compose environment, answers /healthz, and serves sign-up, tokens and /users/me through the gateway', async () => {
    for (const part of ['auth', 'ticket', 'gateway'] as const) {
      expect(stack.env[part].NODE_ENV, 'production, as in compose').toBe('production');
      // No .env: the secrets come from the service's own volume the init service filled, through the entrypoint.
      expect(stack.env[part].AUTH_SIGNING_KEY, `${part}: no signing key in the environment`).toBe(part === 'auth' ? '' : undefined);
      expect(stack.env[part].INTERNAL_API_KEY, `${part}: no internal key in the environment`).toBe(part === 'ticket' ? undefined : '');
    }
    expect(stack.processes.auth.count(/INTERNAL_API_KEY is not set/), 'the auth service got the internal key too').toBe(0);
    // Each process says where it listens.
    expect(stack.processes.auth.count(new RegExp(`"address":"127\\.0\\.0\\.1:${stack.ports.auth}".*auth service ready`))).toBe(1);
    expect(stack.processes.ticket.count(new RegExp(`"address":"127\\.0\\.0\\.1:${stack.ports.ticket}".*ticket service ready`))).toBe(1);
    expect(stack.processes.gateway.count(new RegExp(`"url":"http://127\\.0\\.0\\.1:${stack.ports.gateway}".*gateway ready`))).toBe(1);

    const health = await request(`${stack.baseUrl}/healthz`);
    expect(health.status).toBe(200);

    // Each process serves its metrics on its own METRICS_PORT; the public port does not.
    for (const part of ['auth', 'ticket', 'gateway'] as const) {
      const metrics = await request(`http://127.0.0.1:${stack.ports.metrics[part]}/metrics`);
      expect(metrics.status, part).toBe(200);
      expect(metrics.text, part).toMatch(part === 'gateway' ? /http_requests_total\{method="GET",route="\/healthz",status="200"\}/ : /db_pool_connections\{database="\w+",state="used"\}/);
    }
    expect((await request(`${stack.baseUrl}/metrics`)).status).toBe(404);
    expect(health.body.services).toEqual({ gateway: 'ok', auth: 'SERVING', ticket: 'SERVING' });

    account = await signUpAndLogin(asStack(stack));
    const me = await request(`${stack.authUrl}/users/me`, { headers: bearer(account.accessToken) });
    expect(me.status).toBe(200);
    expect(me.body.email).toBe(account.email);
    // The ticket service checks the caller with the auth service at AUTH_GRPC_ADDRESS.
    const events = await request(`${stack.baseUrl}/event`, { headers: bearer(account.accessToken) });
    expect(events.status, events.text).toBe(200);
    expect(events.body).toEqual([]);
  }, 180_000);

  it('a process refuses to start on a bad configuration with exit code 2 and names the variable', async () => {
    const bad = spawnPart('auth', { ...stack.env.auth, AUTH_GRPC_PORT: 'not-a-port' });
    spawned.push(bad);
    const exit = await bad.exited;
    expect(exit.code).toBe(2);
    expect(bad.output.join('\n')).toMatch(/AUTH_GRPC_PORT/);
    const noSecret = spawnPart('auth', { ...stack.env.auth, AUTH_SIGNING_KEY: '', TICKETING_SECRETS_DIR: `${stack.env.auth.DATA_DIR}/no-such-volume` });
    spawned.push(noSecret);
    expect((await noSecret.exited).code).toBe(2);
    expect(noSecret.output.join('\n')).toMatch(/AUTH_SIGNING_KEY: required by the auth process when NODE_ENV=production/);
  }, 180_000);
});

describe('graceful shutdown under load', () => {
  /**
   * How this is deterministic: the requests the assertions are about are known to be in the
   * process's hands before SIGTERM is sent, not merely sent by the client. For the gateway they
   * are sent with `Expect: 100-continue` and SIGTERM follows their `100 Continue`; for the auth
   * service, SIGTERM follows its own trace lines (GRPC_TRACE=server_call) saying it received
   * each call. Every one of them must then succeed, and the process must exit 0 before the
   * grace period is over (so nothing was cut off by the forced close at its end). The steady
   * background load may see the expected answers of a stopping dependency (503) or, for the
   * gateway, a refused connection, but only after the SIGTERM.
   */

  it('gateway: the requests it had taken complete, new connections are refused, it exits 0 within the grace period', async () => {
    const stack = await topology({ overrides: LOAD_SETTINGS });
    const account = await signUpAndLogin(asStack(stack));
    const load = new SteadyLoad([
      { name: 'users/me', url: `${stack.authUrl}/users/me`, headers: bearer(account.accessToken) },
      { name: 'healthz', url: `${stack.baseUrl}/healthz` },
    ]);
    load.start();
    await waitFor(() => load.outcomes.length >= 100, 60_000);

    const held = Array.from({ length: 10 }, (_, i) =>
      heldRequest(`${stack.authUrl}/tokens`, {
        name: `held token ${i}`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'password', username: account.email, password: account.password }),
      }),
    );
    await Promise.all(held.map((h) => h.accepted));

    const sigtermAt = Date.now();
    stack.processes.gateway.child.kill('SIGTERM');
    const stopped = load.stop();
    // It stops taking new work: the listener closes while the held requests are still open.
    await waitFor(async () => !(await acceptsConnections(stack.ports.gateway)), 30_000);
    expect(stack.processes.gateway.running, 'still finishing the requests it holds').toBe(true);
    for (const h of held) h.send();
    const answers = await Promise.all(held.map((h) => h.response));
    await stopped;
    const exit = await stack.processes.gateway.exited;
    load.close();

    expect(answers.map((a) => a.status ?? a.error), 'every request the gateway had taken succeeds').toEqual(answers.map(() => 200));
    for (const answer of answers) expect(JSON.parse(answer.body!).access_token).toEqual(expect.any(String));
    expect(exit.code, stack.processes.gateway.tail()).toBe(0);
    expect(exit.at - sigtermAt, 'exits before the grace period ends').toBeLessThan(GRACE_MS);

    const background = load.outcomes;
    expect(background.filter((o) => o.status !== undefined && o.status !== 200), summary(background)).toEqual([]);
    const failed = background.filter((o) => o.error !== undefined);
    expect(failed.filter((o) => o.finishedAt < sigtermAt), `no failure before SIGTERM: ${summary(background)}`).toEqual([]);
    expect(
      failed.filter((o) => !/^(ECONNRESET|ECONNREFUSED|EPIPE|socket hang up)$/.test(o.error!)),
      `only connections it never took fail: ${summary(background)}`,
    ).toEqual([]);
  }, 180_000);

  // Without `Connection: close` while draining, a client that keeps sending on its keep-alive
  // connection never lets it go idle, and the forced close at the end of the grace period cuts
  // the requests then in flight. Exiting before the grace period ends proves nothing was cut.
  it('gateway: keep-alive clients that keep sending do not hold the shutdown until the forced close', async () => {
    const stack = await topology({ overrides: LOAD_SETTINGS });
    const load = new SteadyLoad([{ name: 'healthz', url: `${stack.baseUrl}/healthz` }]);
    load.start();
    await waitFor(() => load.outcomes.length >= 100, 60_000);
    const sigtermAt = Date.now();
    stack.processes.gateway.child.kill('SIGTERM');
    const exit = await stack.processes.gateway.exited;
    await load.stop();
    load.close();
    expect(exit.code).toBe(0);
    expect(exit.at - sigtermAt, `exits before the forced close at ${GRACE_MS} ms: ${summary(load.outcomes)}`).toBeLessThan(GRACE_MS);
  }, 180_000);

  it('auth service: the calls it had received complete, later ones get 503, it exits 0 within the grace period', async () => {
    const stack = await topology({
      // Calls queue on the auth service's only scrypt thread; the gateway waits for them.
      overrides: { ...LOAD_SETTINGS, GRPC_DEADLINE_MS: String(AUTH_DRAIN_GRACE_MS) },
      // grpc-js's trace lines go through our logger (lib/grpc/log.ts) at debug level.
      extra: { auth: { GRPC_TRACE: 'server_call', GRPC_VERBOSITY: 'DEBUG', LOG_LEVEL: 'debug', UV_THREADPOOL_SIZE: '1', SHUTDOWN_GRACE_MS: String(AUTH_DRAIN_GRACE_MS) } },
    });
    const auth = stack.processes.auth;
    const account = await signUpAndLogin(asStack(stack));
    const load = new SteadyLoad([
      { name: 'users/me', url: `${stack.authUrl}/users/me`, headers: bearer(account.accessToken) },
      { name: 'healthz', url: `${stack.baseUrl}/healthz` },
    ]);
    load.start();
    await waitFor(() => load.outcomes.length >= 100, 60_000);

    // Password grants: each costs the auth service one scrypt (~50-100 ms) on its single thread.
    const received = /server_call \| Received call to method \/auth\.v1\.AuthService\/IssueToken/;
    const before = auth.count(received);
    // Enough queued scrypt work (~50-100 ms each on one thread) that some are surely still in flight at SIGTERM.
    const HELD = 32;
    const held = Array.from({ length: HELD }, () => passwordToken(asStack(stack), account.email, account.password).then(
      (body: { access_token: string }) => ({ ok: true as const, token: body.access_token, at: Date.now() }),
      (err: Error) => ({ ok: false as const, error: err.message, at: Date.now() }),
    ));
    await auth.waitForOutput(received, before + HELD, 60_000);

    const sigtermAt = Date.now();
    auth.child.kill('SIGTERM');
    const answers = await Promise.all(held);
    const exit = await auth.exited;
    await load.stop();
    load.close();

    expect(answers.filter((a) => !a.ok), 'every call the auth service had received succeeds').toEqual([]);
    expect(answers.some((a) => a.at > sigtermAt), 'some of them were still in flight at SIGTERM').toBe(true);
    expect(exit.code, auth.tail()).toBe(0);
    expect(exit.at - sigtermAt, 'exits before the grace period ends').toBeLessThan(AUTH_DRAIN_GRACE_MS);
    expect(auth.count(new RegExp(`"graceMs":${AUTH_DRAIN_GRACE_MS},"msg":"shutting down`)), 'with the grace it was given').toBe(1);

    const background = load.outcomes;
    expect(background.filter((o) => o.error !== undefined), `the gateway stays up: ${summary(background)}`).toEqual([]);
    expect(background.filter((o) => o.status !== 200 && o.status !== 503), summary(background)).toEqual([]);
    expect(background.filter((o) => o.status === 503 && o.finishedAt < sigtermAt), `503 only once the auth service stops: ${summary(background)}`).toEqual([]);

    // Afterwards the gateway answers 503 for what needs the auth service, and says why in /healthz.
    const me = await request(`${stack.authUrl}/users/me`, { headers: bearer(account.accessToken) });
    expect(me.status).toBe(503);
    const health = await request(`${stack.baseUrl}/healthz`);
    expect(health.status).toBe(503);
    expect(health.body.services.auth).toBe('NOT_SERVING');
  }, 180_000);
});

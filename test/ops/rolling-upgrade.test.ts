import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthStatus } from '../support/grpc-introspection.js';
import { bearer, request, signUpAndLogin, type Account } from '../support/http.js';
import { freePort, waitFor } from '../support/redis-server.js';
import { testBackend, type TestStack } from '../support/stack.js';
import { exampleVariables, readCompose, SECRETS_SCRIPT, serviceEnvironment, serviceRunning } from './compose-file.js';
import { SteadyLoad, type Outcome } from './load.js';
import { startLoadBalancer, type LoadBalancer } from './load-balancer.js';
import { composeEnvironment, handledRequests, localResources, spawnNode, spawnPart, type LocalResources, type RunningProcess } from './processes.js';

/**
 * A rolling upgrade as Kubernetes (maxSurge 1, maxUnavailable 0) or a careful compose operator
 * does it, simulated with processes on this host on one MySQL + Redis: two replicas each of auth,
 * ticket and the gateway (behind compose's HAProxy, load-balancer.ts) and a webhook worker. Each
 * replica in turn: a new one is started beside it (a free slot: another port for the services,
 * another loopback address on the gateways' port, as DNS would name a new pod), is ready and
 * taking calls, then the old one leaves (a gateway first leaves DNS, the preStop pause, then
 * SIGTERM; a service gets SIGTERM) and must exit 0. Under steady load through HAProxy the whole
 * time, every answer must be 2xx, or 429.
 */
type Kind = 'auth' | 'ticket' | 'gateway' | 'webhooks';
const SLOTS = 3; // two replicas and room for the one being surged in
const CONCURRENCY = 8;
// grpc-js reconnects to an address within CLIENT_OPTIONS' max backoff (2 s): after this, every
// client has a connection to a new replica before the old one goes.
const SETTLE_MS = 3000;
// The preStop pause: HAProxy drops an address that left DNS within a second (haproxy.cfg, hold obsolete 1s).
const PRE_STOP_MS = 3000;
interface Replica {
  kind: Kind;
  slot: number;
  process: RunningProcess;
  metricsPort: number;
}

describe.skipIf(testBackend() === 'mysql')('rolling upgrade (embedded backend)', () => {
  it.skip('needs MySQL + Redis: an embedded SQLite database belongs to one process, so it has no second replica to roll onto', () => {});
});

describe.runIf(testBackend() === 'mysql')('a rolling upgrade of every kind of process under steady load', () => {
  let resources: LocalResources;
  let lb: LoadBalancer;
  let account: Account;
  const live: Replica[] = [];
  const retired: Replica[] = [];
  const ports = { auth: [] as number[], ticket: [] as number[], gateway: 0 };
  const gatewayHost = (slot: number) => `127.0.0.${slot + 1}`;
  const list = (p: number[]) => `ipv4:${p.map((port) => `127.0.0.1:${port}`).join(',')}`;
  const logs = () => [...live, ...retired].map((r) => r.process.tail(10)).join('\n');

  async function start(kind: Kind, slot: number): Promise<Replica> {
    const metricsPort = await freePort();
    const common = {
      ...resources.local,
      LOG_LEVEL: 'warn',
      METRICS_PORT: String(metricsPort),
      AUTH_GRPC_ADDRESS: list(ports.auth),
      TICKET_GRPC_ADDRESS: list(ports.ticket),
      // One token from one address, far past the API's allowance: the limits are not what this tests.
      RATE_LIMIT_PER_TOKEN: '1000000',
      RATE_LIMIT_PER_ADDRESS: '1000000',
    };
    let process: RunningProcess;
    if (kind === 'webhooks') {
      const env = { ...serviceEnvironment(serviceRunning(readCompose(), 'dist/services/webhooks/worker.js')[1], exampleVariables()), ...common };
      process = spawnNode('webhooks', 'services/webhooks/worker.ts', [], env, undefined, ['sh', SECRETS_SCRIPT]);
    } else {
      const port = kind === 'gateway' ? ports.gateway : ports[kind][slot]!;
      process = spawnPart(kind, {
        ...composeEnvironment(kind),
        ...common,
        ...(kind === 'gateway' ? { BIND_HOST: gatewayHost(slot) } : {}),
        PORT: String(ports.gateway),
        AUTH_GRPC_PORT: String(kind === 'auth' ? port : ports.auth[0]),
        TICKET_GRPC_PORT: String(kind === 'ticket' ? port : ports.ticket[0]),
      });
    }
    const replica = { kind, slot, process, metricsPort };
    live.push(replica);
    await waitFor(() => ready(replica), 90_000, 200).catch((err: unknown) => {
      throw new Error(`${kind} in slot ${slot} not ready: ${String(err)}\n${process.tail()}`);
    });
    return replica;
  }

  async function ready(replica: Replica): Promise<boolean> {
    if (!replica.process.running) throw new Error(`${replica.kind} exited:\n${replica.process.tail()}`);
    if (replica.kind === 'webhooks') return replica.process.count(/webhook worker running/) > 0 || (await metricsUp(replica));
    if (replica.kind === 'gateway') {
      const answer = await fetch(`http://${gatewayHost(replica.slot)}:${ports.gateway}/healthz`, { signal: AbortSignal.timeout(3000) }).catch(() => undefined);
      return answer?.status === 200;
    }
    return (await healthStatus(`127.0.0.1:${ports[replica.kind][replica.slot]}`, '')) === 'SERVING';
  }

  async function metricsUp(replica: Replica): Promise<boolean> {
    return (await fetch(`http://127.0.0.1:${replica.metricsPort}/metrics`).catch(() => undefined))?.status === 200;
  }

  const handled = (replica: Replica) => handledRequests(replica.metricsPort, replica.kind === 'gateway' ? 'http' : 'grpc');

  const gatewaySlots = () => live.filter((r) => r.kind === 'gateway').map((r) => gatewayHost(r.slot));

  /** Replaces `old` by a new replica of its kind in a free slot, as one step of a rollout. */
  async function replace(old: Replica): Promise<void> {
    const used = new Set(live.filter((r) => r.kind === old.kind).map((r) => r.slot));
    const slot = [...Array(SLOTS).keys()].find((s) => !used.has(s))!;
    const fresh = await start(old.kind, slot);
    if (old.kind === 'gateway') lb.setGateways(gatewaySlots());
    if (old.kind !== 'webhooks') await waitFor(async () => (await handled(fresh)) > 0, 30_000, 100);
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    live.splice(live.indexOf(old), 1);
    retired.push(old);
    if (old.kind === 'gateway') {
      lb.setGateways(gatewaySlots());
      await new Promise((r) => setTimeout(r, PRE_STOP_MS));
    }
    old.process.child.kill('SIGTERM');
    // Within the compose stop_grace_period (20 s): a process still running then would be killed.
    const exit = await Promise.race([old.process.exited, new Promise((r) => setTimeout(() => r('still running 20 s after SIGTERM'), 20_000))]);
    expect(exit, `${old.kind} in slot ${old.slot} exits cleanly after SIGTERM:\n${old.process.tail()}`).toMatchObject({ code: 0 });
  }

  beforeAll(async () => {
    resources = await localResources();
    ports.auth = await Promise.all(Array.from({ length: SLOTS }, () => freePort()));
    ports.ticket = await Promise.all(Array.from({ length: SLOTS }, () => freePort()));
    ports.gateway = await freePort();
    for (const kind of ['auth', 'ticket', 'gateway'] as const) await Promise.all([start(kind, 0), start(kind, 1)]);
    await start('webhooks', 0);
    lb = await startLoadBalancer(ports.gateway, gatewaySlots());
    await waitFor(async () => (await fetch(`${lb.adminUrl}/ready`)).status === 200, 20_000, 100);
    account = await signUpAndLogin({ baseUrl: lb.baseUrl, authUrl: `${lb.baseUrl}/auth` } as TestStack);
  }, 180_000);

  afterAll(async () => {
    await lb?.stop();
    await Promise.all([...live, ...retired].map((r) => r.process.kill()));
    await resources?.cleanup();
  });

  it('replaces every auth, ticket, gateway and webhook worker process one at a time: no answer but 2xx (or 429)', async () => {
    const base = lb.baseUrl;
    const headers = bearer(account.accessToken);
    const json = { ...headers, 'content-type': 'application/json' };
    const event = await request(`${base}/event`, { method: 'POST', headers, json: { name: 'Rolling' } });
    expect(event.status, event.text).toBe(201);
    const ticket = await request(`${base}/event/${event.body.guid}/ticket`, { method: 'POST', headers, json: { name: 'Read me', vat_percentage: 21 } });
    expect(ticket.status, ticket.text).toBe(201);

    const load = new SteadyLoad(
      [
        { name: 'GET /ticket/:guid', url: `${base}/ticket/${ticket.body.guid}`, headers },
        { name: 'GET /auth/users/me', url: `${base}/auth/users/me`, headers },
        { name: 'GET /event/:guid/ticket', url: `${base}/event/${event.body.guid}/ticket?limit=5`, headers },
        { name: 'POST /event/:guid/ticket', url: `${base}/event/${event.body.guid}/ticket`, method: 'POST', headers: json, body: JSON.stringify({ name: 'Rolled', vat_percentage: 21 }) },
      ],
      CONCURRENCY,
    );
    const started = Date.now();
    load.start();
    const steps: string[] = [];
    /** When each replacement began, to name the step a failed request fell in. */
    const stepStarts: Array<[number, string]> = [];
    try {
      await new Promise((r) => setTimeout(r, 1000));
      for (const kind of ['auth', 'ticket', 'gateway', 'webhooks'] as const) {
        for (const old of live.filter((r) => r.kind === kind)) {
          const [before, at] = [load.outcomes.length, Date.now()];
          stepStarts.push([at, `${kind}${old.slot}`]);
          await replace(old);
          steps.push(`${kind}${old.slot}: ${load.outcomes.length - before} requests`);
          process.stderr.write(`rolling upgrade: ${steps.at(-1)} in ${((Date.now() - at) / 1000).toFixed(1)} s\n`);
        }
      }
      await new Promise((r) => setTimeout(r, 1000));
    } catch (err) {
      throw new Error(`${err instanceof Error ? err.message : String(err)}\n${logs()}`);
    } finally {
      await load.stop();
      load.close();
    }
    const seconds = (Date.now() - started) / 1000;
    const failed = load.outcomes.filter((o) => !(o.status !== undefined && ((o.status >= 200 && o.status < 300) || o.status === 429)));
    const tooMany = load.outcomes.filter((o) => o.status === 429).length;
    const figure = `${load.outcomes.length} requests in ${seconds.toFixed(0)} s (${CONCURRENCY} in flight), ${failed.length} not 2xx, ${tooMany} x 429; ${steps.join(', ')}`;
    console.info(`rolling upgrade: ${figure}`);
    const stepOf = (o: Outcome) => stepStarts.filter(([at]) => at <= o.startedAt).at(-1)?.[1] ?? 'before the first step';
    console.info(`rolling upgrade, not 2xx: ${failed.map((o) => `${o.status ?? o.error} during ${stepOf(o)}`).join(', ') || 'none'}`);
    expect(failed.map((o) => `during ${stepOf(o)}: ${describeOutcome(o)}`), figure).toEqual([]);
    // The load ran through every step: each replacement saw requests.
    expect(steps).toHaveLength(7);
    for (const step of steps) expect(Number(/: (\d+) requests/.exec(step)![1]), step).toBeGreaterThan(0);
    // Every process of the start was replaced.
    expect(live.every((r) => !retired.includes(r))).toBe(true);
    expect(retired).toHaveLength(7);
  }, 900_000);
});

function describeOutcome(o: Outcome): string {
  return `${o.name}: ${o.status ?? o.error} ${o.body?.slice(0, 200) ?? ''}`;
}

import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, waitFor } from '../support/redis-server.js';
import { createTestDatabases, deleteRedisKeys } from '../support/resources.js';
import { testBackend } from '../support/stack.js';
import { exampleVariables, initSecrets, initService, readCompose, ROOT, SECRETS_SCRIPT, secretsDirOf, serviceEnvironment, serviceRunning } from './compose-file.js';

/**
 * The compose topology as separate node processes on this host: each process gets the
 * environment its compose service has (docker-compose.yml + .env.example, no .env), with what only a
 * container network provides replaced: service names -> 127.0.0.1, fixed ports -> free ports,
 * the secrets volume -> a temp dir the init service's command fills (TICKETING_SECRETS_DIR),
 * and the databases -> SQLite files in a temp DATA_DIR, or this run's own MySQL databases and
 * Redis key prefix (TEST_BACKEND=mysql). Each process starts through the image's entrypoint
 * (ticketing-secrets), which fills in the secrets the environment leaves empty.
 */

export type Part = 'auth' | 'ticket' | 'gateway';

export const ENTRYPOINTS: Record<Part, { source: string; compose: string }> = {
  auth: { source: 'services/auth/main.ts', compose: 'dist/services/auth/main.js' },
  ticket: { source: 'services/ticket/main.ts', compose: 'dist/services/ticket/main.js' },
  gateway: { source: 'gateway/main.ts', compose: 'dist/gateway/main.js' },
};

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
  at: number;
}

/** One spawned process, its output kept for assertions and for the failure message. */
export class RunningProcess {
  readonly output: string[] = [];
  readonly exited: Promise<ExitStatus>;
  private listeners = new Set<() => void>();

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    const collect = (chunk: Buffer) => {
      this.output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      for (const listener of this.listeners) listener();
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  count(pattern: RegExp): number {
    return this.output.filter((line) => pattern.test(line)).length;
  }

  /** Resolves once `pattern` has appeared `times` times in the output. */
  waitForOutput(pattern: RegExp, times = 1, timeoutMs = 60_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.count(pattern) >= times) {
          done();
          resolve();
        } else if (!this.running) {
          done();
          reject(new Error(`${this.name} exited before printing ${pattern} x${times}:\n${this.tail()}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${this.name} did not print ${pattern} x${times} within ${timeoutMs} ms (seen ${this.count(pattern)}):\n${this.tail()}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.listeners.delete(check);
        this.child.off('exit', check);
      };
      this.listeners.add(check);
      this.child.on('exit', check);
      check();
    });
  }

  tail(lines = 30): string {
    return this.output
      .slice(-lines)
      .map((line) => `  [${this.name}] ${line.slice(0, 400)}`)
      .join('\n');
  }

  /** SIGKILL if still running (cleanup only: tests end processes with SIGTERM themselves). */
  async kill(): Promise<void> {
    if (this.running) this.child.kill('SIGKILL');
    await this.exited;
  }
}

/**
 * `ticketing-secrets node --import tsx <source>`: the TypeScript entrypoint the image runs compiled
 * as `node <compose command>`, behind the image's entrypoint (which execs it: the pid is node's).
 */
export function spawnPart(part: Part, env: Record<string, string>): RunningProcess {
  return spawnNode(part, ENTRYPOINTS[part].source, [], env, undefined, ['sh', SECRETS_SCRIPT]);
}

export function spawnNode(
  name: string,
  source: string,
  args: string[],
  env: Record<string, string>,
  stdin?: string,
  entrypoint: string[] = [],
): RunningProcess {
  const command = [...entrypoint, process.execPath, '--import', 'tsx', source, ...args];
  const child = spawn(command[0]!, command.slice(1), {
    cwd: ROOT,
    // Only what the service's environment says, plus what any process needs to run.
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? tmpdir(), TMPDIR: process.env.TMPDIR ?? tmpdir(), ...env },
    stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (stdin !== undefined) child.stdin?.end(stdin);
  return new RunningProcess(name, child);
}

export interface Topology {
  baseUrl: string;
  authUrl: string;
  ports: Record<Part, number> & { metrics: Record<Part, number> };
  env: Record<Part, Record<string, string>>;
  processes: Record<Part, RunningProcess>;
  /** Every process's output, for failure messages. */
  logs(): string;
  stop(): Promise<void>;
}

export interface TopologyOptions {
  /** Test-only settings on top of the compose environment (e.g. rate limits), for every process. */
  overrides?: Record<string, string>;
  /** Extra environment of one process (e.g. GRPC_TRACE). */
  extra?: Partial<Record<Part, Record<string, string>>>;
}

const ALL_PARTS: Part[] = ['auth', 'ticket', 'gateway'];

/** What a container network and the compose volumes give, on this host (see the file's comment). */
export interface LocalResources {
  /** Settings every local process gets on top of its compose environment (the volume of all secrets). */
  local: Record<string, string>;
  /** What the process running `part` gets on top of its compose environment: its own secrets volume, only the database URLs it is given. */
  localFor(part: Part): Record<string, string>;
  cleanup(): Promise<void>;
}

export async function localResources(): Promise<LocalResources> {
  const compose = readCompose();
  const vars = exampleVariables();
  const id = `ops${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ticketing-ops-'));
  const cleanups: Array<() => Promise<void>> = [async () => rmSync(dataDir, { recursive: true, force: true })];
  // The secrets volume, filled as the init service does on a first `docker compose up`.
  const secretsDir = path.join(dataDir, 'secrets');
  initSecrets(secretsDir, initService(compose)[1], vars);
  const local: Record<string, string> = {
    BIND_HOST: '127.0.0.1',
    METRICS_HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    TICKETING_SECRETS_DIR: secretsDir,
    AUTH_DATABASE_URL: '',
    TICKET_DATABASE_URL: '',
    REDIS_URL: '',
  };
  const cleanup = async () => {
    for (const step of cleanups.reverse()) await step().catch(() => undefined);
  };
  try {
    if (testBackend() === 'mysql') {
      const databases = await createTestDatabases(requiredEnv('TEST_MYSQL_URL'), id);
      cleanups.push(() => databases.drop());
      local.AUTH_DATABASE_URL = databases.authUrl;
      local.TICKET_DATABASE_URL = databases.ticketUrl;
      local.REDIS_URL = requiredEnv('TEST_REDIS_URL');
      local.REDIS_KEY_PREFIX = `test:${id}:`;
      cleanups.push(() => deleteRedisKeys(local.REDIS_URL!, local.REDIS_KEY_PREFIX!));
    }
  } catch (err) {
    await cleanup();
    throw err;
  }
  const init = initService(compose)[1];
  const localFor = (part: Part) => {
    const service = serviceRunning(compose, ENTRYPOINTS[part].compose)[1];
    const given = serviceEnvironment(service, vars);
    const own = Object.fromEntries(Object.entries(local).filter(([key]) => !key.endsWith('_DATABASE_URL') || key in given));
    return { ...own, TICKETING_SECRETS_DIR: secretsDirOf(service, init, secretsDir) ?? path.join(dataDir, 'no-secrets') };
  };
  return { local, localFor, cleanup };
}

/** The environment docker-compose.yml gives the service running `part` (no .env). */
export function composeEnvironment(part: Part): Record<string, string> {
  return serviceEnvironment(serviceRunning(readCompose(), ENTRYPOINTS[part].compose)[1], exampleVariables());
}

export async function startTopology(options: TopologyOptions = {}): Promise<Topology> {
  const { localFor, cleanup } = await localResources();
  const cleanups: Array<() => Promise<void>> = [cleanup];

  const ports = {
    auth: await freePort(),
    ticket: await freePort(),
    gateway: await freePort(),
    metrics: { auth: await freePort(), ticket: await freePort(), gateway: await freePort() },
  };
  const env = {} as Record<Part, Record<string, string>>;
  for (const part of ALL_PARTS) {
    const composeEnv = composeEnvironment(part);
    env[part] = {
      ...composeEnv,
      ...localFor(part),
      PORT: String(ports.gateway),
      AUTH_GRPC_PORT: String(ports.auth),
      TICKET_GRPC_PORT: String(ports.ticket),
      AUTH_GRPC_ADDRESS: relocate(composeEnv.AUTH_GRPC_ADDRESS!, ports.auth),
      TICKET_GRPC_ADDRESS: relocate(composeEnv.TICKET_GRPC_ADDRESS!, ports.ticket),
      METRICS_PORT: String(ports.metrics[part]),
      ...options.overrides,
      ...options.extra?.[part],
    };
  }

  const processes = {} as Record<Part, RunningProcess>;
  const baseUrl = `http://127.0.0.1:${ports.gateway}`;
  const logs = () => ALL_PARTS.filter((p) => processes[p]).map((p) => processes[p].tail()).join('\n');
  const stop = async () => {
    await Promise.all(ALL_PARTS.filter((p) => processes[p]).map((p) => processes[p].kill()));
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };
  try {
    for (const part of ALL_PARTS) processes[part] = spawnPart(part, env[part]);
    await waitFor(
      async () => {
        for (const part of ALL_PARTS) {
          if (!processes[part].running) throw new Error(`${part} exited during start:\n${processes[part].tail()}`);
        }
        const response = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(5000) }).catch(() => undefined);
        return response?.status === 200;
      },
      120_000,
      250,
    );
  } catch (err) {
    const message = `${err instanceof Error ? err.message : String(err)}\n${logs()}`;
    await stop();
    throw new Error(message);
  }
  return { baseUrl, authUrl: `${baseUrl}${env.gateway.AUTH_PATH_PREFIX}`, ports, env, processes, logs, stop };
}

/**
 * What a process has handled since it started, from its /metrics: HTTP requests (a gateway) or
 * RPCs (a service); health checks (gRPC Health, /readyz, /healthz, e.g. a load balancer's) not counted.
 */
export async function handledRequests(metricsPort: number, kind: 'http' | 'grpc'): Promise<number> {
  const text = await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { signal: AbortSignal.timeout(3000) })
    .then((r) => r.text())
    .catch(() => '');
  const metric = kind === 'http' ? 'http_requests_total' : 'grpc_server_handled_total';
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${metric}{`) && !/Health|"\/readyz"|"\/healthz"/.test(line))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}

/** "auth:50052" (a compose service and its port) -> "127.0.0.1:<the port the local process got>". */
function relocate(address: string, localPort: number): string {
  const [host] = address.split(':');
  if (!host) throw new Error(`not host:port: ${address}`);
  return `127.0.0.1:${localPort}`;
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} must be set for the mysql test backend`);
  return value;
}


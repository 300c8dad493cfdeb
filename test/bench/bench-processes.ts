import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient } from 'redis';
import { ROOT } from '../ops/compose-file.js';
import { spawnNode, startTopology, type RunningProcess } from '../ops/processes.js';
import { freePort, waitFor } from '../support/redis-server.js';
import { createTestDatabases, deleteRedisKeys } from '../support/resources.js';
import { generatePrivateKey } from '../../lib/tokens/keys.js';

/**
 * The processes the bench measures, each a real node process like in production:
 * the stack as three processes (auth, ticket, gateway: the compose topology) or as the one
 * process of `npm start`, and the one-process baseline (baseline-server.ts).
 */

export type Topology = 'three' | 'one';

export interface BenchStack {
  topology: Topology;
  baseUrl: string;
  authUrl: string;
  ticketGrpcAddress: string;
  ticketDatabaseUrl: string;
  /** Each stack process's Prometheus endpoint, by part (`stack` for the one process of npm start). */
  metricsUrls: Record<string, string>;
  pids(): number[];
  stop(): Promise<void>;
}

/**
 * Settings the bench adds to the production environment: no limit on logins, API rate limits so
 * high they never bite but still counted in Redis on every request (their cost is part of a real
 * request), and any RATE_LIMIT_* and SHED_NEW_SALES_LAG_MS of the bench's own environment (e.g.
 * `off` or `0` to measure without).
 */
function benchOverrides(): Record<string, string> {
  const passed = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('RATE_LIMIT_') || name === 'SHED_NEW_SALES_LAG_MS') as [string, string][]);
  return {
    TOKEN_RATE_LIMIT_PER_ACCOUNT: '1000000',
    TOKEN_RATE_LIMIT_PER_ACCOUNT_TOTAL: '1000000',
    TOKEN_RATE_LIMIT_PER_ADDRESS: '1000000',
    RATE_LIMIT_PER_TOKEN: '1000000000',
    RATE_LIMIT_PER_ADDRESS: '1000000000',
    ...(process.env.BENCH_LOG_LEVEL ? { LOG_LEVEL: process.env.BENCH_LOG_LEVEL } : {}),
    // A CPU profile of every stack process, written when it shuts down (cpu-profile.mjs).
    ...(process.env.BENCH_CPU_PROF
      ? { NODE_OPTIONS: `--import ${path.join(ROOT, 'test/bench/cpu-profile.mjs')}`, BENCH_CPU_PROF_DIR: mkdirp(path.resolve(process.env.BENCH_CPU_PROF)) }
      : {}),
    ...passed,
  };
}

export async function startBenchStack(topology: Topology, mysqlUrl: string, redisUrl: string): Promise<BenchStack> {
  process.env.TEST_BACKEND = 'mysql';
  process.env.TEST_MYSQL_URL = mysqlUrl;
  process.env.TEST_REDIS_URL = redisUrl;
  if (topology === 'three') {
    const running = await startTopology({ overrides: benchOverrides() });
    // The services' output is kept by the bench process: drop it as it comes so memory stays flat.
    for (const part of Object.values(running.processes)) forgetOutput(part);
    return {
      topology,
      baseUrl: running.baseUrl,
      authUrl: running.authUrl,
      ticketGrpcAddress: `127.0.0.1:${running.ports.ticket}`,
      ticketDatabaseUrl: running.env.ticket.TICKET_DATABASE_URL!,
      metricsUrls: Object.fromEntries(Object.entries(running.ports.metrics).map(([part, port]) => [part, `http://127.0.0.1:${port}/metrics`])),
      pids: () => Object.values(running.processes).map((p) => p.child.pid!),
      async stop() {
        // SIGTERM first: a graceful exit writes the CPU profiles (BENCH_CPU_PROF).
        await Promise.all(Object.values(running.processes).map((p) => terminate(p)));
        await running.stop();
      },
    };
  }
  return startOneProcess(mysqlUrl, redisUrl);
}

/**
 * `npm start`: services/stack.ts, all three servers in one process; without `mysqlUrl` on the
 * embedded backend (SQLite in its data directory), and without `redisUrl` with its in-process
 * cache and counters too (what `npm start` runs with nothing configured).
 */
export async function startOneProcess(mysqlUrl: string | undefined, redisUrl: string | undefined): Promise<BenchStack> {
  const id = `bench${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ticketing-bench-'));
  const databases = mysqlUrl ? await createTestDatabases(mysqlUrl, id) : { authUrl: '', ticketUrl: '', drop: async () => undefined };
  const prefix = `test:${id}:`;
  const ports = { gateway: await freePort(), auth: await freePort(), ticket: await freePort(), metrics: await freePort() };
  const env = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    BIND_HOST: '127.0.0.1',
    PORT: String(ports.gateway),
    AUTH_GRPC_PORT: String(ports.auth),
    TICKET_GRPC_PORT: String(ports.ticket),
    METRICS_PORT: String(ports.metrics),
    DATA_DIR: dataDir,
    AUTH_DATABASE_URL: databases.authUrl,
    TICKET_DATABASE_URL: databases.ticketUrl,
    REDIS_URL: redisUrl ?? '',
    REDIS_KEY_PREFIX: prefix,
    AUTH_SIGNING_KEY: generatePrivateKey(),
    AUTH_RATE_LIMIT_SECRET: randomBytes(32).toString('hex'),
    INTERNAL_API_KEY: randomBytes(32).toString('hex'),
    ...benchOverrides(),
  };
  const child = spawnNode('stack', 'services/stack.ts', [], env);
  forgetOutput(child);
  const baseUrl = `http://127.0.0.1:${ports.gateway}`;
  const stop = async () => {
    await terminate(child);
    await databases.drop().catch(() => undefined);
    if (redisUrl) await deleteRedisKeys(redisUrl, prefix).catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitFor(async () => {
      if (!child.running) throw new Error(`npm start exited:\n${child.tail()}`);
      return (await fetch(`${baseUrl}/healthz`).catch(() => undefined))?.status === 200;
    }, 120_000, 250);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    topology: 'one',
    baseUrl,
    authUrl: `${baseUrl}/auth`,
    ticketGrpcAddress: `127.0.0.1:${ports.ticket}`,
    ticketDatabaseUrl: databases.ticketUrl,
    metricsUrls: { stack: `http://127.0.0.1:${ports.metrics}/metrics` },
    pids: () => [child.child.pid!],
    stop,
  };
}

function mkdirp(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** SIGTERM, then SIGKILL after 15 s. */
async function terminate(process: RunningProcess): Promise<void> {
  if (!process.running) return;
  process.child.kill('SIGTERM');
  await Promise.race([process.exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
  await process.kill();
}

/** Keeps only the last lines (for an error message), not every access log line of a long run. */
function forgetOutput(process: RunningProcess): void {
  const keep = 50;
  process.child.stdout?.on('data', () => {
    if (process.output.length > keep * 2) process.output.splice(0, process.output.length - keep);
  });
}

export interface Baseline {
  url: string;
  pid: number;
  /** Lets `token` read `companyIds` (the session check every baseline request makes). */
  addSession(token: string, companyIds: string[]): Promise<void>;
  stop(): Promise<void>;
}

export async function startBaseline(ticketDatabaseUrl: string, redisUrl: string): Promise<Baseline> {
  const prefix = `test:bench-baseline-${randomBytes(4).toString('hex')}:`;
  const child = spawnNode('baseline', 'test/bench/baseline-server.ts', [], {
    NODE_ENV: 'production',
    BASELINE_MYSQL_URL: ticketDatabaseUrl,
    BASELINE_REDIS_URL: redisUrl,
    BASELINE_REDIS_PREFIX: prefix,
    PORT: '0',
  });
  await child.waitForOutput(/^listening \d+/);
  const port = /^listening (\d+)/.exec(child.output.find((line) => line.startsWith('listening'))!)![1];
  const redis = createClient({ url: redisUrl });
  await redis.connect();
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.child.pid!,
    async addSession(token, companyIds) {
      await redis.set(`${prefix}${token}`, JSON.stringify({ companyIds }), { EX: 3600 });
    },
    async stop() {
      await terminate(child);
      await deleteRedisKeys(redisUrl, prefix).catch(() => undefined);
      await redis.close();
    },
  };
}

/** Resident set size of a process, in MB (Linux). */
export function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

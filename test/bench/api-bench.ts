/**
 * `npm run bench`: the stack (MySQL + Redis, real processes) against a one-process baseline
 * doing the same work (baseline-server.ts), in turns (stack, baseline, stack, baseline, ...),
 * under autocannon. Prints per scenario the medians over the rounds of req/s, p50/p99 and the
 * errors, and the ratio to the baseline; writes the same as JSON to test/bench/results/.
 * Prints figures; asserts nothing. docs/PERFORMANCE.md has the method and the figures.
 *
 * Env (defaults in brackets):
 *   TEST_MYSQL_URL [mysql://root@127.0.0.1:3306/test], TEST_REDIS_URL [redis://127.0.0.1:6379]
 *   BENCH_QUICK=1        smoke: 1 round of 1 s, 2,000 tickets in the full list, a small rush
 *   BENCH_ROUNDS [3]     BENCH_SECONDS [5] per turn   BENCH_CONNECTIONS [32]
 *   BENCH_LIST_TICKETS [200000]   BENCH_LIST_ROUNDS [2]
 *   BENCH_TOPOLOGY [three]: three (auth, ticket, gateway processes), one (npm start), both
 *   BENCH_MODE [compare]: compare (the above), scale (read and list latency at 1k vs 1M tickets)
 *   BENCH_RUSH [1]: 0 skips the on-sale rush, only runs just it (on a stack of its own, nothing filled)
 *   BENCH_RUSH_BACKEND [mysql]: the rush's backend: mysql (MySQL + Redis, each BENCH_TOPOLOGY),
 *     embedded (`npm start` with nothing configured: SQLite, in-process cache; no raw limit), or both
 *   RUSH_STOCK [10000], RUSH_BUYERS [500; a list, e.g. 500,1000,5000: one rush per size], RUSH_READERS [4]
 *   BENCH_ONLY: list (just the full list) or load (everything but the full list)
 *   BENCH_CPU_PROF=<dir>: CPU profiles (--cpu-prof) of the stack's processes into <dir>
 *   BENCH_LOG_LEVEL (the services' LOG_LEVEL; default: production's info), RATE_LIMIT_* (passed on)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { credentials, Metadata } from '@grpc/grpc-js';
import { createDatabase } from '../../lib/db.js';
import { TicketServiceClient } from '../../lib/gen/ticketing/v1/ticket.js';
import { callUnary } from '../../lib/grpc/client.js';
import { ROOT } from '../ops/compose-file.js';
import { bearer, request, signUpAndLogin, type Account } from '../support/http.js';
import type { TestStack } from '../support/stack.js';
import { rssMb, startBaseline, startBenchStack, startOneProcess, type Baseline, type BenchStack, type Topology } from './bench-processes.js';
import { fillTickets, type Filled } from './fill-tickets.js';
import { callTurn, httpTurn, median, type HttpLoad, type Turn } from './load.js';
import { runRushes } from './rush-bench.js';

const env = process.env;
const quick = env.BENCH_QUICK === '1';
if (quick) {
  env.RUSH_STOCK ??= '200';
  env.RUSH_BUYERS ??= '20';
}
const settings = {
  mysqlUrl: env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test',
  redisUrl: env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
  rounds: Number(env.BENCH_ROUNDS ?? (quick ? 1 : 3)),
  seconds: Number(env.BENCH_SECONDS ?? (quick ? 1 : 5)),
  connections: Number(env.BENCH_CONNECTIONS ?? 32),
  listTickets: Number(env.BENCH_LIST_TICKETS ?? (quick ? 2000 : 200_000)),
  listRounds: Number(env.BENCH_LIST_ROUNDS ?? (quick ? 1 : 2)),
  topologies: (env.BENCH_TOPOLOGY === 'both' ? ['three', 'one'] : [env.BENCH_TOPOLOGY === 'one' ? 'one' : 'three']) as Topology[],
  mode: env.BENCH_MODE === 'scale' ? 'scale' : 'compare',
  rush: env.BENCH_RUSH ?? '1',
  rushBackends: (env.BENCH_RUSH_BACKEND === 'both' ? ['mysql', 'embedded'] : [env.BENCH_RUSH_BACKEND === 'embedded' ? 'embedded' : 'mysql']) as RushBackend[],
  /** list: only the full list; load: only the autocannon scenarios (and the rush). */
  only: env.BENCH_ONLY === 'list' || env.BENCH_ONLY === 'load' ? env.BENCH_ONLY : undefined,
};

type RushBackend = 'mysql' | 'embedded';

/** One row of the result: a scenario's medians on the stack and, where there is one, on the baseline. */
interface ScenarioResult {
  scenario: string;
  topology: Topology;
  stack: Turn[];
  baseline?: Turn[];
}

interface ListResult {
  scenario: string;
  topology: Topology;
  tickets: number;
  stackSeconds: number[];
  baselineSeconds: number[];
  /** Peak growth of the stack's resident memory (all its processes) while streaming, per round. */
  stackRssGrowthMb: number[];
  complete: boolean;
}

/** Account A reads the filled company; account B writes in its own company, so the full list stays as filled. */
interface Fixture {
  reader: Account;
  writer: Account;
  filled: Filled;
  writerEvent: string;
  writerTickets: string[];
}

const spread = (count: number, path: (i: number) => string) => Array.from({ length: count }, (_, i) => path(i));

async function prepare(stack: BenchStack): Promise<Fixture> {
  const target = { authUrl: stack.authUrl } as TestStack;
  const reader = await signUpAndLogin(target);
  const writer = await signUpAndLogin(target);
  const db = createDatabase({ url: stack.ticketDatabaseUrl, sqliteFile: '', migrations: {} });
  const filled = await fillTickets(db, { firstCompanyId: reader.companyId, tickets: settings.listTickets, events: Math.max(1, settings.listTickets / 100), companies: 1 }).finally(() => db.destroy());
  console.log(`filled ${settings.listTickets} tickets in ${filled.seconds.toFixed(1)} s`);
  const headers = bearer(writer.accessToken);
  const event = await request(`${stack.baseUrl}/event`, { method: 'POST', headers, json: { name: 'Bench writes' } });
  const writerTickets: string[] = [];
  for (let i = 0; i < 100; i++) {
    const ticket = await request(`${stack.baseUrl}/event/${event.body.guid}/ticket`, { method: 'POST', headers, json: { name: `W${i}`, vat_percentage: 21 } });
    writerTickets.push(ticket.body.guid as string);
  }
  return { reader, writer, filled, writerEvent: event.body.guid as string, writerTickets };
}

interface Scenario {
  name: string;
  stack: () => Promise<Turn>;
  baseline?: () => Promise<Turn>;
}

function scenarios(stack: BenchStack, baseline: Baseline, fx: Fixture, grpc: TicketServiceClient): Scenario[] {
  const load = (url: string, token: string, extra: Partial<HttpLoad> & { paths: string[] }) => () =>
    httpTurn({ url, headers: bearer(token), connections: settings.connections, seconds: settings.seconds, ...extra });
  const reads = spread(Math.min(1000, settings.listTickets), (i) => `/ticket/${fx.filled.ticketGuid(i)}`);
  const pages = spread(Math.min(100, settings.listTickets / 100), (i) => `/event/${fx.filled.eventGuid(i)}/ticket?limit=100`);
  const authPath = new URL(stack.authUrl).pathname;
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${fx.reader.accessToken}`);
  let n = 0;
  return [
    { name: 'GET /ticket/:guid', stack: load(stack.baseUrl, fx.reader.accessToken, { paths: reads }), baseline: load(baseline.url, fx.reader.accessToken, { paths: reads }) },
    {
      name: 'GET /event/:guid/ticket?limit=100',
      stack: load(stack.baseUrl, fx.reader.accessToken, { paths: pages }),
      baseline: load(baseline.url, fx.reader.accessToken, { paths: pages }),
    },
    {
      name: 'gRPC GetTicket (direct)',
      stack: () =>
        callTurn(settings.connections, settings.seconds, async () => {
          const guid = fx.filled.ticketGuid(n++ % reads.length);
          const ticket = await callUnary(grpc.getTicket.bind(grpc), { guid }, metadata, 5000);
          return ticket.guid === guid;
        }),
    },
    { name: `GET ${authPath}/users/me`, stack: load(stack.baseUrl, fx.reader.accessToken, { paths: [`${authPath}/users/me`] }) },
    {
      name: 'POST /event/:guid/ticket (create)',
      stack: load(stack.baseUrl, fx.writer.accessToken, { paths: [`/event/${fx.writerEvent}/ticket`], method: 'POST', body: JSON.stringify({ name: 'Bench', vat_percentage: 21 }), status: 201 }),
    },
    {
      name: 'PUT /ticket/:guid (one field)',
      stack: load(stack.baseUrl, fx.writer.accessToken, { paths: fx.writerTickets.map((g) => `/ticket/${g}`), method: 'PUT', body: JSON.stringify({ available_stock: 7 }) }),
    },
  ];
}

/** GETs the whole list once; its time, the item count (counted as it streams, never held) and the peak RSS growth of `pids`. */
async function streamOnce(url: string, token: string, pids: number[]): Promise<{ seconds: number; items: number; rssGrowthMb: number }> {
  const rss = () => pids.reduce((sum, pid) => sum + rssMb(pid), 0);
  const before = rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rss())), 100);
  const started = performance.now();
  try {
    const response = await fetch(url, { headers: bearer(token) });
    if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
    let items = 0;
    let tail = '';
    const decoder = new TextDecoder();
    for await (const chunk of response.body!) {
      const text = tail + decoder.decode(chunk, { stream: true });
      items += text.split('"guid":').length - 1;
      tail = text.slice(-7);
      if (tail.includes('"guid":')) tail = '';
    }
    return { seconds: (performance.now() - started) / 1000, items, rssGrowthMb: peak - before };
  } finally {
    clearInterval(sampler);
  }
}

/** Runs the scenarios and the full list, hands them to `measured` (printed and saved before the rush, which may run long), then the rush. */
async function compare(topology: Topology, measured: (scenarios: ScenarioResult[], lists: ListResult[]) => void): Promise<Record<string, unknown>[]> {
  const stack = await startBenchStack(topology, settings.mysqlUrl, settings.redisUrl);
  let baseline: Baseline | undefined;
  const grpc = new TicketServiceClient(stack.ticketGrpcAddress, credentials.createInsecure());
  try {
    const fx = await prepare(stack);
    baseline = await startBaseline(stack.ticketDatabaseUrl, settings.redisUrl);
    await baseline.addSession(fx.reader.accessToken, [fx.reader.companyId]);
    const list = settings.only === 'list' ? [] : scenarios(stack, baseline, fx, grpc);
    const results: ScenarioResult[] = list.map((s) => ({ scenario: s.name, topology, stack: [], ...(s.baseline ? { baseline: [] } : {}) }));
    const lists: ListResult = { scenario: `GET /ticket (deprecated full list)`, topology, tickets: settings.listTickets, stackSeconds: [], baselineSeconds: [], stackRssGrowthMb: [], complete: true };
    // Warm-up: JIT, connection pools and the buffer pool, for both sides.
    for (const s of list) {
      await httpTurnQuiet(s.stack);
      if (s.baseline) await httpTurnQuiet(s.baseline);
    }
    for (let round = 1; round <= settings.rounds; round++) {
      for (const [i, s] of list.entries()) {
        results[i]!.stack.push(await s.stack());
        if (s.baseline) results[i]!.baseline!.push(await s.baseline());
        console.log(`round ${round}/${settings.rounds} ${topology}: ${s.name}`);
      }
    }
    // Warm-up of the streaming path (the same StreamTickets, one event at a time), not counted.
    for (let i = 0; settings.only !== 'load' && i < 20; i++) {
      for (const origin of [stack.baseUrl, baseline.url]) await fetch(`${origin}/event/${fx.filled.eventGuid(i % Math.max(1, settings.listTickets / 100))}/ticket`, { headers: bearer(fx.reader.accessToken) }).then((r) => r.arrayBuffer());
    }
    for (let round = 1; settings.only !== 'load' && round <= settings.listRounds; round++) {
      const onStack = await streamOnce(`${stack.baseUrl}/ticket`, fx.reader.accessToken, stack.pids());
      const onBaseline = await streamOnce(`${baseline.url}/ticket`, fx.reader.accessToken, [baseline.pid]);
      lists.stackSeconds.push(onStack.seconds);
      lists.stackRssGrowthMb.push(onStack.rssGrowthMb);
      lists.baselineSeconds.push(onBaseline.seconds);
      lists.complete &&= onStack.items === settings.listTickets && onBaseline.items === settings.listTickets;
      console.log(`list round ${round}/${settings.listRounds} ${topology}: stack ${onStack.seconds.toFixed(1)} s (${onStack.items}), baseline ${onBaseline.seconds.toFixed(1)} s (${onBaseline.items})`);
    }
    measured(results, settings.only === 'load' ? [] : [lists]);
    return rushes() && settings.rushBackends.includes('mysql') ? await runRushes({ ...stack, backend: `mysql, ${topology}` }, fx.writer.accessToken) : [];
  } finally {
    grpc.close();
    await baseline?.stop();
    await stack.stop();
  }
}

/** Whether this run has a rush after the other scenarios. */
const rushes = () => settings.rush !== '0' && settings.only !== 'list';

/** The rush on a stack of its own: MySQL + Redis in `topology`, or the embedded `npm start`. */
async function rushOnOwnStack(backend: RushBackend, topology: Topology): Promise<Record<string, unknown>[]> {
  const stack = backend === 'mysql' ? await startBenchStack(topology, settings.mysqlUrl, settings.redisUrl) : await startOneProcess(undefined, undefined);
  try {
    const buyer = await signUpAndLogin({ authUrl: stack.authUrl } as TestStack);
    return await runRushes({ ...stack, backend: `${backend}, ${stack.topology}` }, buyer.accessToken);
  } finally {
    await stack.stop();
  }
}

/** A short turn whose figures are thrown away. */
async function httpTurnQuiet(turn: () => Promise<Turn>): Promise<void> {
  const saved = settings.seconds;
  settings.seconds = Math.min(saved, 1);
  try {
    await turn();
  } finally {
    settings.seconds = saved;
  }
}

const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? Number(value.toFixed(digits)) : null);

function summarize(r: ScenarioResult) {
  const m = (turns: Turn[] | undefined, key: keyof Turn) => (turns ? median(turns.map((t) => t[key])) : NaN);
  const stackRps = m(r.stack, 'rps');
  const baseRps = m(r.baseline, 'rps');
  return {
    scenario: r.scenario,
    topology: r.topology,
    'req/s': fixed(stackRps, 0),
    'p50 ms': fixed(m(r.stack, 'p50')),
    'p99 ms': fixed(m(r.stack, 'p99')),
    errors: r.stack.reduce((sum, t) => sum + t.errors, 0),
    'base req/s': fixed(baseRps, 0),
    'base p50': fixed(m(r.baseline, 'p50')),
    'base p99': fixed(m(r.baseline, 'p99')),
    'base errors': r.baseline?.reduce((sum, t) => sum + t.errors, 0) ?? null,
    'x req/s': fixed(stackRps / baseRps, 2),
    'x p99': fixed(m(r.stack, 'p99') / m(r.baseline, 'p99'), 2),
  };
}

function summarizeList(l: ListResult) {
  const stack = median(l.stackSeconds);
  const base = median(l.baselineSeconds);
  return {
    scenario: l.scenario,
    topology: l.topology,
    tickets: l.tickets,
    'stack s': fixed(stack, 2),
    'base s': fixed(base, 2),
    'x time': fixed(stack / base, 2),
    'stack RSS growth MB': fixed(median(l.stackRssGrowthMb), 0),
    complete: l.complete,
  };
}

/** Read and list latency with 1,000 tickets in the table, then with 1,000,000 (the same reads: the bench company keeps its 1,000). */
async function scale(topology: Topology) {
  const stack = await startBenchStack(topology, settings.mysqlUrl, settings.redisUrl);
  try {
    const reader = await signUpAndLogin({ authUrl: stack.authUrl } as TestStack);
    const db = createDatabase({ url: stack.ticketDatabaseUrl, sqliteFile: '', migrations: {} });
    const rows: Record<string, unknown>[] = [];
    try {
      const mine = await fillTickets(db, { firstCompanyId: reader.companyId, tickets: 1000, events: 10, companies: 1 });
      const reads = spread(1000, (i) => `/ticket/${mine.ticketGuid(i)}`);
      const pages = spread(10, (i) => `/event/${mine.eventGuid(i)}/ticket?limit=100`);
      const measure = async (total: string) => {
        for (const [name, paths] of [['GET /ticket/:guid', reads], ['GET /event/:guid/ticket?limit=100', pages]] as const) {
          const load = { url: stack.baseUrl, paths: [...paths], headers: bearer(reader.accessToken), connections: settings.connections, seconds: settings.seconds };
          await httpTurn({ ...load, seconds: 1 });
          const turns: Turn[] = [];
          for (let round = 0; round < settings.rounds; round++) turns.push(await httpTurn(load));
          rows.push({ scenario: name, 'tickets in table': total, 'req/s': fixed(median(turns.map((t) => t.rps)), 0), 'p50 ms': fixed(median(turns.map((t) => t.p50))), 'p99 ms': fixed(median(turns.map((t) => t.p99))), errors: turns.reduce((s, t) => s + t.errors, 0) });
        }
      };
      await measure('1,000');
      const others = `00000000-0c0c-4000-8000-${Date.now().toString(16).padStart(12, '0')}`;
      const big = await fillTickets(db, { firstCompanyId: others, tickets: 999_000, events: 9_990, companies: 99 });
      console.log(`filled 999,000 more tickets over 9,990 events and 99 companies in ${big.seconds.toFixed(1)} s`);
      await measure('1,000,000');
    } finally {
      await db.destroy();
    }
    return rows;
  } finally {
    await stack.stop();
  }
}

function write(file: string, result: unknown): string {
  const dir = path.dirname(file);
  mkdirSync(dir, { recursive: true });
  const text = `${JSON.stringify(result, null, 2)}\n`;
  writeFileSync(file, text);
  writeFileSync(path.join(dir, 'latest.json'), text);
  return file;
}

async function main(): Promise<void> {
  const started = performance.now();
  const machine = { node: process.version, platform: process.platform, cpus: (await import('node:os')).cpus().length, loadavg: (await import('node:os')).loadavg() };
  console.log(`bench: ${JSON.stringify({ ...settings, quick })}`);
  if (settings.mode === 'scale') {
    const rows = [];
    for (const topology of settings.topologies) rows.push(...(await scale(topology)));
    console.table(rows);
    console.log(`\nwritten to ${write(path.join(ROOT, 'test/bench/results', `scale-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), { settings, machine, scale: rows })}`);
    return;
  }
  const all = { scenarios: [] as ScenarioResult[], lists: [] as ListResult[], rush: [] as Record<string, unknown>[] };
  const file = path.join(ROOT, 'test/bench/results', `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  const summary = () => ({ scenarios: all.scenarios.map(summarize), lists: all.lists.map(summarizeList) });
  const save = () => write(file, { settings, machine, seconds: (performance.now() - started) / 1000, summary: summary(), turns: all.scenarios, lists: all.lists, rush: all.rush });
  if (settings.rush === 'only') {
    for (const backend of settings.rushBackends) {
      for (const topology of backend === 'mysql' ? settings.topologies : (['one'] as const)) {
        all.rush.push(...(await rushOnOwnStack(backend, topology)));
        save();
      }
    }
    console.log(`\nwritten to ${file} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    return;
  }
  for (const topology of settings.topologies) {
    const rush = await compare(topology, (scenarios, lists) => {
      all.scenarios.push(...scenarios);
      all.lists.push(...lists);
      const { scenarios: rows, lists: listRows } = summary();
      console.log(`\nMySQL + Redis, node ${process.version}, ${machine.cpus} CPUs, load average at start ${machine.loadavg.map((l) => l.toFixed(1)).join(' ')}; medians of ${settings.rounds} rounds of ${settings.seconds} s at ${settings.connections} connections; x = stack / baseline\n`);
      if (rows.length) console.table(rows);
      if (listRows.length) console.table(listRows);
      save();
    });
    all.rush.push(...rush);
    save();
  }
  if (rushes() && settings.rushBackends.includes('embedded')) {
    all.rush.push(...(await rushOnOwnStack('embedded', 'one')));
    save();
  }
  console.log(`\nwritten to ${file} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);

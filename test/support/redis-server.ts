import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { acceptsConnections } from './resources.js';

const PORTS_PER_WORKER = 1000;
/** Below Linux's ephemeral range (32768-60999): no other bind(0) or outgoing connection lands here. */
const FIRST_WORKER_PORT = 21_000;
const MAX_WORKERS = 4; // vitest.config.ts runs 2; 21000-24999 stays clear of RabbitMQ's 25672
let nextInWorker = Math.floor(Math.random() * PORTS_PER_WORKER); // each test file is a new process: start anywhere in the range

/**
 * A free TCP port on loopback, for a server a test starts. Each vitest worker takes ports from
 * its own range, in turn, skipping any in use: two ports handed out close together never collide,
 * in one process or across workers (bind(0) can hand the same ephemeral port out twice once the
 * first probe has closed it: it did, in CI, to a gateway and a ticket service).
 */
export async function freePort(): Promise<number> {
  const worker = Number(process.env.VITEST_POOL_ID);
  if (!Number.isInteger(worker) || worker < 1 || worker > MAX_WORKERS) return listenOn(0);
  for (let tries = 0; tries < PORTS_PER_WORKER; tries++) {
    const port = FIRST_WORKER_PORT + (worker - 1) * PORTS_PER_WORKER + (nextInWorker++ % PORTS_PER_WORKER);
    const free = await listenOn(port).catch(() => undefined);
    if (free) return free;
  }
  throw new Error(`no free port in vitest worker ${worker}'s range`);
}

/** Listens on `port` (0: any) on loopback, closes, and says which port it was. */
function listenOn(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(bound));
    });
    server.on('error', reject);
  });
}

/** A private redis-server on a spare port, for tests that stop or flush Redis (never the shared one). */
export class PrivateRedis {
  private process?: ChildProcess;

  private constructor(readonly port: number) {}

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort());
    await redis.resume();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async resume(): Promise<void> {
    this.process = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    await waitFor(() => acceptsConnections(this.port), 5000);
  }

  /** Stops the server without closing its connections (SIGSTOP): every command hangs until thaw(). */
  freeze(): void {
    this.process?.kill('SIGSTOP');
  }

  thaw(): void {
    this.process?.kill('SIGCONT');
  }

  async stop(): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
    this.process = undefined;
  }
}


export async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs: number, everyMs = 50): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`condition not met within ${timeoutMs} ms`);
}

import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { acceptsConnections } from './resources.js';

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
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
